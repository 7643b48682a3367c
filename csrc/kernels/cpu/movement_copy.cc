// This file implements StridedCopy and the CPU kernels that are one strided
// copy (or a view): expand_dims, squeeze, broadcast_to, tile, slice,
// strided_slice, reverse; and defines RegisterCpuMovementKernels.
#include "kernels/cpu/movement_copy.h"

#include <algorithm>
#include <cstring>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/view_kernel.h"  // expand_dims and squeeze
#include "ops/attrs/movement.gen.h"

namespace ember::cpu {
namespace {

// Copies one run of n elements with the given strides.
template <typename U>
void CopyRun(const U* src, int64_t src_stride, U* dst, int64_t dst_stride, int64_t n) {
  if (src_stride == 1 && dst_stride == 1) {
    std::memcpy(dst, src, n * sizeof(U));
  } else if (src_stride == 0 && dst_stride == 1) {
    std::fill(dst, dst + n, *src);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i * dst_stride] = src[i * src_stride];
  }
}

void CopyRunBytes(const char* src, int64_t src_stride, char* dst, int64_t dst_stride, int64_t n,
                  size_t elem_size) {
  switch (elem_size) {
    case 1:
      return CopyRun(reinterpret_cast<const uint8_t*>(src), src_stride, reinterpret_cast<uint8_t*>(dst),
                     dst_stride, n);
    case 2:
      return CopyRun(reinterpret_cast<const uint16_t*>(src), src_stride, reinterpret_cast<uint16_t*>(dst),
                     dst_stride, n);
    case 4:
      return CopyRun(reinterpret_cast<const uint32_t*>(src), src_stride, reinterpret_cast<uint32_t*>(dst),
                     dst_stride, n);
    case 8:
      return CopyRun(reinterpret_cast<const uint64_t*>(src), src_stride, reinterpret_cast<uint64_t*>(dst),
                     dst_stride, n);
    default: {
      const int64_t es = static_cast<int64_t>(elem_size);
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * dst_stride * es, src + i * src_stride * es, elem_size);
    }
  }
}

}  // namespace

void CopyElements(void* dst, const void* src, int64_t count, size_t elem_size) {
  if (count == 1) {
    CopyRunBytes(static_cast<const char*>(src), 1, static_cast<char*>(dst), 1, 1, elem_size);
    return;
  }
  std::memcpy(dst, src, static_cast<size_t>(count) * elem_size);
}

void StridedCopy(const DeviceContext* device, const void* src_ptr, void* dst_ptr, size_t elem_size, const CopyPlan& plan) {
  for (int64_t d : plan.dims) {
    if (d <= 0) return;
  }
  const CopyPlan c = CollapseCopyPlan(plan);
  const char* src = static_cast<const char*>(src_ptr);
  char* dst = static_cast<char*>(dst_ptr);
  const int64_t es = static_cast<int64_t>(elem_size);
  if (c.dims.empty()) {  // a single element
    std::memcpy(dst + c.dst_offset * es, src + c.src_offset * es, elem_size);
    return;
  }
  const int rank = static_cast<int>(c.dims.size());
  const int64_t inner = c.dims[rank - 1];
  int64_t rows = 1;
  for (int i = 0; i < rank - 1; ++i) rows *= c.dims[i];
  const double cycles = std::max(1.0, static_cast<double>(inner * es) / 8.0);
  ParallelFor(device, rows, cycles, [&](int64_t first, int64_t last) {
    // Decompose the first row into an index over the outer dims, then walk
    // them like an odometer.
    std::vector<int64_t> idx(rank > 1 ? rank - 1 : 1, 0);
    int64_t src_off = c.src_offset, dst_off = c.dst_offset;
    int64_t rest = first;
    for (int i = rank - 2; i >= 0; --i) {
      idx[i] = rest % c.dims[i];
      rest /= c.dims[i];
      src_off += idx[i] * c.src_strides[i];
      dst_off += idx[i] * c.dst_strides[i];
    }
    for (int64_t row = first; row < last; ++row) {
      CopyRunBytes(src + src_off * es, c.src_strides[rank - 1], dst + dst_off * es, c.dst_strides[rank - 1],
                   inner, elem_size);
      for (int i = rank - 2; i >= 0; --i) {
        src_off += c.src_strides[i];
        dst_off += c.dst_strides[i];
        if (++idx[i] < c.dims[i]) break;
        src_off -= c.src_strides[i] * c.dims[i];
        dst_off -= c.dst_strides[i] * c.dims[i];
        idx[i] = 0;
      }
    }
  });
}

void CopyView(const DeviceContext* device, const void* src, void* dst, size_t elem_size, const shape_fns::StridedView& view) {
  StridedCopy(device, src, dst, elem_size, CopyPlanForView(view));
}

namespace {

// A kernel that copies the strided view ViewOf (ops/plans/copy_plan.h)
// gives for its input.
template <typename Attrs>
class ViewCopyKernel final : public OpKernel {
 public:
  explicit ViewCopyKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    shape_fns::StridedView view;
    EMBER_RETURN_IF_ERROR(ViewOf(attrs_, in.shape(), &view));
    CopyView(&ctx.device_context(), in.raw_data(), ctx.output(0).raw_data(), DTypeSize(in.dtype()), view);
    return Status::OK();
  }

 private:
  Attrs attrs_;
};

}  // namespace
}  // namespace ember::cpu

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuMovementKernels(KernelRegistry& r) {
  using namespace cpu;  // NOLINT(build/namespaces)
  const type_sets::Every every;
  RegisterForEachDType(r, "expand_dims", &MakeKernel<ViewKernel>, every);
  RegisterForEachDType(r, "squeeze", &MakeKernel<ViewKernel>, every);
  RegisterForEachDType(r, "broadcast_to", &MakeKernel<ViewCopyKernel<BroadcastToAttrs>>, every);
  RegisterForEachDType(r, "tile", &MakeKernel<ViewCopyKernel<TileAttrs>>, every);
  RegisterForEachDType(r, "slice", &MakeKernel<ViewCopyKernel<SliceAttrs>>, every);
  RegisterForEachDType(r, "strided_slice",
                       &MakeKernel<ViewCopyKernel<StridedSliceKernelAttrs>>, every);
  RegisterForEachDType(r, "reverse", &MakeKernel<ViewCopyKernel<ReverseAttrs>>, every);
  RegisterMovementPadKernels(r);
  RegisterMovementCreateKernels(r);
  RegisterMovementConcatKernels(r);
  RegisterGatherKernels(r);
  RegisterScatterKernels(r);
}

}  // namespace ember

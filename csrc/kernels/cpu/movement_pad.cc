// This file implements the pad and roll CPU kernels as a few strided copies
// each (kernels/cpu/movement_copy.h).
#include <algorithm>
#include <type_traits>

#include "kernels/cpu/eigen.h"  // Eigen::half and bfloat16 (the every set)
#include "kernels/cpu/movement_copy.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/movement.gen.h"

namespace ember::cpu {
namespace {

// Copies the input into the interior of the output, then (REFLECT and
// SYMMETRIC) fills each dimension's borders, dim by dim, by mirrored
// copies from the output itself: border slabs of dim d span the already
// padded extent of dims < d and the interior of dims > d.
template <typename T>
class PadKernel final : public OpKernel {
 public:
  explicit PadKernel(const KernelInit& init) : attrs_(init.attrs), fill_(FromDouble<T>(attrs_.constant_values)) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    Tensor& out = ctx.output(0);
    shape_fns::PadMode mode;
    Shape out_shape;
    EMBER_RETURN_IF_ERROR(shape_fns::ParsePad(in.shape(), attrs_.paddings, attrs_.mode, &mode, &out_shape));
    const int rank = in.rank();
    const std::vector<int64_t> out_strides = ContiguousStrides(out.shape());
    T* dst = out.data<T>();
    if (mode == shape_fns::PadMode::kConstant && in.NumElements() != out.NumElements()) {
      const T fill = fill_;
      ParallelFor(ctx, out.NumElements(), kCheapOpCycles,
                  [=](int64_t first, int64_t last) { std::fill(dst + first, dst + last, fill); });
    }
    CopyPlan interior;
    interior.dims = in.shape().ToVector();
    interior.src_strides = ContiguousStrides(in.shape());
    interior.dst_strides = out_strides;
    for (int i = 0; i < rank; ++i) interior.dst_offset += attrs_.paddings[2 * i] * out_strides[i];
    StridedCopy(&ctx.device_context(), in.raw_data(), dst, sizeof(T), interior);
    if (mode == shape_fns::PadMode::kConstant) return Status::OK();

    const int64_t edge = mode == shape_fns::PadMode::kReflect ? 1 : 0;  // REFLECT skips the edge
    for (int d = 0; d < rank; ++d) {
      const int64_t before = attrs_.paddings[2 * d], after = attrs_.paddings[2 * d + 1];
      const int64_t n = in.dim(d);
      // The slab: full padded extent for dims < d, interior for dims > d.
      CopyPlan slab;
      slab.dims.resize(rank);
      slab.src_strides = out_strides;
      slab.dst_strides = out_strides;
      int64_t base = 0;
      for (int k = 0; k < rank; ++k) {
        slab.dims[k] = k < d ? out.dim(k) : in.dim(k);
        if (k > d) base += attrs_.paddings[2 * k] * out_strides[k];
      }
      slab.src_strides[d] = -out_strides[d];  // mirrored along d
      if (before > 0) {
        // Output index p < before reads 2 * before - p - (1 - edge).
        CopyPlan left = slab;
        left.dims[d] = before;
        left.dst_offset = base;
        left.src_offset = base + (2 * before - 1 + edge) * out_strides[d];
        StridedCopy(&ctx.device_context(), dst, dst, sizeof(T), left);
      }
      if (after > 0) {
        // Output index before + n + j reads before + n - 1 - edge - j.
        CopyPlan right = slab;
        right.dims[d] = after;
        right.dst_offset = base + (before + n) * out_strides[d];
        right.src_offset = base + (before + n - 1 - edge) * out_strides[d];
        StridedCopy(&ctx.device_context(), dst, dst, sizeof(T), right);
      }
    }
    return Status::OK();
  }

 private:
  PadAttrs attrs_;
  T fill_;
};

// out[(i + shift) mod n] = in[i] along each rolled dim: the output splits
// into two blocks per rolled dim, 2^k strided copies in all.
class RollKernel final : public OpKernel {
 public:
  explicit RollKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    std::vector<int64_t> shift;
    EMBER_RETURN_IF_ERROR(shape_fns::RollShifts(in.shape(), attrs_.shift, attrs_.axis, &shift));
    const int rank = in.rank();
    const std::vector<int64_t> strides = ContiguousStrides(in.shape());
    std::vector<int> rolled;
    for (int d = 0; d < rank; ++d) {
      if (shift[d] != 0) rolled.push_back(d);
    }
    const int k = static_cast<int>(rolled.size());
    for (int64_t combo = 0; combo < (int64_t{1} << k); ++combo) {
      CopyPlan block;
      block.dims = in.shape().ToVector();
      block.src_strides = strides;
      block.dst_strides = strides;
      for (int j = 0; j < k; ++j) {
        const int d = rolled[j];
        const int64_t n = in.dim(d), s = shift[d];
        if ((combo >> j) & 1) {  // in[n - s:] -> out[:s]
          block.dims[d] = s;
          block.src_offset += (n - s) * strides[d];
        } else {  // in[:n - s] -> out[s:]
          block.dims[d] = n - s;
          block.dst_offset += s * strides[d];
        }
      }
      StridedCopy(&ctx.device_context(), in.raw_data(), ctx.output(0).raw_data(), DTypeSize(in.dtype()), block);
    }
    return Status::OK();
  }

 private:
  RollAttrs attrs_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterMovementPadKernels(KernelRegistry& r) {
  RegisterForTypeSet<PadKernel>(r, "pad", type_sets::Every{});
  RegisterForEachDType(r, "roll", &MakeKernel<RollKernel>, type_sets::Every{});
}

}  // namespace ember::cpu

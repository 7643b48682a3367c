// This file implements the scatter_nd and tensor_scatter_nd_update CPU
// kernels. Indices are checked (NdIndexSlots) before anything is written;
// updates are applied in order on one thread, so repeated indices add up
// (scatter_nd, wrapping for integers) or the last one wins
// (tensor_scatter_nd_update).
#include <cstring>
#include <type_traits>

#include "kernels/cpu/eigen.h"  // Eigen::half and bfloat16 (the every set)
#include "kernels/cpu/movement_copy.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/wrapping.h"

namespace ember::cpu {
namespace {

template <typename T>
class ScatterNdKernel final : public OpKernel {
 public:
  explicit ScatterNdKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& indices = ctx.input(0);
    const Tensor& updates = ctx.input(1);
    Tensor& out = ctx.output(0);
    shape_fns::GatherNdPlan plan;
    EMBER_RETURN_IF_ERROR(shape_fns::MakeScatterNdPlan(out.shape(), indices.shape(), updates.shape(), &plan));
    std::vector<int64_t> slots;
    EMBER_RETURN_IF_ERROR(NdIndexSlots(indices, plan, &slots));
    T* dst = out.data<T>();
    std::memset(out.raw_data(), 0, out.NumBytes());
    const T* src = updates.data<T>();
    const int64_t inner = plan.inner;
    for (size_t j = 0; j < slots.size(); ++j) {
      T* row = dst + slots[j] * inner;
      const T* upd = src + static_cast<int64_t>(j) * inner;
      for (int64_t s = 0; s < inner; ++s) {
        if constexpr (std::is_same_v<T, bool>) {
          row[s] = row[s] || upd[s];
        } else {
          row[s] = WrappingAdd(row[s], upd[s]);
        }
      }
    }
    return Status::OK();
  }
};

class TensorScatterNdUpdateKernel final : public OpKernel {
 public:
  explicit TensorScatterNdUpdateKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& tensor = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    Tensor& out = ctx.output(0);
    shape_fns::GatherNdPlan plan;
    EMBER_RETURN_IF_ERROR(shape_fns::MakeScatterNdPlan(tensor.shape(), indices.shape(), updates.shape(), &plan));
    std::vector<int64_t> slots;
    EMBER_RETURN_IF_ERROR(NdIndexSlots(indices, plan, &slots));
    const char* in = static_cast<const char*>(tensor.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    ParallelFor(ctx, static_cast<int64_t>(out.NumBytes()), 0.25,
                [=](int64_t first, int64_t last) { std::memcpy(dst + first, in + first, last - first); });
    const size_t es = DTypeSize(tensor.dtype());
    const int64_t row_bytes = plan.inner * static_cast<int64_t>(es);
    const char* src = static_cast<const char*>(updates.raw_data());
    for (size_t j = 0; j < slots.size(); ++j) {
      CopyElements(dst + slots[j] * row_bytes, src + static_cast<int64_t>(j) * row_bytes, plan.inner, es);
    }
    return Status::OK();
  }
};

template <typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterScatterNd(KernelRegistry& r, type_sets::TypeList<Ts...>) {
  (r.Register("scatter_nd", kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt32}, &MakeKernel<ScatterNdKernel<Ts>>),
   ...);
  (r.Register("scatter_nd", kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt64}, &MakeKernel<ScatterNdKernel<Ts>>),
   ...);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterScatterKernels(KernelRegistry& r) {
  const type_sets::Every every;
  RegisterScatterNd(r, every);
  RegisterWithIndexTypes(r, "tensor_scatter_nd_update", &MakeKernel<TensorScatterNdUpdateKernel>,
                         &MakeKernel<TensorScatterNdUpdateKernel>, every);
}

}  // namespace ember::cpu

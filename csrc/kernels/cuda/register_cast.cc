// This file defines the GPU cast kernel's host side and registers it for
// every pair of real dtypes (cast.cu instantiates them).
#include "kernels/common/element_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/elementwise.h"

namespace ember::cuda {
namespace {

template <typename Src, typename Dst>
class CastKernel final : public OpKernel {
 public:
  explicit CastKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& x = ctx.input(0);
    return env.CheckLaunch(LaunchUnary<Src, Dst, math::CastTo<ComputeType<Dst>>>(
                               static_cast<const Src*>(x.raw_data()), static_cast<Dst*>(ctx.output(0).raw_data()),
                               x.NumElements(), StreamOf(env), env.max_blocks),
                           "launching the cast");
  }
};

template <typename Src, typename... Dsts>
EMBER_STARTUP_TEMPLATE void From(KernelRegistry& r, DeviceTypeId gpu) {
  (r.Register("cast", gpu, {TypeOf<Src>(), TypeOf<Dsts>()}, &MakeKernel<CastKernel<Src, Dsts>>), ...);
}

template <typename... Srcs>
EMBER_STARTUP_TEMPLATE void AllPairs(KernelRegistry& r, DeviceTypeId gpu) {
  (From<Srcs, bool, int8_t, int16_t, int32_t, int64_t, uint8_t, __half, __nv_bfloat16, float, double>(r, gpu), ...);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaCastKernels(KernelRegistry& r, DeviceTypeId gpu) {
  AllPairs<bool, int8_t, int16_t, int32_t, int64_t, uint8_t, __half, __nv_bfloat16, float, double>(r, gpu);
}

}  // namespace ember::cuda

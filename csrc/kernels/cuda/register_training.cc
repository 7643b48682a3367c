// This file defines the GPU optimizer updates' host side (training.h) and
// registers them for the float dtypes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/training.h"
#include "ops/attrs/training.gen.h"

namespace ember::cuda {
namespace {

template <typename T>
const T* In(const KernelContext& ctx, int i) {
  return static_cast<const T*>(ctx.input(i).raw_data());
}
template <typename T>
T* Out(KernelContext& ctx, int i) {
  return static_cast<T*>(ctx.output(i).raw_data());
}

template <typename T>
class ApplyGradientDescentKernel final : public OpKernel {
 public:
  explicit ApplyGradientDescentKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    return env.CheckLaunch(LaunchGradientDescent<T>(In<T>(ctx, 0), In<T>(ctx, 1), In<T>(ctx, 2), Out<T>(ctx, 0),
                                                    ctx.output(0).NumElements(), StreamOf(env), env.max_blocks),
                           "launching apply_gradient_descent");
  }
};

template <typename T>
class ApplyMomentumKernel final : public OpKernel {
 public:
  explicit ApplyMomentumKernel(const KernelInit& init) : nesterov_(ApplyMomentumAttrs(init.attrs).use_nesterov) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    return env.CheckLaunch(LaunchMomentum<T>(In<T>(ctx, 0), In<T>(ctx, 1), In<T>(ctx, 2), In<T>(ctx, 3), In<T>(ctx, 4),
                                             nesterov_, Out<T>(ctx, 0), Out<T>(ctx, 1), ctx.output(0).NumElements(),
                                             StreamOf(env), env.max_blocks),
                           "launching apply_momentum");
  }

 private:
  bool nesterov_;
};

template <typename T>
class ApplyAdamKernel final : public OpKernel {
 public:
  explicit ApplyAdamKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const T* scalars[7];
    for (int k = 0; k < 7; ++k) scalars[k] = In<T>(ctx, 4 + k);
    return env.CheckLaunch(LaunchAdam<T>(In<T>(ctx, 0), In<T>(ctx, 1), In<T>(ctx, 2), In<T>(ctx, 3), scalars,
                                         Out<T>(ctx, 0), Out<T>(ctx, 1), Out<T>(ctx, 2), ctx.output(0).NumElements(),
                                         StreamOf(env), env.max_blocks),
                           "launching apply_adam");
  }
};

template <typename T>
EMBER_STARTUP_TEMPLATE void RegisterFor(KernelRegistry& r, DeviceTypeId gpu) {
  const DType t = TypeOf<T>();
  r.Register("apply_gradient_descent", gpu, {t}, &MakeKernel<ApplyGradientDescentKernel<T>>);
  r.Register("apply_momentum", gpu, {t}, &MakeKernel<ApplyMomentumKernel<T>>);
  r.Register("apply_adam", gpu, {t}, &MakeKernel<ApplyAdamKernel<T>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaTrainingKernels(KernelRegistry& r, DeviceTypeId gpu) {
  RegisterFor<float>(r, gpu);
  RegisterFor<double>(r, gpu);
  RegisterFor<__half>(r, gpu);
  RegisterFor<__nv_bfloat16>(r, gpu);
}

}  // namespace ember::cuda

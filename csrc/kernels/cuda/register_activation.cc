// This file defines the GPU activation kernels' host side (the functor,
// with its op's parameter) and registers them for the float types.
#include "kernels/common/element_math.h"
#include "kernels/cuda/activation.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "ops/attrs/nn.gen.h"

namespace ember::cuda {
namespace {

// The functor for an op's attrs: the parameter-free ones need none.
template <typename F>
F MakeFunctor(const AttrList&) {
  return F();
}
template <>
math::LeakyRelu MakeFunctor<math::LeakyRelu>(const AttrList& a) {
  return math::LeakyRelu{LeakyReluAttrs(a).alpha};
}
template <>
math::Gelu MakeFunctor<math::Gelu>(const AttrList& a) {
  return math::Gelu{GeluAttrs(a).approximate};
}
template <>
math::Silu MakeFunctor<math::Silu>(const AttrList& a) {
  return math::Silu{SiluAttrs(a).beta};
}

template <typename T, typename F>
class ActivationKernel final : public OpKernel {
 public:
  explicit ActivationKernel(const KernelInit& init) : f_(MakeFunctor<F>(init.attrs)) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& x = ctx.input(0);
    return env.CheckLaunch(LaunchActivation<T, F>(static_cast<const T*>(x.raw_data()),
                                                  static_cast<T*>(ctx.output(0).raw_data()), x.NumElements(), f_,
                                                  StreamOf(env), env.max_blocks),
                           "launching the activation");
  }

 private:
  F f_;
};

template <typename F>
EMBER_STARTUP_TEMPLATE void Register(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  r.Register(op, gpu, {DType::kFloat32}, &MakeKernel<ActivationKernel<float, F>>);
  r.Register(op, gpu, {DType::kFloat64}, &MakeKernel<ActivationKernel<double, F>>);
  r.Register(op, gpu, {DType::kFloat16}, &MakeKernel<ActivationKernel<__half, F>>);
  r.Register(op, gpu, {DType::kBFloat16}, &MakeKernel<ActivationKernel<__nv_bfloat16, F>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaActivationKernels(KernelRegistry& r, DeviceTypeId gpu) {
  Register<math::Relu6>(r, "relu6", gpu);
  Register<math::LeakyRelu>(r, "leaky_relu", gpu);
  Register<math::Elu>(r, "elu", gpu);
  Register<math::Selu>(r, "selu", gpu);
  Register<math::Gelu>(r, "gelu", gpu);
  Register<math::Silu>(r, "silu", gpu);
}

}  // namespace ember::cuda

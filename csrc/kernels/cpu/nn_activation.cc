// This file implements the element-wise activation CPU kernels (relu6,
// leaky_relu, elu, selu, gelu, silu) and RegisterCpuNnKernels, the nn
// family's registration function. relu itself is a unary kernel
// (unary.cc).
#include <cmath>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/activation_functors.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/nn_kernels.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/nn.gen.h"

namespace ember::cpu {
namespace {

// out[0, n) = fn(in[0, n)); float16 and bfloat16 run fn in float32 block
// by block (Note [Half compute]).
template <typename T, typename F>
void ApplyActivation(const F& fn, const T* in, T* out, int64_t n) {
  if constexpr (!kIsWidened<T>) {
    fn(in, out, n);
  } else {
    ComputeType<T> block[kWidenBlock];
    ForEachWidenBlock(n, [&](int64_t first, int64_t count) {
      ConvertSpan(in + first, block, count);
      fn(block, block, count);
      ConvertSpan(block, out + first, count);
    });
  }
}

template <typename T, typename F>
class ActivationKernel final : public OpKernel {
 public:
  explicit ActivationKernel(const KernelInit& init) : fn_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const T* in = ctx.input(0).data<T>();
    T* out = ctx.output(0).data<T>();
    const F fn = fn_;
    ParallelFor(ctx, ctx.output(0).NumElements(), F::kCycles, [in, out, fn](int64_t first, int64_t last) {
      ApplyActivation(fn, in + first, out + first, last - first);
    });
    return Status::OK();
  }

 private:
  F fn_;
};

template <typename F>
struct Activation {
  template <typename T>
  using Kernel = ActivationKernel<T, F>;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterNnActivationKernels(KernelRegistry& r) {
  RegisterForTypeSet<Activation<Relu6Fn>::Kernel>(r, "relu6", type_sets::Real{});
  RegisterForTypeSet<Activation<LeakyReluFn>::Kernel>(r, "leaky_relu", type_sets::Floating{});
  RegisterForTypeSet<Activation<EluFn>::Kernel>(r, "elu", type_sets::Floating{});
  RegisterForTypeSet<Activation<SeluFn>::Kernel>(r, "selu", type_sets::Floating{});
  RegisterForTypeSet<Activation<GeluFn>::Kernel>(r, "gelu", type_sets::Floating{});
  RegisterForTypeSet<Activation<SiluFn>::Kernel>(r, "silu", type_sets::Floating{});
}

}  // namespace ember::cpu

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuNnKernels(KernelRegistry& r) {
  cpu::RegisterNnActivationKernels(r);
  cpu::RegisterNnSoftmaxKernels(r);
  cpu::RegisterNnNormKernels(r);
  cpu::RegisterNnConvKernels(r);
  cpu::RegisterNnPoolKernels(r);
  cpu::RegisterNnGradKernels(r);
  cpu::RegisterNnAttentionKernels(r);
}

}  // namespace ember

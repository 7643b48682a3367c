// This file implements the element-wise activation CPU kernels (relu6,
// leaky_relu, elu, selu, gelu, silu) and RegisterCpuNnKernels, the nn
// family's registration function. relu itself is a unary kernel
// (unary.cc).
#include <cmath>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/nn_kernels.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/nn.gen.h"

namespace ember::cpu {
namespace {

// Each functor is built from the op's attrs once per kernel and fills
// out[0, n) from in[0, n); out may be in (every element is read before it
// is written at the same index).
struct Relu6Fn {
  static constexpr double kCycles = 1;
  explicit Relu6Fn(const AttrList&) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    OutVec<T>(out, n) = InVec<T>(in, n).max(T(0)).min(T(6));
  }
};

struct LeakyReluFn {
  static constexpr double kCycles = 1;
  double alpha;
  explicit LeakyReluFn(const AttrList& a) : alpha(LeakyReluAttrs(a).alpha) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    const auto x = InVec<T>(in, n);
    OutVec<T>(out, n) = (x > T(0)).select(x, x * static_cast<T>(alpha));
  }
};

struct EluFn {
  static constexpr double kCycles = 20;
  explicit EluFn(const AttrList&) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    const auto x = InVec<T>(in, n);
    OutVec<T>(out, n) = (x > T(0)).select(x, x.expm1());
  }
};

struct SeluFn {
  static constexpr double kCycles = 20;
  static constexpr double kAlpha = 1.6732632423543772848170429916717;
  static constexpr double kScale = 1.0507009873554804934193349852946;
  explicit SeluFn(const AttrList&) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    const auto x = InVec<T>(in, n);
    OutVec<T>(out, n) = (x > T(0)).select(x * T(kScale), x.expm1() * T(kScale * kAlpha));
  }
};

struct GeluFn {
  static constexpr double kCycles = 30;
  bool approximate;
  explicit GeluFn(const AttrList& a) : approximate(GeluAttrs(a).approximate) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    if (approximate) {
      const T k = static_cast<T>(std::sqrt(2.0 / M_PI));
      const auto x = InVec<T>(in, n);
      OutVec<T>(out, n) = T(0.5) * x * (T(1) + (k * (x + T(0.044715) * x.cube())).tanh());
      return;
    }
    const T inv_sqrt2 = static_cast<T>(M_SQRT1_2);
    for (int64_t i = 0; i < n; ++i) {
      const T x = in[i];
      out[i] = T(0.5) * x * (T(1) + std::erf(x * inv_sqrt2));
    }
  }
};

struct SiluFn {
  static constexpr double kCycles = 20;
  double beta;
  explicit SiluFn(const AttrList& a) : beta(SiluAttrs(a).beta) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    const auto x = InVec<T>(in, n);
    OutVec<T>(out, n) = x * (x * static_cast<T>(beta)).logistic();
  }
};

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

void RegisterNnActivationKernels(KernelRegistry& r) {
  RegisterForTypeSet<Activation<Relu6Fn>::Kernel>(r, "relu6", type_sets::Real{});
  RegisterForTypeSet<Activation<LeakyReluFn>::Kernel>(r, "leaky_relu", type_sets::Floating{});
  RegisterForTypeSet<Activation<EluFn>::Kernel>(r, "elu", type_sets::Floating{});
  RegisterForTypeSet<Activation<SeluFn>::Kernel>(r, "selu", type_sets::Floating{});
  RegisterForTypeSet<Activation<GeluFn>::Kernel>(r, "gelu", type_sets::Floating{});
  RegisterForTypeSet<Activation<SiluFn>::Kernel>(r, "silu", type_sets::Floating{});
}

}  // namespace ember::cpu

namespace ember {

void RegisterCpuNnKernels(KernelRegistry& r) {
  cpu::RegisterNnActivationKernels(r);
  cpu::RegisterNnSoftmaxKernels(r);
  cpu::RegisterNnNormKernels(r);
  cpu::RegisterNnConvKernels(r);
  cpu::RegisterNnPoolKernels(r);
  cpu::RegisterNnGradKernels(r);
  cpu::RegisterNnAttentionKernels(r);
}

}  // namespace ember

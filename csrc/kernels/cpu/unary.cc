// This file registers the element-wise unary CPU kernels.
#include "kernels/cpu/elementwise_kernels.h"
#include "kernels/cpu/functors.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

template <typename F>
struct Unary {
  template <typename T>
  using Kernel = UnaryKernel<T, F>;
};

template <typename F>
struct Predicate {
  template <typename T>
  using Kernel = UnaryKernel<T, F, bool>;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterUnaryKernels(KernelRegistry& r) {
  RegisterForTypeSet<Unary<NegativeFn>::Kernel>(r, "negative", type_sets::SignedAndComplex{});
  RegisterForTypeSet<Unary<AbsFn>::Kernel>(r, "abs", type_sets::SignedReal{});
  RegisterForTypeSet<Unary<ReluFn>::Kernel>(r, "relu", type_sets::Real{});
  RegisterForTypeSet<Unary<ExpFn>::Kernel>(r, "exp", type_sets::FloatingAndComplex{});
  RegisterForTypeSet<Unary<LogFn>::Kernel>(r, "log", type_sets::FloatingAndComplex{});
  RegisterForTypeSet<Unary<SqrtFn>::Kernel>(r, "sqrt", type_sets::FloatingAndComplex{});
  RegisterForTypeSet<Unary<TanhFn>::Kernel>(r, "tanh", type_sets::Floating{});
  RegisterForTypeSet<Unary<SigmoidFn>::Kernel>(r, "sigmoid", type_sets::Floating{});
  RegisterForTypeSet<Unary<SignFn>::Kernel>(r, "sign", type_sets::SignedReal{});
  RegisterForTypeSet<Unary<SquareFn>::Kernel>(r, "square", type_sets::RealAndComplex{});
  RegisterForTypeSet<Unary<RoundFn>::Kernel>(r, "round", type_sets::Real{});
  RegisterForTypeSet<Unary<ReciprocalFn>::Kernel>(r, "reciprocal", type_sets::FloatingAndComplex{});
  RegisterForTypeSet<Unary<RsqrtFn>::Kernel>(r, "rsqrt", type_sets::Floating{});
  RegisterForTypeSet<Unary<FloorFn>::Kernel>(r, "floor", type_sets::Floating{});
  RegisterForTypeSet<Unary<CeilFn>::Kernel>(r, "ceil", type_sets::Floating{});
  RegisterForTypes<Unary<LogicalNotFn>::Kernel, bool>(r, "logical_not");
  RegisterForTypeSet<Predicate<IsNanFn>::Kernel>(r, "is_nan", type_sets::Floating{});
  RegisterForTypeSet<Predicate<IsInfFn>::Kernel>(r, "is_inf", type_sets::Floating{});
  RegisterForTypeSet<Predicate<IsFiniteFn>::Kernel>(r, "is_finite", type_sets::Floating{});
}

}  // namespace ember::cpu

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

}  // namespace

void RegisterUnaryKernels(KernelRegistry& r) {
  RegisterForTypeSet<Unary<NegativeFn>::Kernel>(r, "negative", type_sets::Numeric{});
  RegisterForTypeSet<Unary<AbsFn>::Kernel>(r, "abs", type_sets::Numeric{});
  RegisterForTypeSet<Unary<ReluFn>::Kernel>(r, "relu", type_sets::Numeric{});
  RegisterForTypeSet<Unary<ExpFn>::Kernel>(r, "exp", type_sets::Float{});
  RegisterForTypeSet<Unary<LogFn>::Kernel>(r, "log", type_sets::Float{});
  RegisterForTypeSet<Unary<SqrtFn>::Kernel>(r, "sqrt", type_sets::Float{});
  RegisterForTypeSet<Unary<TanhFn>::Kernel>(r, "tanh", type_sets::Float{});
  RegisterForTypeSet<Unary<SigmoidFn>::Kernel>(r, "sigmoid", type_sets::Float{});
}

}  // namespace ember::cpu

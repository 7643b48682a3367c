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
  RegisterForTypes<Unary<NegativeFn>::Kernel, float, double, int32_t, int64_t>(r, "negative");
  RegisterForTypes<Unary<AbsFn>::Kernel, float, double, int32_t, int64_t>(r, "abs");
  RegisterForTypes<Unary<ReluFn>::Kernel, float, double, int32_t, int64_t>(r, "relu");
  RegisterForTypes<Unary<ExpFn>::Kernel, float, double>(r, "exp");
  RegisterForTypes<Unary<LogFn>::Kernel, float, double>(r, "log");
  RegisterForTypes<Unary<SqrtFn>::Kernel, float, double>(r, "sqrt");
  RegisterForTypes<Unary<TanhFn>::Kernel, float, double>(r, "tanh");
  RegisterForTypes<Unary<SigmoidFn>::Kernel, float, double>(r, "sigmoid");
}

}  // namespace ember::cpu

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
  RegisterForTypes<Unary<NegativeFn>::Kernel, float, double, int32_t, int64_t>(r, OpId::kNegative);
  RegisterForTypes<Unary<AbsFn>::Kernel, float, double, int32_t, int64_t>(r, OpId::kAbs);
  RegisterForTypes<Unary<ReluFn>::Kernel, float, double, int32_t, int64_t>(r, OpId::kRelu);
  RegisterForTypes<Unary<ExpFn>::Kernel, float, double>(r, OpId::kExp);
  RegisterForTypes<Unary<LogFn>::Kernel, float, double>(r, OpId::kLog);
  RegisterForTypes<Unary<SqrtFn>::Kernel, float, double>(r, OpId::kSqrt);
  RegisterForTypes<Unary<TanhFn>::Kernel, float, double>(r, OpId::kTanh);
  RegisterForTypes<Unary<SigmoidFn>::Kernel, float, double>(r, OpId::kSigmoid);
}

}  // namespace ember::cpu

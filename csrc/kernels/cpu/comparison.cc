// This file registers the broadcasting comparison CPU kernels (bool output).
#include "kernels/cpu/elementwise_kernels.h"
#include "kernels/cpu/functors.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

template <typename F>
struct Comparison {
  template <typename T>
  using Kernel = BinaryKernel<T, bool, F>;
};

}  // namespace

void RegisterComparisonKernels(KernelRegistry& r) {
  RegisterForTypes<Comparison<EqualFn>::Kernel, bool, float, double, int32_t, int64_t>(r, "equal");
  RegisterForTypes<Comparison<NotEqualFn>::Kernel, bool, float, double, int32_t, int64_t>(r, "not_equal");
  RegisterForTypes<Comparison<LessFn>::Kernel, float, double, int32_t, int64_t>(r, "less");
  RegisterForTypes<Comparison<LessEqualFn>::Kernel, float, double, int32_t, int64_t>(r, "less_equal");
  RegisterForTypes<Comparison<GreaterFn>::Kernel, float, double, int32_t, int64_t>(r, "greater");
  RegisterForTypes<Comparison<GreaterEqualFn>::Kernel, float, double, int32_t, int64_t>(r, "greater_equal");
}

}  // namespace ember::cpu

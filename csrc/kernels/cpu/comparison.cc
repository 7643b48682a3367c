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

EMBER_STARTUP_CODE void RegisterComparisonKernels(KernelRegistry& r) {
  RegisterForTypeSet<Comparison<EqualFn>::Kernel>(r, "equal", type_sets::Every{});
  RegisterForTypeSet<Comparison<NotEqualFn>::Kernel>(r, "not_equal", type_sets::Every{});
  RegisterForTypeSet<Comparison<LessFn>::Kernel>(r, "less", type_sets::Real{});
  RegisterForTypeSet<Comparison<LessEqualFn>::Kernel>(r, "less_equal", type_sets::Real{});
  RegisterForTypeSet<Comparison<GreaterFn>::Kernel>(r, "greater", type_sets::Real{});
  RegisterForTypeSet<Comparison<GreaterEqualFn>::Kernel>(r, "greater_equal", type_sets::Real{});
}

}  // namespace ember::cpu

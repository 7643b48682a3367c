// This file registers the broadcasting arithmetic CPU kernels.
#include "kernels/cpu/elementwise_kernels.h"
#include "kernels/cpu/functors.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

template <typename F>
struct Arithmetic {
  template <typename T>
  using Kernel = BinaryKernel<T, T, F>;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterArithmeticKernels(KernelRegistry& r) {
  RegisterForTypeSet<Arithmetic<AddFn>::Kernel>(r, "add", type_sets::RealAndComplex{});
  RegisterForTypeSet<Arithmetic<SubtractFn>::Kernel>(r, "subtract", type_sets::RealAndComplex{});
  RegisterForTypeSet<Arithmetic<MultiplyFn>::Kernel>(r, "multiply", type_sets::RealAndComplex{});
  RegisterForTypeSet<Arithmetic<MaximumFn>::Kernel>(r, "maximum", type_sets::Real{});
  RegisterForTypeSet<Arithmetic<MinimumFn>::Kernel>(r, "minimum", type_sets::Real{});
  // Integer operands are cast to float64 by the runtime before divide and
  // truediv.
  RegisterForTypeSet<Arithmetic<DivideFn>::Kernel>(r, "divide", type_sets::FloatingAndComplex{});
  RegisterForTypeSet<Arithmetic<DivideFn>::Kernel>(r, "truediv", type_sets::FloatingAndComplex{});
  RegisterForTypeSet<Arithmetic<ReluGradFn>::Kernel>(r, "relu_grad", type_sets::Real{});
  RegisterForTypeSet<Arithmetic<SquaredDifferenceFn>::Kernel>(r, "squared_difference",
                                                              type_sets::WideReal{});
  RegisterForTypeSet<Arithmetic<Atan2Fn>::Kernel>(r, "atan2", type_sets::Floating{});
  RegisterForTypeSet<Arithmetic<XlogyFn>::Kernel>(r, "xlogy", type_sets::FloatingAndComplex{});
}

}  // namespace ember::cpu

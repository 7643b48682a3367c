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

void RegisterArithmeticKernels(KernelRegistry& r) {
  RegisterForTypes<Arithmetic<AddFn>::Kernel, float, double, int32_t, int64_t>(r, "add");
  RegisterForTypes<Arithmetic<SubtractFn>::Kernel, float, double, int32_t, int64_t>(r, "subtract");
  RegisterForTypes<Arithmetic<MultiplyFn>::Kernel, float, double, int32_t, int64_t>(r, "multiply");
  RegisterForTypes<Arithmetic<MaximumFn>::Kernel, float, double, int32_t, int64_t>(r, "maximum");
  RegisterForTypes<Arithmetic<MinimumFn>::Kernel, float, double, int32_t, int64_t>(r, "minimum");
  // Integer operands are cast to float64 by the runtime before divide.
  RegisterForTypes<Arithmetic<DivideFn>::Kernel, float, double>(r, "divide");
}

}  // namespace ember::cpu

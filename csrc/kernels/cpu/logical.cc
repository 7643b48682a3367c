// This file registers the broadcasting logical CPU kernels (bool operands).
#include "kernels/cpu/elementwise_kernels.h"
#include "kernels/cpu/functors.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

template <typename F>
struct Logical {
  template <typename T>
  using Kernel = BinaryKernel<T, T, F>;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterLogicalKernels(KernelRegistry& r) {
  RegisterForTypes<Logical<LogicalAndFn>::Kernel, bool>(r, "logical_and");
  RegisterForTypes<Logical<LogicalOrFn>::Kernel, bool>(r, "logical_or");
  RegisterForTypes<Logical<LogicalXorFn>::Kernel, bool>(r, "logical_xor");
}

}  // namespace ember::cpu

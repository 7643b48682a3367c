// This file registers the broadcasting bitwise CPU kernels (integer operands).
#include "kernels/cpu/elementwise_kernels.h"
#include "kernels/cpu/functors.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

template <typename F>
struct Bitwise {
  template <typename T>
  using Kernel = BinaryKernel<T, T, F>;
};

}  // namespace

// The integer dtypes; a named "integer" set in op_defs/_types.yaml would
// replace the explicit list once it exists.
EMBER_STARTUP_CODE void RegisterBitwiseKernels(KernelRegistry& r) {
  RegisterForTypeSet<Bitwise<BitwiseAndFn>::Kernel>(r, "bitwise_and", type_sets::Integer{});
  RegisterForTypeSet<Bitwise<BitwiseOrFn>::Kernel>(r, "bitwise_or", type_sets::Integer{});
  RegisterForTypeSet<Bitwise<BitwiseXorFn>::Kernel>(r, "bitwise_xor", type_sets::Integer{});
}

}  // namespace ember::cpu

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
void RegisterBitwiseKernels(KernelRegistry& r) {
  RegisterForTypes<Bitwise<BitwiseAndFn>::Kernel, int32_t, int64_t>(r, "bitwise_and");
  RegisterForTypes<Bitwise<BitwiseOrFn>::Kernel, int32_t, int64_t>(r, "bitwise_or");
  RegisterForTypes<Bitwise<BitwiseXorFn>::Kernel, int32_t, int64_t>(r, "bitwise_xor");
}

}  // namespace ember::cpu

// This file registers the transcendental unary CPU kernels (trigonometric,
// hyperbolic, error functions, expm1, log1p, softplus): the slow-compiling
// half of the unary ops, apart from unary.cc so both compile in parallel.
#include "kernels/cpu/elementwise_kernels.h"
#include "kernels/cpu/functors.h"
#include "kernels/cpu/special_functors.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

template <typename F>
struct Unary {
  template <typename T>
  using Kernel = UnaryKernel<T, F>;
};

template <typename F>
EMBER_STARTUP_TEMPLATE void RegisterFloat(KernelRegistry& r, const char* op) {
  RegisterForTypeSet<Unary<F>::template Kernel>(r, op, type_sets::Floating{});
}

}  // namespace

EMBER_STARTUP_CODE void RegisterMathKernels(KernelRegistry& r) {
  RegisterFloat<Expm1Fn>(r, "expm1");
  RegisterFloat<Log1pFn>(r, "log1p");
  RegisterFloat<SinFn>(r, "sin");
  RegisterFloat<CosFn>(r, "cos");
  RegisterFloat<TanFn>(r, "tan");
  RegisterFloat<AsinFn>(r, "asin");
  RegisterFloat<AcosFn>(r, "acos");
  RegisterFloat<AtanFn>(r, "atan");
  RegisterFloat<SinhFn>(r, "sinh");
  RegisterFloat<CoshFn>(r, "cosh");
  RegisterFloat<AsinhFn>(r, "asinh");
  RegisterFloat<AcoshFn>(r, "acosh");
  RegisterFloat<AtanhFn>(r, "atanh");
  RegisterFloat<ErfFn>(r, "erf");
  RegisterFloat<ErfcFn>(r, "erfc");
  RegisterFloat<SoftplusFn>(r, "softplus");
}

}  // namespace ember::cpu

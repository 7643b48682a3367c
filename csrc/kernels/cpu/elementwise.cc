// This file defines RegisterCpuElementwiseKernels; the kernels themselves
// live in unary.cc, arithmetic.cc and comparison.cc (compiled in parallel).
#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/registration.h"

namespace ember {

void RegisterCpuElementwiseKernels(KernelRegistry& registry) {
  cpu::RegisterUnaryKernels(registry);
  cpu::RegisterArithmeticKernels(registry);
  cpu::RegisterComparisonKernels(registry);
}

}  // namespace ember

// This file defines RegisterCpuElementwiseKernels; the kernels themselves
// live in one .cc file per op group (compiled in parallel).
#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/registration.h"

namespace ember {
EMBER_STARTUP_CODE void RegisterCpuElementwiseKernels(KernelRegistry& registry) {
  cpu::RegisterUnaryKernels(registry);
  cpu::RegisterMathKernels(registry);
  cpu::RegisterArithmeticKernels(registry);
  cpu::RegisterDivisionKernels(registry);
  cpu::RegisterComparisonKernels(registry);
  cpu::RegisterLogicalKernels(registry);
  cpu::RegisterBitwiseKernels(registry);
  cpu::RegisterSelectKernels(registry);
  cpu::RegisterAddNKernels(registry);
  cpu::RegisterFusedElementwiseKernels(registry);
}

}  // namespace ember

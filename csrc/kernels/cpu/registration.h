// This file declares the per-file kernel registration functions that the
// family-level RegisterCpu*Kernels functions (devices/cpu/cpu_device.h)
// call. Internal to kernels/cpu/.
#pragma once

#include <vector>

#include "core/dtype.h"
#include "kernels/registration.h"
#include "ops/op_kernel.h"
#include "ops/type_sets.gen.h"

namespace ember::cpu {

void RegisterUnaryKernels(KernelRegistry& registry);       // unary.cc
void RegisterArithmeticKernels(KernelRegistry& registry);  // arithmetic.cc
void RegisterComparisonKernels(KernelRegistry& registry);  // comparison.cc
void RegisterTransposeKernels(KernelRegistry& registry);   // transpose.cc
void RegisterCastKernels(KernelRegistry& registry);        // cast.cc
void RegisterFillKernels(KernelRegistry& registry);        // fill.cc
void RegisterMathKernels(KernelRegistry& registry);        // elementwise_math.cc
void RegisterDivisionKernels(KernelRegistry& registry);    // elementwise_division.cc
void RegisterLogicalKernels(KernelRegistry& registry);     // logical.cc
void RegisterBitwiseKernels(KernelRegistry& registry);     // bitwise.cc
void RegisterSelectKernels(KernelRegistry& registry);      // select.cc
void RegisterAddNKernels(KernelRegistry& registry);        // add_n.cc
void RegisterFusedElementwiseKernels(KernelRegistry& registry);  // fused_elementwise.cc
void RegisterRandomSamplingKernels(KernelRegistry& registry);    // random_sampling.cc

// The CPU's forms of kernels/registration.h.
template <template <typename> class K, typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterForTypes(KernelRegistry& registry, const char* op) {
  ember::RegisterForTypes<K, Ts...>(registry, op, kCpuDeviceType);
}
template <template <typename> class K, typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterForTypeSet(KernelRegistry& registry, const char* op, type_sets::TypeList<Ts...> types) {
  ember::RegisterForTypeSet<K>(registry, op, kCpuDeviceType, types);
}

}  // namespace ember::cpu

// This file declares the per-file kernel registration functions that the
// family-level RegisterCpu*Kernels functions (devices/cpu/cpu_device.h)
// call. Internal to kernels/cpu/.
#pragma once

#include <vector>

#include "core/dtype.h"
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

// Registers K<T> for op on the CPU for each T in Ts.
template <template <typename> class K, typename... Ts>
void RegisterForTypes(KernelRegistry& registry, const char* op) {
  (registry.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value}, &MakeKernel<K<Ts>>), ...);
}

// The same for a named dtype set of op_defs/_types.yaml, so the kernel's
// dtypes follow the op definition's.
template <template <typename> class K, typename... Ts>
void RegisterForTypeSet(KernelRegistry& registry, const char* op, type_sets::TypeList<Ts...>) {
  RegisterForTypes<K, Ts...>(registry, op);
}

}  // namespace ember::cpu

// This file defines the helpers that register one kernel template for a
// list of dtypes on any device type: what each device's Register*Kernels
// functions are written with.
#pragma once

#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "ops/op_kernel.h"
#include "ops/type_sets.gen.h"

namespace ember {

// Registers K<T> for `op` on `device` for each T in Ts.
template <template <typename> class K, typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterForTypes(KernelRegistry& registry, const char* op, DeviceTypeId device) {
  (registry.Register(op, device, {DTypeOf<Ts>::value}, &MakeKernel<K<Ts>>), ...);
}

// The same for a named dtype set of op_defs/_types.yaml, so the kernel's
// dtypes follow the op definition's.
template <template <typename> class K, typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterForTypeSet(KernelRegistry& registry, const char* op, DeviceTypeId device, type_sets::TypeList<Ts...>) {
  RegisterForTypes<K, Ts...>(registry, op, device);
}

}  // namespace ember

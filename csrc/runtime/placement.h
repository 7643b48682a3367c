// This file declares PlaceOp: which device runs an op.
#pragma once

#include <cstdint>

#include "core/device.h"
#include "ops/op_def.h"
#include "runtime/tensor_handle.h"

namespace ember {

// Note [Placement rules], first match wins:
//  0. The device of a resource the op reads or writes (a Variable): the
//     data cannot move, so a missing kernel there is an error.
//  1. The innermost `ember.device(...)` scope, if that device has a kernel
//     for (op, dtypes). Without one, fall through (soft placement; logged).
//  2. Of the inputs' devices that have a kernel, the one with the highest
//     placement priority, the first input's on a tie: data stays where it
//     lives, and `1.0 + x` with x on an accelerator runs there (the
//     scalar is copied, Note [Device copies]).
//  3. The device with the highest placement priority that has a kernel
//     (an accelerator before the CPU).
// NotFound if no device has a kernel. With EMBER_LOG_PLACEMENT=1 (or
// ember.config.set_log_device_placement(True)) each decision is printed
// to stderr with the rule that made it.
Status PlaceOp(const OpDef& op, uint64_t type_key, TensorHandle* const* inputs, int num_inputs,
               Device* resource_device, Device** out);

}  // namespace ember

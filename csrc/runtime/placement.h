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
//  2. The device with the highest placement priority that has a kernel,
//     as TensorFlow places ops: with a GPU present an op goes there even
//     when its inputs are on the CPU (they are copied, Note [Device
//     copies]). Among devices of that priority an input's device wins,
//     the first input's on a tie, so data stays where it lives between
//     equals (gpu:1, logical CPUs).
// Then, on a device without host memory, the host CPU instead (Note
// [Host-memory outputs]) for
//  3. an op with host-memory outputs (shape, size, rank), and
//  4. shape arithmetic: an op whose inputs are all small integer values in
//     host memory, one of them a shape value (an output of rule 3 or 4).
//     `ember.shape(x)[0] * 2` under a GPU scope stays on the host, where
//     the attribute it usually becomes is read, instead of going to the
//     device and back (TensorFlow's "int32 problem").
// `*shape_value_outputs` says whether 3 or 4 applied: the outputs are
// shape values.
// NotFound if no device has a kernel. With EMBER_LOG_PLACEMENT=1 (or
// ember.config.set_log_device_placement(True)) each decision is printed
// to stderr with the rule that made it.
Status PlaceOp(const OpDef& op, uint64_t type_key, TensorHandle* const* inputs, int num_inputs,
               Device* resource_device, Device** out, bool* shape_value_outputs);

}  // namespace ember

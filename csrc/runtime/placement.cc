// This file implements PlaceOp.
#include "runtime/placement.h"

#include <algorithm>
#include <cstdio>

#include "ops/op_kernel.h"
#include "runtime/context.h"

namespace ember {
namespace {

bool HasKernel(const OpDef& op, uint64_t type_key, Device* device) {
  return KernelRegistry::Global().Find(op.id, device->type(), type_key) != nullptr;
}

void Log(const OpDef& op, Device* device, const char* reason) {
  if (Context::Global().log_placement()) {
    std::fprintf(stderr, "ember placement: %s -> %s (%s)\n", op.name, device->name().c_str(), reason);
  }
}

Status PlaceByRules(const OpDef& op, uint64_t type_key, TensorHandle* const* inputs, int num_inputs,
                    Device* resource_device, Device** out) {
  if (resource_device != nullptr) {
    if (!HasKernel(op, type_key, resource_device)) {
      return NotFound("no kernel on " + resource_device->name() + ", where its variable input lives");
    }
    *out = resource_device;
    Log(op, resource_device, "variable device");
    return Status::OK();
  }
  if (Device* scoped = CurrentScopeDevice()) {
    if (HasKernel(op, type_key, scoped)) {
      *out = scoped;
      Log(op, scoped, "device scope");
      return Status::OK();
    }
    Log(op, scoped, "device scope has no kernel; trying other devices");
  }
  // Rule 2: the device of highest priority with a kernel; among devices of
  // that priority, an input's (the first input's), so data stays where it
  // lives between equals. The common cases (every input on the CPU of a
  // CPU-only process, or on the GPU) take the first loop.
  int top = 0;
  for (Device* device : DeviceManager::Global().devices()) top = std::max(top, device->placement_priority());
  for (int i = 0; i < num_inputs; ++i) {
    Device* device = inputs[i]->device();
    if (device->placement_priority() == top && HasKernel(op, type_key, device)) {
      *out = device;
      Log(op, device, "input device");
      return Status::OK();
    }
  }
  Device* best = nullptr;
  for (Device* device : DeviceManager::Global().devices()) {
    if (HasKernel(op, type_key, device) &&
        (best == nullptr || device->placement_priority() > best->placement_priority())) {
      best = device;
    }
  }
  if (best == nullptr) return NotFound("no device has a kernel for these dtypes");
  for (int i = 0; i < num_inputs; ++i) {
    Device* device = inputs[i]->device();
    if (device != best && device->placement_priority() == best->placement_priority() &&
        HasKernel(op, type_key, device)) {
      *out = device;
      Log(op, device, "input device");
      return Status::OK();
    }
  }
  *out = best;
  Log(op, best, "best device with a kernel");
  return Status::OK();
}

}  // namespace

// Rule 4's inputs: at most this many elements each, integers, in host
// memory, at least one of them a shape value.
constexpr int64_t kShapeValueElements = 64;

bool IsShapeArithmetic(TensorHandle* const* inputs, int num_inputs) {
  bool any_shape_value = false;
  for (int i = 0; i < num_inputs; ++i) {
    const TensorHandle& in = *inputs[i];
    if (!in.device()->host_memory() || (in.dtype() != DType::kInt32 && in.dtype() != DType::kInt64) ||
        in.shape().NumElements() > kShapeValueElements) {
      return false;
    }
    any_shape_value |= in.is_shape_value();
  }
  return any_shape_value;
}

Status PlaceOp(const OpDef& op, uint64_t type_key, TensorHandle* const* inputs, int num_inputs,
               Device* resource_device, Device** out, bool* shape_value_outputs) {
  *shape_value_outputs = false;
  EMBER_RETURN_IF_ERROR(PlaceByRules(op, type_key, inputs, num_inputs, resource_device, out));
  if ((*out)->host_memory() || resource_device != nullptr) return Status::OK();
  // Note [Host-memory outputs]: rules 3 and 4 move the op to the host.
  const char* reason = op.host_memory_outputs != 0                  ? "host-memory outputs"
                       : IsShapeArithmetic(inputs, num_inputs) ? "shape arithmetic"
                                                               : nullptr;
  if (reason == nullptr) return Status::OK();
  Device* host = DeviceManager::Global().cpu();
  if (!HasKernel(op, type_key, host)) {
    if (op.host_memory_outputs == 0) return Status::OK();  // shape arithmetic may stay on the device
    return NotFound("no kernel on " + host->name() + " for its host-memory outputs");
  }
  *out = host;
  *shape_value_outputs = true;
  Log(op, host, reason);
  return Status::OK();
}

}  // namespace ember

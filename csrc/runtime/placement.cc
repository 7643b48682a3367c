// This file implements PlaceOp.
#include "runtime/placement.h"

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

}  // namespace

Status PlaceOp(const OpDef& op, uint64_t type_key, TensorHandle* const* inputs, int num_inputs,
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
  Device* from_input = nullptr;
  for (int i = 0; i < num_inputs; ++i) {
    Device* device = inputs[i]->device();
    if (device != from_input && HasKernel(op, type_key, device) &&
        (from_input == nullptr || device->placement_priority() > from_input->placement_priority())) {
      from_input = device;
    }
  }
  if (from_input != nullptr) {
    *out = from_input;
    Log(op, from_input, "input device");
    return Status::OK();
  }
  Device* best = nullptr;
  for (Device* device : DeviceManager::Global().devices()) {
    if (HasKernel(op, type_key, device) &&
        (best == nullptr || device->placement_priority() > best->placement_priority())) {
      best = device;
    }
  }
  if (best == nullptr) return NotFound("no device has a kernel for these dtypes");
  *out = best;
  Log(op, best, "best device with a kernel");
  return Status::OK();
}

}  // namespace ember

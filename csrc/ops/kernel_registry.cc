// This file implements KernelRegistry.
#include "ops/op_kernel.h"

#include <algorithm>

namespace ember {

DeviceErrorWord* KernelContext::NewErrorWord(DescribeDeviceError describe) {
  if (deferred_sink_ == nullptr || device_ == nullptr) return nullptr;
  DeviceErrorWords* words = device_->error_words();
  DeviceErrorWord* word = words != nullptr ? words->Acquire() : nullptr;
  if (word == nullptr) return nullptr;
  RefPtr<DeferredError> mine = DeferredError::ForWord(words, word, op_.name, std::move(describe));
  *deferred_sink_ = *deferred_sink_ ? DeferredError::Joint({*deferred_sink_, mine}) : std::move(mine);
  return word;
}

uint64_t PackTypeKey(const DType* type_bindings, int count) {
  uint64_t key = 0;
  for (int i = 0; i < count; ++i) key |= (static_cast<uint64_t>(type_bindings[i]) + 1) << (8 * i);
  return key;
}

KernelRegistry& KernelRegistry::Global() {
  static KernelRegistry* registry = new KernelRegistry();
  return *registry;
}

void KernelRegistry::Register(OpId op, DeviceTypeId device, std::vector<DType> dtypes,
                              KernelFactory factory) {
  const Key key{op, device, PackTypeKey(dtypes.data(), static_cast<int>(dtypes.size()))};
  if (factories_.insert_or_assign(key, factory).second) order_.push_back(key);
}

void KernelRegistry::Register(const char* op_name, DeviceTypeId device, std::vector<DType> dtypes,
                              KernelFactory factory) {
  const OpDef* op = nullptr;
  if (!FindOpDef(op_name, &op).ok()) {
    unknown_ops_.push_back(op_name);
    return;
  }
  Register(op->id, device, std::move(dtypes), factory);
}

EMBER_STARTUP_CODE void KernelRegistry::Register(OpId op, DeviceTypeId device, std::initializer_list<DType> dtypes,
                                                 KernelFactory factory) {
  Register(op, device, std::vector<DType>(dtypes), factory);
}

EMBER_STARTUP_CODE void KernelRegistry::Register(const char* op_name, DeviceTypeId device,
                                                 std::initializer_list<DType> dtypes, KernelFactory factory) {
  Register(op_name, device, std::vector<DType>(dtypes), factory);
}

Status KernelRegistry::CheckRegistrations() const {
  if (unknown_ops_.empty()) return Status::OK();
  std::string names;
  for (const std::string& n : unknown_ops_) names += (names.empty() ? "" : ", ") + n;
  return Internal("kernels registered for unknown ops: " + names);
}

KernelFactory KernelRegistry::Find(OpId op, DeviceTypeId device, uint64_t type_key) const {
  auto it = factories_.find(Key{op, device, type_key});
  return it == factories_.end() ? nullptr : it->second;
}

bool KernelRegistry::HasAnyKernel(OpId op, DeviceTypeId device) const {
  for (const Key& k : order_) {
    if (k.op == op && k.device == device) return true;
  }
  return false;
}

std::vector<KernelRegistry::Entry> KernelRegistry::List() const {
  std::vector<Entry> out;
  out.reserve(order_.size());
  for (const Key& k : order_) {
    Entry e{k.op, k.device, {}};
    // PackTypeKey's inverse: one byte per dtype, each stored plus one, 0 past the last.
    for (uint64_t rest = k.type_key; rest != 0; rest >>= 8) e.dtypes.push_back(static_cast<DType>((rest & 0xff) - 1));
    out.push_back(std::move(e));
  }
  return out;
}

void KernelRegistry::CopyKernels(DeviceTypeId from, DeviceTypeId to, const std::vector<OpId>& except) {
  const std::vector<Key> keys = order_;  // Register appends to order_
  for (const Key& k : keys) {
    if (k.device != from || std::find(except.begin(), except.end(), k.op) != except.end()) continue;
    const Key copy{k.op, to, k.type_key};
    if (factories_.insert_or_assign(copy, factories_.at(k)).second) order_.push_back(copy);
  }
}

}  // namespace ember

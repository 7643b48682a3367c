// This file declares KernelCache: instantiated kernels keyed by op, device,
// bound dtypes and attributes.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/attr_value.h"
#include "core/device.h"
#include "ops/op_kernel.h"

namespace ember {

// Note [Kernel cache key]: (op id, device, packed type key, attrs). The
// attrs are hashed as typed values (no strings for ops without string
// attrs), and compared in full on a hash match, so a collision can never
// return the wrong kernel. Bounded by LRU eviction; thread-safe.
class KernelCache {
 public:
  explicit KernelCache(size_t capacity) : capacity_(capacity) {}

  // Returns the cached kernel or builds one with the registered factory.
  // Returns null (with *status set) when no kernel is registered.
  std::shared_ptr<const OpKernel> Lookup(const OpDef& op, Device* device, uint64_t type_key,
                                         const DType* type_bindings, const AttrList& attrs,
                                         Status* status);

  struct Stats {
    uint64_t hits, misses, evictions, size, capacity;
  };
  Stats GetStats() const;
  void Clear();
  void set_capacity(size_t capacity);

 private:
  struct Key {
    int op;
    Device* device;
    uint64_t type_key;
    size_t attr_hash;
    bool operator==(const Key& o) const {
      return op == o.op && device == o.device && type_key == o.type_key && attr_hash == o.attr_hash;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct Entry {
    AttrList attrs;
    std::shared_ptr<const OpKernel> kernel;
    std::list<Key>::iterator lru_pos;
  };

  mutable std::mutex mu_;
  size_t capacity_;
  // Several entries may share a Key on an attr-hash collision.
  std::unordered_multimap<Key, Entry, KeyHash> entries_;
  std::list<Key> lru_;  // front = most recent
  std::atomic<uint64_t> hits_{0}, misses_{0}, evictions_{0};
};

}  // namespace ember

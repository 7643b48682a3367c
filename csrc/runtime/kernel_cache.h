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
//
// Note [Kernel cache front]: every op looks its kernel up, and the shared
// cache's mutex, hash lookup and LRU update cost about as much as the rest
// of the lookup stage. Each thread keeps a small direct-mapped front of
// the kernels it used last, checked first without a lock. A front entry
// is valid only for the cache and the generation it came from: Clear,
// set_capacity and every eviction start a new generation, so a front never
// returns a kernel the cache has dropped. Front hits count as hits but do
// not refresh the LRU order; an entry used only through fronts may
// therefore be evicted first; to keep eviction least-recently-used, the
// fronts are used only while the cache is at most half full, and past that
// every hit takes the locked path and refreshes its entry.
class KernelCache {
 public:
  explicit KernelCache(size_t capacity);

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
  // Note [Dispatch cache]: its entries hold kernels from this cache and are
  // valid only while the generation they were stored in lasts; its hits
  // count as this cache's hits (Note [Dispatch hit counts]).
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  bool fronts_enabled() const { return front_enabled_.load(std::memory_order_acquire); }
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

  struct FrontEntry;
  std::shared_ptr<const OpKernel> FrontLookup(const Key& key, const AttrList& attrs) const;
  void FrontStore(const Key& key, const AttrList& attrs, const std::shared_ptr<const OpKernel>& kernel,
                  uint64_t generation) const;

  const uint64_t id_;  // tells the fronts' entries of different caches apart
  // Bumped under mu_ whenever an entry leaves the cache (Note [Kernel cache front]).
  std::atomic<uint64_t> generation_{0};
  // At most half full (set under mu_): the fronts may answer.
  std::atomic<bool> front_enabled_{true};
  void UpdateFrontEnabled() { front_enabled_.store(entries_.size() * 2 <= capacity_, std::memory_order_release); }
  mutable std::mutex mu_;
  size_t capacity_;
  // Several entries may share a Key on an attr-hash collision.
  std::unordered_multimap<Key, Entry, KeyHash> entries_;
  std::list<Key> lru_;  // front = most recent
  std::atomic<uint64_t> hits_{0}, misses_{0}, evictions_{0};
};

}  // namespace ember

// This file implements KernelCache.
#include "runtime/kernel_cache.h"

#include "runtime/profiler.h"

namespace ember {

size_t KernelCache::KeyHash::operator()(const Key& k) const {
  size_t h = static_cast<size_t>(k.op) * 0x9e3779b97f4a7c15ULL;
  h ^= reinterpret_cast<uintptr_t>(k.device) + (h << 6) + (h >> 2);
  h ^= k.type_key + (h << 6) + (h >> 2);
  h ^= k.attr_hash + (h << 6) + (h >> 2);
  return h;
}

std::shared_ptr<const OpKernel> KernelCache::Lookup(const OpDef& op, Device* device,
                                                    uint64_t type_key, const DType* type_bindings,
                                                    const AttrList& attrs, Status* status) {
  Key key{static_cast<int>(op.id), device, type_key, attrs.empty() ? 0 : HashAttrs(attrs)};
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto range = entries_.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second.attrs == attrs) {
        lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
        hits_.fetch_add(1, std::memory_order_relaxed);
        if (profiler::Enabled()) profiler::LastCacheHit() = true;
        return it->second.kernel;
      }
    }
  }
  misses_.fetch_add(1, std::memory_order_relaxed);
  if (profiler::Enabled()) profiler::LastCacheHit() = false;
  KernelFactory factory = KernelRegistry::Global().Find(op.id, device->type(), type_key);
  if (factory == nullptr) {
    *status = NotFound("no kernel registered for device " + device->name());
    return nullptr;
  }
  // Build outside the lock: a factory may be slow (e.g. plan selection).
  std::shared_ptr<const OpKernel> kernel = factory(KernelInit{op, device, attrs, type_bindings});
  std::lock_guard<std::mutex> lock(mu_);
  if (capacity_ == 0) return kernel;
  // Another thread may have built the same kernel meanwhile: keep one.
  auto range = entries_.equal_range(key);
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second.attrs == attrs) return it->second.kernel;
  }
  while (entries_.size() >= capacity_ && !lru_.empty()) {
    Key victim = lru_.back();
    auto range = entries_.equal_range(victim);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second.lru_pos == std::prev(lru_.end())) {
        entries_.erase(it);
        break;
      }
    }
    lru_.pop_back();
    evictions_.fetch_add(1, std::memory_order_relaxed);
  }
  lru_.push_front(key);
  entries_.emplace(key, Entry{attrs, kernel, lru_.begin()});
  return kernel;
}

KernelCache::Stats KernelCache::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Stats{hits_.load(), misses_.load(), evictions_.load(), entries_.size(), capacity_};
}

void KernelCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  lru_.clear();
  hits_ = misses_ = evictions_ = 0;
}

void KernelCache::set_capacity(size_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  capacity_ = capacity;
}

}  // namespace ember

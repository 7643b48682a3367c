// This file implements KernelCache.
#include "runtime/kernel_cache.h"

#include <array>

#include "runtime/dispatch_cache.h"
#include "runtime/profiler.h"

namespace ember {

size_t KernelCache::KeyHash::operator()(const Key& k) const {
  size_t h = static_cast<size_t>(k.op) * 0x9e3779b97f4a7c15ULL;
  h ^= reinterpret_cast<uintptr_t>(k.device) + (h << 6) + (h >> 2);
  h ^= k.type_key + (h << 6) + (h >> 2);
  h ^= k.attr_hash + (h << 6) + (h >> 2);
  return h;
}

namespace {

std::atomic<uint64_t> g_next_cache_id{1};
constexpr size_t kFrontSize = 16;  // a power of two

}  // namespace

KernelCache::KernelCache(size_t capacity) : id_(g_next_cache_id.fetch_add(1)), capacity_(capacity) {
  UpdateFrontEnabled();
}

struct KernelCache::FrontEntry {
  uint64_t cache_id = 0;  // 0: empty
  uint64_t generation = 0;
  Key key{};
  AttrList attrs;
  std::shared_ptr<const OpKernel> kernel;
};

namespace {

// One front per thread, shared by every cache (entries name theirs).
template <typename Entry>
std::array<Entry, kFrontSize>& ThreadFront() {
  thread_local std::array<Entry, kFrontSize> front;
  return front;
}

}  // namespace

std::shared_ptr<const OpKernel> KernelCache::FrontLookup(const Key& key, const AttrList& attrs) const {
  if (!front_enabled_.load(std::memory_order_acquire)) return nullptr;
  const FrontEntry& e = ThreadFront<FrontEntry>()[KeyHash()(key) & (kFrontSize - 1)];
  if (e.cache_id != id_ || !(e.key == key) || e.generation != generation_.load(std::memory_order_acquire) ||
      !(e.attrs == attrs)) {
    return nullptr;
  }
  return e.kernel;
}

void KernelCache::FrontStore(const Key& key, const AttrList& attrs, const std::shared_ptr<const OpKernel>& kernel,
                             uint64_t generation) const {
  if (!front_enabled_.load(std::memory_order_relaxed)) return;  // called under mu_
  FrontEntry& e = ThreadFront<FrontEntry>()[KeyHash()(key) & (kFrontSize - 1)];
  e.cache_id = id_;
  e.generation = generation;
  e.key = key;
  e.attrs = attrs;
  e.kernel = kernel;
}

std::shared_ptr<const OpKernel> KernelCache::Lookup(const OpDef& op, Device* device,
                                                    uint64_t type_key, const DType* type_bindings,
                                                    const AttrList& attrs, Status* status) {
  Key key{static_cast<int>(op.id), device, type_key, attrs.empty() ? 0 : HashAttrs(attrs)};
  if (std::shared_ptr<const OpKernel> kernel = FrontLookup(key, attrs)) {
    hits_.fetch_add(1, std::memory_order_relaxed);
    if (profiler::Enabled()) profiler::LastCacheHit() = true;
    return kernel;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto range = entries_.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second.attrs == attrs) {
        lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
        hits_.fetch_add(1, std::memory_order_relaxed);
        if (profiler::Enabled()) profiler::LastCacheHit() = true;
        // The generation read under mu_: an eviction after the unlock
        // bumps it, and the front entry is then stale at once.
        FrontStore(key, attrs, it->second.kernel, generation_.load(std::memory_order_relaxed));
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
    generation_.fetch_add(1, std::memory_order_release);
  }
  lru_.push_front(key);
  entries_.emplace(key, Entry{attrs, kernel, lru_.begin()});
  UpdateFrontEnabled();
  FrontStore(key, attrs, kernel, generation_.load(std::memory_order_relaxed));
  return kernel;
}

KernelCache::Stats KernelCache::GetStats() const {
  const uint64_t dispatch_hits = DispatchHits();  // Note [Dispatch hit counts]
  std::lock_guard<std::mutex> lock(mu_);
  return Stats{hits_.load() + dispatch_hits, misses_.load(), evictions_.load(), entries_.size(), capacity_};
}

void KernelCache::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  lru_.clear();
  generation_.fetch_add(1, std::memory_order_release);
  UpdateFrontEnabled();
  hits_ = misses_ = evictions_ = 0;
  ResetDispatchHits();
}

void KernelCache::set_capacity(size_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  capacity_ = capacity;
  generation_.fetch_add(1, std::memory_order_release);
  UpdateFrontEnabled();
}

}  // namespace ember

// This file implements the host allocator: aligned host memory, with large
// blocks cached for reuse (Note [Host allocator]).
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/allocator.h"

namespace ember {
namespace {

// Note [Host allocator]: a fresh block from the system costs a page fault
// per 4 KiB page on first touch, which for a large output (a 64 MiB tensor:
// 16,384 faults) costs as much as the kernel that fills it; glibc returns
// blocks above its mmap threshold to the system on free, so every large op
// paid it again. Blocks of at least kMinCachedBytes are therefore kept when
// freed, by size class, and handed out again for the same class: most
// recently freed first, as its pages are still mapped and likely in cache.
// Sizes round up to a quarter of their power of two (at most 25% more
// address space; untouched tail pages are never faulted in). Smaller
// blocks go to malloc, whose thread caches are faster than a lock here.
// Small blocks (at most kMaxSmallBytes, the outputs of tiny ops) are kept
// too, in a per-thread list per 64-byte class (SmallBlockCache): an
// aligned_alloc of a few bytes costs glibc a split of a larger chunk, a
// few times a plain malloc, and a graph of tiny nodes makes one per node.
// Each thread keeps at most kSmallBlocksPerClass per class (a few KiB),
// freed when the thread exits; a block freed on another thread than the
// one that allocated it simply joins that thread's list. empty_cache()
// leaves these lists alone.
// Large blocks (at least kHugePageMinBytes) are marked for transparent huge
// pages (madvise), as NumPy marks its large arrays: where the system's THP
// setting is "madvise", the default on many distributions, a 64 MiB buffer
// is otherwise 16,384 TLB entries, and an all-reduce or copy through it ran
// 10-15% below the same transfer into a NumPy array.
// Release: the cache holds at most kMaxCachedBytes (a free beyond it goes
// back to the system), empty_cache() returns everything, and a failed
// allocation empties the cache and tries again. Under a memory limit
// (SetLimit) the cache shrinks first: in use plus cached stays within it.
constexpr size_t kMaxSmallBytes = 256;
constexpr int kSmallClasses = kMaxSmallBytes / kHostAlignment;
constexpr int kSmallBlocksPerClass = 16;

// Plain data, so it stays usable while a thread (or the process) is
// exiting: the lists are freed by SmallBlockReleaser's destructor, which
// marks them closed for any Deallocate that comes later.
struct SmallBlockCache {
  struct List {
    void* blocks[kSmallBlocksPerClass];
    int count;
  };
  List lists[kSmallClasses];
  bool closed;

  // `size` is a multiple of kHostAlignment, at most kMaxSmallBytes.
  void* Take(size_t size) {
    List& list = lists[size / kHostAlignment - 1];
    return !closed && list.count > 0 ? list.blocks[--list.count] : nullptr;
  }
  bool Keep(void* ptr, size_t size);
};

thread_local SmallBlockCache t_small_blocks{};

struct SmallBlockReleaser {
  ~SmallBlockReleaser() {
    t_small_blocks.closed = true;
    for (auto& list : t_small_blocks.lists) {
      while (list.count > 0) std::free(list.blocks[--list.count]);
    }
  }
};

bool SmallBlockCache::Keep(void* ptr, size_t size) {
  thread_local SmallBlockReleaser releaser;  // constructed on a thread's first Keep
  (void)releaser;
  List& list = lists[size / kHostAlignment - 1];
  if (closed || list.count == kSmallBlocksPerClass) return false;
  list.blocks[list.count++] = ptr;
  return true;
}

SmallBlockCache& ThreadSmallBlocks() { return t_small_blocks; }

constexpr size_t kHugePageMinBytes = size_t{4} << 20;

// Advises huge pages for the whole pages inside a fresh large block; the
// advice is only a hint, so a refusal (an old kernel, THP off) is ignored.
void AdviseHugePages(void* ptr, size_t size) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kPage = 4096;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(ptr) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(ptr) + size) & ~(kPage - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)ptr;
  (void)size;
#endif
}

class HostAllocatorImpl final : public Allocator {
 public:
  static constexpr size_t kMinCachedBytes = size_t{1} << 20;
  static constexpr size_t kMaxCachedBytes = size_t{2} << 30;

  void* Allocate(size_t bytes, Stream*) override {
    const size_t size = RoundedSize(bytes);
    if (OverLimit(bytes)) return nullptr;
    if (size <= kMaxSmallBytes) {
      void* ptr = ThreadSmallBlocks().Take(size);
      if (ptr == nullptr) ptr = std::aligned_alloc(kHostAlignment, size);
      if (ptr != nullptr) CountAllocated(bytes);
      return ptr;
    }
    // Under a limit the allocator holds at most that much, cache included.
    if (limit() != 0 && InUseBytes() + CachedBytes() + size > limit()) EmptyCache();
    void* ptr = size >= kMinCachedBytes ? TakeCached(size) : nullptr;
    const bool fresh = ptr == nullptr;  // a cached block was advised when it was fresh
    if (ptr == nullptr) ptr = std::aligned_alloc(kHostAlignment, size);
    if (ptr == nullptr && size >= kMinCachedBytes) {
      EmptyCache();
      ptr = std::aligned_alloc(kHostAlignment, size);
    }
    if (ptr != nullptr && fresh && size >= kHugePageMinBytes) AdviseHugePages(ptr, size);
    if (ptr != nullptr) CountAllocated(bytes);
    return ptr;
  }

  void Deallocate(void* ptr, size_t bytes) override {
    CountFreed(bytes);
    const size_t size = RoundedSize(bytes);
    if (size <= kMaxSmallBytes && ThreadSmallBlocks().Keep(ptr, size)) return;
    if (size >= kMinCachedBytes && Keep(ptr, size)) return;
    std::free(ptr);
  }

  void EmptyCache() override {
    std::vector<void*> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [size, list] : free_) blocks.insert(blocks.end(), list.begin(), list.end());
      free_.clear();
      cached_bytes_ = 0;
    }
    for (void* p : blocks) std::free(p);
  }

  const char* Name() const override { return "host"; }

 protected:
  size_t ReservedBytes() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return InUseBytes() + cached_bytes_;
  }

 private:
  // aligned_alloc needs a multiple of the alignment; large sizes also
  // round to their size class.
  static size_t RoundedSize(size_t bytes) {
    size_t size = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
    if (size == 0) return kHostAlignment;
    if (size < kMinCachedBytes) return size;
    size_t power = kMinCachedBytes;
    // Halving size, not doubling power: power * 2 wraps to 0 for sizes past
    // 2^63 (the largest a shape allows), which looped forever.
    while (power <= size / 2) power *= 2;
    const size_t step = power / 4;
    return (size + step - 1) / step * step;
  }

  size_t CachedBytes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_bytes_;
  }

  void* TakeCached(size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(size);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* ptr = it->second.back();
    it->second.pop_back();
    cached_bytes_ -= size;
    return ptr;
  }

  // Caches a freed block; false if the cache is full.
  bool Keep(void* ptr, size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_bytes_ + size > kMaxCachedBytes) return false;
    if (limit() != 0 && InUseBytes() + cached_bytes_ + size > limit()) return false;
    free_[size].push_back(ptr);
    cached_bytes_ += size;
    return true;
  }

  mutable std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;  // size class -> free blocks, last freed at the back
  size_t cached_bytes_ = 0;
};

}  // namespace

Allocator* HostAllocator() {
  static HostAllocatorImpl* allocator = new HostAllocatorImpl();  // leaked: buffers may outlive static destruction
  return allocator;
}

}  // namespace ember

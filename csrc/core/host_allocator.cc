// This file implements the host allocator: aligned host memory, with large
// blocks cached for reuse (Note [Host allocator]).
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/allocator.h"

namespace ember {
namespace {

// Note [Host allocator]
// Three kinds of block, by size:
//  - Small (at most kMaxSmallBytes, the outputs of tiny ops): a per-thread
//    list per 64-byte class (SmallBlockCache). An aligned_alloc of a few
//    bytes costs glibc a split of a larger chunk, a few times a plain
//    malloc, and a graph of tiny nodes makes one per node. Each thread
//    keeps at most kSmallBlocksPerClass per class (a few KiB), freed when
//    the thread exits; a block freed on another thread joins that thread's
//    list. empty_cache() leaves these lists alone.
//  - Medium (below kMinCachedBytes, 64 KiB): malloc, whose thread caches
//    are faster than a lock here.
//  - Large: mapped from the system (mmap) and cached when freed. A fresh
//    block costs a page fault per 4 KiB page on first touch, which for a
//    64 MiB tensor (16,384 faults) costs as much as the kernel that fills
//    it, and every large op paid it again when blocks went back on free.
//    Sizes round up to a quarter of their power of two (at most 25% more
//    address space; untouched tail pages are never faulted in). A request
//    takes the smallest cached block of its class or of a larger class up
//    to twice its size, most recently freed first (its pages are mapped
//    and likely in cache); lent_larger_ remembers a larger block so that
//    its free returns the whole block.
// Why mapped and not malloc'd: once NumPy or a kernel frees a big array,
// glibc raises its mmap threshold and serves blocks up to 32 MiB from the
// calling thread's arena, which rarely shrinks; each executor and pool
// thread kept its own high-water mark of dead blocks, and a block the cache
// released stayed resident. Why lent across classes: taking exact classes
// only, a ResNet-50 inference cached 20.75 MiB of blocks above its weights
// (three of 3.5 MiB for the first stage's activations, three of 1.75 MiB
// for the second's, ...) against a peak of 9.2 MiB in use. Why from 64 KiB:
// the threads' arenas held 15 MiB of that inference's 56x56x64 activations
// and im2col blocks (0.4-0.9 MiB). Its peak resident increase went from
// 31.5 to 24.5 MiB with both. A best-fit allocator that splits and merges
// blocks (CachingAllocator over the same pages) measured 25.1 MiB: every
// page it ever touched stays resident too.
// At most kMaxMappedBlocks mapped blocks exist at once (in use and cached):
// once its neighbours are unmapped each is a mapping of its own, and Linux
// caps a process's mappings (vm.max_map_count, 65,530; 10,000 live 64 KiB
// tensors with every other one freed made 10,206). Past the cap, and when
// the system refuses a mapping, large blocks come from malloc (unmapped_)
// and are freed, not cached, when released.
// Large blocks of kHugePageMinBytes and more are marked for transparent
// huge pages (madvise), as NumPy marks its large arrays: where the system's
// THP setting is "madvise", the default on many distributions, a 64 MiB
// buffer is otherwise 16,384 TLB entries, and an all-reduce or copy through
// it ran 10-15% below the same transfer into a NumPy array.
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

// Advises huge pages for the whole 2 MiB pages inside the first `bytes` of
// a fresh large block, none past them: the block is rounded up to its size
// class, and a huge page over the data's end would make the unused tail
// resident (up to 2 MiB a block; 4.4 MiB over ResNet-50's weights). The
// advice is only a hint, so a refusal (an old kernel, THP off) is ignored.
void AdviseHugePages(void* ptr, size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(ptr) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(ptr) + bytes) & ~(kHugePage - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)ptr;
  (void)bytes;
#endif
}

class HostAllocatorImpl final : public Allocator {
 public:
  static constexpr size_t kMinCachedBytes = size_t{64} << 10;
  static constexpr size_t kMaxCachedBytes = size_t{2} << 30;
  // Each mapped block is a mapping of its own once its neighbours are
  // unmapped, and Linux allows a process 65,530 (vm.max_map_count).
  static constexpr size_t kMaxMappedBlocks = 16384;

  // The tiny blocks' path stays small; everything else is out of line, so
  // that it costs a 1-element op nothing (measured: 10 ns when inlined).
  void* Allocate(size_t bytes, Stream*) override {
    const size_t size = RoundedSize(bytes);
    if (OverLimit(bytes)) return nullptr;
    if (size <= kMaxSmallBytes) return TakeSmall(size, bytes);
    return AllocateLarger(bytes, size);
  }

  void Deallocate(void* ptr, size_t bytes) override {
    CountFreed(bytes);
    const size_t size = RoundedSize(bytes);
    if (size <= kMaxSmallBytes && ThreadSmallBlocks().Keep(ptr, size)) return;
    DeallocateLarger(ptr, size);
  }

  // Note [Inline buffers] (core/allocator.cc): a small block whose front
  // holds the buffer record; only `bytes` count as in use.
  void* AllocateWithHeader(size_t header, size_t bytes) override {
    if (bytes > kMaxSmallBytes) return nullptr;
    const size_t size = RoundedSize(header + bytes);
    if (size > kMaxSmallBytes || OverLimit(bytes)) return nullptr;
    return TakeSmall(size, bytes);
  }

  void DeallocateWithHeader(void* block, size_t header, size_t bytes) override {
    CountFreed(bytes);
    const size_t size = RoundedSize(header + bytes);
    if (!ThreadSmallBlocks().Keep(block, size)) std::free(block);
  }

  void EmptyCache() override {
    std::vector<std::pair<void*, size_t>> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [size, list] : free_) {
        for (void* p : list) blocks.emplace_back(p, size);
      }
      free_.clear();
      cached_bytes_ = 0;
    }
    for (const auto& [p, size] : blocks) UnmapCounted(p, size);
  }

  const char* Name() const override { return "host"; }

  void SetMappedBlockLimit(size_t blocks) {
    std::lock_guard<std::mutex> lock(mu_);
    max_mapped_blocks_ = blocks;
  }

 protected:
  size_t ReservedBytes() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return InUseBytes() + cached_bytes_;
  }

 private:
  // A small block of `size` (rounded, at most kMaxSmallBytes) from the
  // thread's lists or the heap, counted as `counted` bytes in use.
  void* TakeSmall(size_t size, size_t counted) {
    void* ptr = ThreadSmallBlocks().Take(size);
    if (ptr == nullptr) ptr = std::aligned_alloc(kHostAlignment, size);
    if (ptr != nullptr) CountAllocated(counted);
    return ptr;
  }

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

  [[gnu::noinline]] void* AllocateLarger(size_t bytes, size_t size) {
    if (size < kMinCachedBytes) {
      void* ptr = std::aligned_alloc(kHostAlignment, size);
      if (ptr != nullptr) CountAllocated(bytes);
      return ptr;
    }
    // Under a limit the allocator holds at most that much, cache included.
    if (limit() != 0 && InUseBytes() + CachedBytes() + size > limit()) EmptyCache();
    void* ptr = TakeCached(size);
    if (ptr == nullptr) ptr = MapCounted(size, bytes);
    if (ptr == nullptr) {
      EmptyCache();
      ptr = MapCounted(size, bytes);
    }
    if (ptr == nullptr) ptr = AllocateUnmapped(size);
    if (ptr != nullptr) CountAllocated(bytes);
    return ptr;
  }

  [[gnu::noinline]] void DeallocateLarger(void* ptr, size_t size) {
    if (size < kMinCachedBytes) {
      std::free(ptr);
      return;
    }
    switch (Release(ptr, &size)) {
      case Released::kCached: return;
      case Released::kUnmap: UnmapCounted(ptr, size); return;
      case Released::kFree: std::free(ptr); return;
    }
  }

  // A fresh mapped block, or null when the system refuses one or
  // kMaxMappedBlocks exist (Note [Host allocator]).
  void* MapCounted(size_t size, size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (mapped_blocks_ >= max_mapped_blocks_) return nullptr;
      ++mapped_blocks_;
    }
    void* ptr = MapBlock(size, bytes);
    if (ptr == nullptr) {
      std::lock_guard<std::mutex> lock(mu_);
      --mapped_blocks_;
    }
    return ptr;
  }
  void UnmapCounted(void* ptr, size_t size) {
    UnmapBlock(ptr, size);
    std::lock_guard<std::mutex> lock(mu_);
    --mapped_blocks_;
  }
  // A large block from malloc, freed (not cached) when released.
  void* AllocateUnmapped(size_t size) {
    void* ptr = std::aligned_alloc(kHostAlignment, size);
    if (ptr == nullptr) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    unmapped_.insert(ptr);
    return ptr;
  }

  // A fresh large block of `size` bytes for a request of `bytes`,
  // page-aligned (so kHostAlignment-aligned), or null.
  static void* MapBlock(size_t size, size_t bytes) {
    void* ptr = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ptr == MAP_FAILED) return nullptr;
    if (bytes >= kHugePageMinBytes) AdviseHugePages(ptr, bytes);
    return ptr;
  }
  static void UnmapBlock(void* ptr, size_t size) { munmap(ptr, size); }

  // The smallest cached block for a request of class `size` (Note [Host
  // allocator]), or null.
  void* TakeCached(size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = free_.lower_bound(size); it != free_.end() && it->first / 2 <= size; ++it) {
      if (it->second.empty()) continue;
      void* ptr = it->second.back();
      it->second.pop_back();
      cached_bytes_ -= it->first;
      if (it->first != size) lent_larger_[ptr] = it->first;
      return ptr;
    }
    return nullptr;
  }

  enum class Released { kCached, kUnmap, kFree };
  // What becomes of a freed large block of class *size (set to the block's
  // own size when it was lent to a smaller class): cached, or given back.
  Released Release(void* ptr, size_t* size) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!unmapped_.empty() && unmapped_.erase(ptr) != 0) return Released::kFree;
    if (!lent_larger_.empty()) {
      auto lent = lent_larger_.find(ptr);
      if (lent != lent_larger_.end()) {
        *size = lent->second;
        lent_larger_.erase(lent);
      }
    }
    if (cached_bytes_ + *size > kMaxCachedBytes) return Released::kUnmap;
    if (limit() != 0 && InUseBytes() + cached_bytes_ + *size > limit()) return Released::kUnmap;
    free_[*size].push_back(ptr);
    cached_bytes_ += *size;
    return Released::kCached;
  }

  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;  // size class -> free blocks, last freed at the back
  std::unordered_map<void*, size_t> lent_larger_;  // block -> its class, where larger than its request's
  size_t cached_bytes_ = 0;
  size_t mapped_blocks_ = 0;  // in use and cached
  size_t max_mapped_blocks_ = kMaxMappedBlocks;
  std::unordered_set<void*> unmapped_;  // large blocks from malloc, past the mapped blocks' cap
};

HostAllocatorImpl* HostAllocatorInstance() {
  static HostAllocatorImpl* allocator = new HostAllocatorImpl();  // leaked: buffers may outlive static destruction
  return allocator;
}

}  // namespace

Allocator* HostAllocator() { return HostAllocatorInstance(); }

void SetHostMappedBlockLimitForTesting(size_t blocks) { HostAllocatorInstance()->SetMappedBlockLimit(blocks); }

}  // namespace ember

// This file declares CachingAllocator, a stream-ordered caching allocator
// over a device's raw memory (a SubAllocator).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/allocator.h"

namespace ember {

// The raw memory a device gives (cudaMalloc, the simulated device's heap).
// Called only by CachingAllocator, under its lock: implementations need
// not be thread-safe on their own account.
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  // Returns nullptr when the system is out of memory.
  virtual void* Alloc(size_t bytes) = 0;
  // `bytes` is what Alloc was asked for.
  virtual void Free(void* ptr, size_t bytes) = 0;
  virtual MemoryKind kind() const = 0;
  virtual const char* Name() const = 0;
  // Note [Strict device memory]: see Allocator::access_domain.
  virtual const void* access_domain() const { return nullptr; }
};

// Caches segments taken from a SubAllocator and hands out blocks carved
// from them, in the spirit of PyTorch's CUDA caching allocator: sizes and
// pools as in Note [Caching allocator sizes] (caching_allocator.cc), reuse
// as in Note [Stream-ordered memory] (core/stream.h). Once the cache holds
// a fitting block, Allocate and Deallocate do not call the SubAllocator.
//
// The limit (SetLimit) caps reserved bytes, not just bytes in use: the
// allocator never grows past it.
//
// Thread-safe: one mutex guards all state. Streams given to Allocate and
// RecordStream must outlive the blocks that name them.
class CachingAllocator;

// Note [Capture sink]
// A CUDA graph bakes in the address of every buffer its kernels touched,
// workspaces included; the graph's later replays write them again. So a
// block freed while a graph is being captured must not go back to the
// cache, where other work would take it. While a CaptureSinkScope is
// installed on a thread, that thread's Deallocate calls on its allocator
// hand their blocks to the sink instead; the sink frees them, by the
// usual stream-ordered rules, when it is destroyed (with the graph, after
// the graph's last replay was posted). Other threads' frees are not
// affected: their buffers were never part of the capture.
class CaptureSink {
 public:
  explicit CaptureSink(CachingAllocator* allocator) : allocator_(allocator) {}
  ~CaptureSink();
  CaptureSink(const CaptureSink&) = delete;
  CaptureSink& operator=(const CaptureSink&) = delete;
  size_t num_blocks() const { return blocks_.size(); }

 private:
  friend class CachingAllocator;
  CachingAllocator* const allocator_;
  std::vector<std::pair<void*, size_t>> blocks_;
};

class CaptureSinkScope {
 public:
  explicit CaptureSinkScope(CaptureSink* sink);
  ~CaptureSinkScope();
  CaptureSinkScope(const CaptureSinkScope&) = delete;
  CaptureSinkScope& operator=(const CaptureSinkScope&) = delete;

 private:
  CaptureSink* const previous_;
};

class CachingAllocator final : public Allocator {
 public:
  // Every size is rounded up to a multiple of this (0 bytes too).
  static constexpr size_t kMinBlockSize = 512;
  // Requests up to this size come from the small pool...
  static constexpr size_t kSmallSize = size_t{1} << 20;
  // ...whose segments are this big.
  static constexpr size_t kSmallBuffer = size_t{2} << 20;
  // Large requests below this size share segments of kLargeBuffer...
  static constexpr size_t kMinLargeAlloc = size_t{10} << 20;
  static constexpr size_t kLargeBuffer = size_t{20} << 20;
  // ...bigger ones get their own segment, rounded up to this.
  static constexpr size_t kRoundLarge = size_t{2} << 20;

  CachingAllocator(std::string name, std::unique_ptr<SubAllocator> source);
  // Returns every segment to the source, blocks still in use included.
  ~CachingAllocator() override;
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  void* Allocate(size_t bytes, Stream* stream = nullptr) override;
  // An unknown pointer (or null) is ignored.
  void Deallocate(void* ptr, size_t bytes) override;
  // A null stream, the block's own stream or an unknown pointer: no-op.
  void RecordStream(void* ptr, Stream* stream) override;
  const char* Name() const override { return name_.c_str(); }
  MemoryKind memory_kind() const override { return source_->kind(); }
  const void* access_domain() const override { return source_->access_domain(); }
  // Returns every fully free segment to the source. Blocks still waiting
  // for other streams stay.
  void EmptyCache() override;

 protected:
  size_t ReservedBytes() const override { return reserved_.load(std::memory_order_relaxed); }

 private:
  struct Block;
  // Orders free blocks by (stream, size, address) for best fit.
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BlockLess>;

  Pool& PoolOf(const Block* block);
  Block* TakeFreeBlock(size_t size, Stream* stream, bool small);
  Block* NewSegment(size_t size, Stream* stream, bool small);
  Block* TryNewSegment(size_t segment_size, Stream* stream, bool small);
  void Split(Block* block, size_t size);
  void FreeBlock(Block* block);
  void ProcessPending();
  void ReleaseCached();

  const std::string name_;
  const std::unique_ptr<SubAllocator> source_;
  std::atomic<size_t> reserved_{0};  // written under mu_; read by GetStats

  std::mutex mu_;
  Pool small_pool_;
  Pool large_pool_;
  std::unordered_map<void*, Block*> allocated_;
  // Freed blocks waiting for other streams to pass their fences.
  std::vector<Block*> pending_;
  // Segment start -> the size asked of the source.
  std::unordered_map<void*, size_t> segments_;
};

}  // namespace ember

// This file declares Allocator, the device memory interface, and Buffer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "core/ref_counted.h"

namespace ember {

class Stream;  // core/stream.h

// What kind of memory an allocator hands out.
enum class MemoryKind : uint8_t {
  kHost,        // ordinary host memory: NumPy may view it
  kPinnedHost,  // page-locked host memory, for fast device transfers
  kDevice,      // a device's own memory: reachable only through copies
};

// Thread-safe: any thread may allocate and free.
class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns nullptr when out of memory (or over the limit). Zero bytes
  // yields a valid pointer. `stream` is the queue whose work will use the
  // memory first (Note [Stream-ordered memory] in core/stream.h); null for
  // memory used by host threads only.
  virtual void* Allocate(size_t bytes, Stream* stream = nullptr) = 0;
  // The block remembers the stream it was allocated for.
  virtual void Deallocate(void* ptr, size_t bytes) = 0;
  // `ptr` (allocated here) is used by work on `stream` as well as on the
  // stream it was allocated for: after it is freed, other streams wait
  // for `stream` too. A no-op for allocators without streams.
  virtual void RecordStream(void* ptr, Stream* stream) {
    (void)ptr;
    (void)stream;
  }
  virtual const char* Name() const = 0;
  virtual MemoryKind memory_kind() const { return MemoryKind::kHost; }
  // Note [Strict device memory]: non-null if host code must not touch this
  // memory: only work running for this domain may (core/device_access.h).
  virtual const void* access_domain() const { return nullptr; }
  // Returns cached, unused memory to the system (ember.config.empty_cache).
  virtual void EmptyCache() {}
  // Note [Inline buffers] (core/allocator.cc): one block of `header`
  // bytes (a multiple of kHostAlignment) followed by `bytes` of data,
  // counted as `bytes` in use; null where the allocator keeps no such
  // blocks (the default) or `bytes` is too large for one.
  virtual void* AllocateWithHeader(size_t header, size_t bytes) {
    (void)header;
    (void)bytes;
    return nullptr;
  }
  virtual void DeallocateWithHeader(void* block, size_t header, size_t bytes) {
    (void)block;
    (void)header;
    (void)bytes;
  }

  // What ember.config.memory_stats reports. `bytes_in_use` counts bytes
  // handed out and not yet returned; `bytes_reserved` what the allocator
  // holds from the system (in use plus cached); `peak_bytes_in_use` the
  // most in use since the last ResetPeak; `num_allocs` every Allocate
  // that succeeded; `limit_bytes` 0 when there is no limit.
  struct Stats {
    size_t bytes_in_use = 0;
    size_t peak_bytes_in_use = 0;
    size_t bytes_reserved = 0;
    uint64_t num_allocs = 0;
    size_t limit_bytes = 0;
  };
  Stats GetStats() const {
    Stats s;
    s.bytes_in_use = in_use_.load(std::memory_order_relaxed);
    s.peak_bytes_in_use = peak_.load(std::memory_order_relaxed);
    s.bytes_reserved = ReservedBytes();
    s.num_allocs = num_allocs_.load(std::memory_order_relaxed);
    s.limit_bytes = limit_.load(std::memory_order_relaxed);
    return s;
  }
  void ResetPeak() { peak_.store(in_use_.load()); }
  // At most `bytes` held (0: no limit): in use, or for a caching
  // allocator reserved; later allocations past it fail with out-of-memory
  // (a caching allocator first empties its cache and retries). Memory
  // already handed out is not taken back.
  void SetLimit(size_t bytes) { limit_.store(bytes, std::memory_order_relaxed); }
  size_t limit() const { return limit_.load(std::memory_order_relaxed); }

 protected:
  // Implementations call these around each allocation.
  void CountAllocated(size_t bytes) {
    num_allocs_.fetch_add(1, std::memory_order_relaxed);
    const size_t now = in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    size_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void CountFreed(size_t bytes) { in_use_.fetch_sub(bytes, std::memory_order_relaxed); }
  size_t InUseBytes() const { return in_use_.load(std::memory_order_relaxed); }
  // True if handing out `bytes` more would pass the limit.
  bool OverLimit(size_t bytes) const {
    const size_t limit = limit_.load(std::memory_order_relaxed);
    return limit != 0 && in_use_.load(std::memory_order_relaxed) + bytes > limit;
  }
  // Held from the system; allocators that cache override it.
  virtual size_t ReservedBytes() const { return in_use_.load(std::memory_order_relaxed); }

 private:
  std::atomic<size_t> in_use_{0};
  std::atomic<size_t> peak_{0};
  std::atomic<uint64_t> num_allocs_{0};
  std::atomic<size_t> limit_{0};
};

// Host memory aligned to kHostAlignment (for SIMD loads and cache lines);
// large blocks are cached for reuse (Note [Host allocator] in
// core/host_allocator.cc).
Allocator* HostAllocator();
// Caps the host allocator's mapped blocks (Note [Host allocator]); for tests.
void SetHostMappedBlockLimitForTesting(size_t blocks);
inline constexpr size_t kHostAlignment = 64;

// A ref-counted block of device memory. Several tensors may share one
// buffer (reshape, identity); a kernel may write into an input's buffer only
// when the runtime proved it holds the sole reference.
class Buffer : public RefCounted {
 public:
  // Returns null if the allocator failed.
  static RefPtr<Buffer> Allocate(Allocator* allocator, size_t bytes, Stream* stream = nullptr);
  // Note [Foreign buffers]: host memory that another library owns (a
  // DLPack import). The buffer never frees it; when its last reference
  // goes it calls `release(context)` instead, on whichever thread drops
  // that reference. Ember only reads foreign memory: donation (Note [Buffer
  // donation] in runtime/kernel_launch.cc) never hands it to an output, so
  // read-only producer data stays unwritten.
  static RefPtr<Buffer> WrapForeign(void* data, size_t bytes, void (*release)(void* context), void* context);

  // The address, for copies and pointer bookkeeping; kernels and host code
  // read and write through Tensor::raw_data(), which checks access (Note
  // [Strict device memory]).
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Allocator* allocator() const { return allocator_; }
  const void* access_domain() const { return access_domain_; }
  bool foreign() const { return release_ != nullptr; }

  // Note [Inline buffers]: the record's room at the front of its block.
  static constexpr size_t kInlineHeader = kHostAlignment;
  // An inline buffer's block goes back to its allocator after the record
  // is destroyed; other records to the heap.
  void operator delete(Buffer* buffer, std::destroying_delete_t);

 private:
  Buffer(Allocator* allocator, void* data, size_t bytes)
      : allocator_(allocator), data_(data), bytes_(bytes) {}
  ~Buffer() override;

  bool inline_ = false;  // record and data in one block (Note [Inline buffers])
  Allocator* allocator_;
  void* data_;
  size_t bytes_;
  const void* access_domain_ = nullptr;  // the allocator's, cached for Tensor::raw_data
  void (*release_)(void*) = nullptr;  // set for foreign buffers
  void* release_context_ = nullptr;
};

}  // namespace ember

// This file declares Allocator, the device memory interface, and Buffer.
#pragma once

#include <atomic>
#include <cstddef>

#include "core/ref_counted.h"

namespace ember {

// Thread-safe: any thread may allocate and free.
class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns nullptr when out of memory. Zero bytes yields a valid pointer.
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Deallocate(void* ptr, size_t bytes) = 0;
  virtual const char* Name() const = 0;

  // Bytes handed out and not yet returned, and the most there were since
  // the last ResetPeak (what ember.config.memory_stats reports).
  struct Stats {
    size_t bytes_in_use = 0;
    size_t peak_bytes_in_use = 0;
  };
  Stats GetStats() const { return {in_use_.load(), peak_.load()}; }
  void ResetPeak() { peak_.store(in_use_.load()); }

 protected:
  // Implementations call these around each allocation.
  void CountAllocated(size_t bytes) {
    const size_t now = in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    size_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void CountFreed(size_t bytes) { in_use_.fetch_sub(bytes, std::memory_order_relaxed); }

 private:
  std::atomic<size_t> in_use_{0};
  std::atomic<size_t> peak_{0};
};

// Host memory aligned to kHostAlignment (for SIMD loads and cache lines).
Allocator* HostAllocator();
inline constexpr size_t kHostAlignment = 64;

// A ref-counted block of device memory. Several tensors may share one
// buffer (reshape, identity); a kernel may write into an input's buffer only
// when the runtime proved it holds the sole reference.
class Buffer : public RefCounted {
 public:
  // Returns null if the allocator failed.
  static RefPtr<Buffer> Allocate(Allocator* allocator, size_t bytes);

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Allocator* allocator() const { return allocator_; }

 private:
  Buffer(Allocator* allocator, void* data, size_t bytes)
      : allocator_(allocator), data_(data), bytes_(bytes) {}
  ~Buffer() override;

  Allocator* allocator_;
  void* data_;
  size_t bytes_;
};

}  // namespace ember

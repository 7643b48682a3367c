// This file declares Allocator, the device memory interface, and Buffer.
#pragma once

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

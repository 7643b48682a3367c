// This file defines HostScratch, the workspace of a CPU kernel: im2col
// columns, Winograd transforms, padded inputs (Note [Kernel scratch]).
#pragma once

#include <cstddef>
#include <cstring>
#include <limits>
#include <new>

#include "core/allocator.h"

namespace ember::cpu {

// Note [Kernel scratch]
// Workspaces come from the host allocator, not from new or std::vector.
// glibc serves a freed large block again from the freeing thread's arena
// once its dynamic mmap threshold has grown past it, and an arena rarely
// shrinks: after one ResNet-50 inference the intra-op threads' arenas held
// 25 MiB of dead workspaces (Winograd filter transforms of 4 MiB, im2col
// blocks), a fifth of the process's peak increase. The host allocator
// caches large blocks by size class (Note [Host allocator]), so the next
// call of the same shape takes the same block back, and workspaces count
// in memory_stats like tensors. Small workspaces stay on malloc's fast
// thread caches either way.
template <typename T>
class HostScratch {
 public:
  enum class Fill { kUninitialized, kZeros };

  // `count` elements of T; throws std::bad_alloc when the host is out of
  // memory or the size overflows, as new T[count] would.
  explicit HostScratch(size_t count, Fill fill = Fill::kUninitialized) : bytes_(count * sizeof(T)) {
    if (count > std::numeric_limits<size_t>::max() / sizeof(T)) throw std::bad_alloc();
    if (count == 0) return;
    data_ = static_cast<T*>(HostAllocator()->Allocate(bytes_));
    if (data_ == nullptr) throw std::bad_alloc();
    if (fill == Fill::kZeros) std::memset(static_cast<void*>(data_), 0, bytes_);
  }
  ~HostScratch() {
    if (data_ != nullptr) HostAllocator()->Deallocate(data_, bytes_);
  }
  HostScratch(const HostScratch&) = delete;
  HostScratch& operator=(const HostScratch&) = delete;

  T* data() const { return data_; }
  T& operator[](size_t i) const { return data_[i]; }

 private:
  size_t bytes_;
  T* data_ = nullptr;
};

}  // namespace ember::cpu

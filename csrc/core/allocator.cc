// This file implements the host allocator and Buffer.
#include "core/allocator.h"

#include <cstdlib>
#include <new>

namespace ember {
namespace {

class AlignedHostAllocator final : public Allocator {
 public:
  void* Allocate(size_t bytes, Stream*) override {
    if (OverLimit(bytes)) return nullptr;
    // aligned_alloc needs a size that is a multiple of the alignment.
    size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
    void* ptr = std::aligned_alloc(kHostAlignment, rounded == 0 ? kHostAlignment : rounded);
    if (ptr != nullptr) CountAllocated(bytes);
    return ptr;
  }
  void Deallocate(void* ptr, size_t bytes) override {
    std::free(ptr);
    CountFreed(bytes);
  }
  const char* Name() const override { return "host"; }
};

}  // namespace

Allocator* HostAllocator() {
  static AlignedHostAllocator* allocator = new AlignedHostAllocator();
  return allocator;
}

RefPtr<Buffer> Buffer::Allocate(Allocator* allocator, size_t bytes, Stream* stream) {
  void* data = allocator->Allocate(bytes, stream);
  if (data == nullptr) return nullptr;
  return RefPtr<Buffer>::Adopt(new Buffer(allocator, data, bytes));
}

Buffer::~Buffer() { allocator_->Deallocate(data_, bytes_); }

}  // namespace ember

// This file implements Buffer.
#include "core/allocator.h"

namespace ember {

RefPtr<Buffer> Buffer::Allocate(Allocator* allocator, size_t bytes, Stream* stream) {
  void* data = allocator->Allocate(bytes, stream);
  if (data == nullptr) return nullptr;
  return RefPtr<Buffer>::Adopt(new Buffer(allocator, data, bytes));
}

RefPtr<Buffer> Buffer::WrapForeign(void* data, size_t bytes, void (*release)(void* context), void* context) {
  RefPtr<Buffer> buffer = RefPtr<Buffer>::Adopt(new Buffer(HostAllocator(), data, bytes));
  buffer->release_ = release;
  buffer->release_context_ = context;
  return buffer;
}

Buffer::~Buffer() {
  if (release_ != nullptr) {
    release_(release_context_);
  } else {
    allocator_->Deallocate(data_, bytes_);
  }
}

}  // namespace ember

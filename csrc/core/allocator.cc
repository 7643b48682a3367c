// This file implements Buffer.
#include "core/allocator.h"

namespace ember {

RefPtr<Buffer> Buffer::Allocate(Allocator* allocator, size_t bytes, Stream* stream) {
  void* data = allocator->Allocate(bytes, stream);
  if (data == nullptr) return nullptr;
  return RefPtr<Buffer>::Adopt(new Buffer(allocator, data, bytes));
}

Buffer::~Buffer() { allocator_->Deallocate(data_, bytes_); }

}  // namespace ember

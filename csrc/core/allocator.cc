// This file implements Buffer.
#include "core/allocator.h"

#include <string>

#include "core/device_access.h"

namespace ember {

// Note [Inline buffers]
// Every op's output is a Buffer record and its data: two allocations,
// each ~5 ns of malloc or the small-block lists, and two frees. For the
// outputs of small ops (the host allocator's small blocks: record and
// data within 256 bytes) one block holds both: the record in its first
// kInlineHeader bytes, the data after them, still aligned to
// kHostAlignment. Only the data counts as in use, as before. The record
// is destroyed by its class's destroying operator delete (C++20), which
// runs the destructor and then gives the block back to the allocator,
// not to the heap.
static_assert(sizeof(Buffer) <= Buffer::kInlineHeader, "the record must fit in front of its inline data");

RefPtr<Buffer> Buffer::Allocate(Allocator* allocator, size_t bytes, Stream* stream) {
  if (void* block = allocator->AllocateWithHeader(kInlineHeader, bytes)) {
    Buffer* buffer = ::new (block) Buffer(allocator, static_cast<char*>(block) + kInlineHeader, bytes);
    buffer->inline_ = true;
    buffer->access_domain_ = allocator->access_domain();
    return RefPtr<Buffer>::Adopt(buffer);
  }
  void* data = allocator->Allocate(bytes, stream);
  if (data == nullptr) return nullptr;
  RefPtr<Buffer> buffer = RefPtr<Buffer>::Adopt(new Buffer(allocator, data, bytes));
  buffer->access_domain_ = allocator->access_domain();
  return buffer;
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
  } else if (!inline_) {
    allocator_->Deallocate(data_, bytes_);
  }
}

void Buffer::operator delete(Buffer* buffer, std::destroying_delete_t) {
  if (buffer->inline_) {
    Allocator* allocator = buffer->allocator_;
    const size_t bytes = buffer->bytes_;
    buffer->~Buffer();
    allocator->DeallocateWithHeader(buffer, kInlineHeader, bytes);
  } else {
    buffer->~Buffer();
    ::operator delete(buffer);
  }
}

namespace {
thread_local const void* current_access_domain = nullptr;
}  // namespace

DeviceAccessScope::DeviceAccessScope(const void* domain) : previous_(current_access_domain) {
  current_access_domain = domain;
}

DeviceAccessScope::~DeviceAccessScope() { current_access_domain = previous_; }

const void* DeviceAccessScope::Current() { return current_access_domain; }

void CheckDeviceAccess(const Buffer& buffer) {
  if (buffer.access_domain() == current_access_domain) return;
  throw DeviceMemoryAccessError(std::string("host code touched ") + buffer.allocator()->Name() +
                                " memory outside the device's streams; copy the value to the host first "
                                "(Note [Strict device memory])");
}

}  // namespace ember

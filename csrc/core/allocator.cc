// This file implements Buffer.
#include "core/allocator.h"

#include <string>

#include "core/device_access.h"

namespace ember {

RefPtr<Buffer> Buffer::Allocate(Allocator* allocator, size_t bytes, Stream* stream) {
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
  } else {
    allocator_->Deallocate(data_, bytes_);
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

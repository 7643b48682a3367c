// This file implements StageForUpload (Note [Pinned staging]).
#include "core/pinned_staging.h"

#include <cstring>

namespace ember {

Tensor StageForUpload(Device* device, const Tensor& src, const Event& after, bool* staged) {
  *staged = false;
  const bool pinned = src.buffer() && src.buffer()->allocator() != nullptr &&
                      src.buffer()->allocator()->memory_kind() == MemoryKind::kPinnedHost;
  const bool ready = after.stream == nullptr || after.HasHappened();
  Allocator* pool = device->pinned_allocator();
  if (pinned || !ready || src.NumBytes() == 0 || pool == nullptr) return src;
  RefPtr<Buffer> staging = Buffer::Allocate(pool, src.NumBytes());
  if (!staging) return src;
  Tensor copy(src.dtype(), src.shape(), std::move(staging));
  std::memcpy(copy.raw_data(), src.raw_data(), src.NumBytes());
  *staged = true;
  return copy;
}

}  // namespace ember

// This file declares StageForUpload: the host side of a copy to a device
// that needs pinned memory (Note [Pinned staging] in core/device.h).
#pragma once

#include "core/device.h"

namespace ember {

// The tensor a copy from host memory to `device` should read: a pinned copy
// of `src`, made now on the calling thread (*staged true), or `src` itself
// when it is pinned already, still being made (`after` has not happened),
// empty, or the pinned pool is full (*staged false). A staged copy reads
// data that is there now, so it waits for no event.
Tensor StageForUpload(Device* device, const Tensor& src, const Event& after, bool* staged);

}  // namespace ember

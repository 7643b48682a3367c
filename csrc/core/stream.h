// This file declares Stream: a device's in-order work queue, as the
// allocator and the runtime see it (a CUDA stream; the simulated device's
// queue thread).
#pragma once

#include <cstdint>
#include <functional>

namespace ember {

// Note [Stream-ordered memory]
// Work posted to one stream runs in the order it was posted. Each post gets
// a ticket (1, 2, 3, ...); LastCompleted() is the highest ticket such that
// it and every earlier post have finished. A buffer freed while work that
// uses it is still queued may go at once to later work on the *same*
// stream, which cannot start before that work; any other stream must wait
// until LastCompleted() reaches the ticket that was last posted on the
// freeing stream when the buffer was freed (a fence). CachingAllocator
// (core/caching_allocator.h) applies that rule.
//
// Thread-safe: any thread may post; `work` runs on the stream's own thread
// (or, for a GPU, the work is the launch of device work).
class Stream {
 public:
  virtual ~Stream() = default;

  // Queues `work`; returns its ticket.
  virtual uint64_t Post(std::function<void()> work) = 0;
  // The ticket of the latest post (0 before any).
  virtual uint64_t LastPosted() const = 0;
  // Every post up to this ticket has finished.
  virtual uint64_t LastCompleted() const = 0;
  // Blocks the caller until every post so far finished. For shutdown and
  // tests; the runtime itself never blocks on a stream.
  virtual void Drain() = 0;

  bool Passed(uint64_t ticket) const { return LastCompleted() >= ticket; }
};

}  // namespace ember

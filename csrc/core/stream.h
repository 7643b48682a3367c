// This file declares Stream and Event: a device's in-order work queue (a
// CUDA stream; a simulated device's queue thread) and a point in its order.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

#include "core/status.h"

namespace ember {

class Stream;

// Note [Streams and events]
// A stream runs the work posted to it in the order it was posted; each
// post gets a ticket (1, 2, 3, ...). An Event names one point of one
// stream's order, {stream, ticket}: it has happened once the stream
// finished every post up to that ticket. Stream order is the dependency:
// work on one stream needs nothing to follow earlier work there. Events
// are used only where two streams, or a stream and the host, meet:
//   - another stream waits for an event *on the device* (Stream::Wait: it
//     returns at once; later posts there start after the event);
//   - the host blocks on one (Event::Synchronize, counted as a host
//     synchronization) or asks to be called back once it happened
//     (Stream::OnCompleted, counted as a host callback).
// An Event without a stream has already happened (a value made on the
// host). Events only name work already posted, so waits never form a
// cycle.
struct Event {
  Stream* stream = nullptr;
  uint64_t ticket = 0;

  bool HasHappened() const;
  // Blocks the calling host thread until the event happened.
  void Synchronize() const;
  // Like Synchronize, for at most `timeout`; true if it happened.
  bool SynchronizeFor(std::chrono::microseconds timeout) const;
};

// What ember.config.runtime_stats reports for a stream (Note [Runtime
// statistics]): counted by Stream's own methods, so every stream type
// counts alike. Relaxed atomics: counters, not synchronization.
struct StreamCounters {
  std::atomic<uint64_t> kernels{0};         // kernels posted
  std::atomic<uint64_t> copies{0};          // copies posted
  // Of those, copies from pageable host memory that went through pinned
  // staging (Note [Pinned staging] in core/device.h).
  std::atomic<uint64_t> staged_copies{0};
  // Events of this stream another stream or the host had to wait for (a
  // CUDA stream records a cudaEvent only then).
  std::atomic<uint64_t> events_recorded{0};
  std::atomic<uint64_t> device_waits{0};    // Wait() that had to order on the device
  std::atomic<uint64_t> host_syncs{0};      // tickets host threads blocked on
  std::atomic<uint64_t> host_callbacks{0};  // OnCompleted callbacks deferred to completion
  std::atomic<uint64_t> busy_ns{0};         // time the stream spent running posts
};

// What a post is, for the counters and the simulated device's timing.
enum class WorkKind : uint8_t { kKernel, kCopy, kStagedCopy, kMarker };

// Note [Stream-ordered memory]
// A buffer freed while work that uses it is still queued may go at once to
// later work on the *same* stream, which cannot start before that work;
// any other stream must wait until LastCompleted() reaches the ticket that
// was last posted on the freeing stream when the buffer was freed (a
// fence). CachingAllocator (core/caching_allocator.h) applies that rule.
//
// Thread-safe: any thread may post; `work` runs on the stream's own thread
// (for a GPU, the work is the launch of device work, run at the post).
class Stream {
 public:
  virtual ~Stream() = default;

  // Queues `work`; returns its ticket.
  uint64_t Post(std::function<void()> work, WorkKind kind = WorkKind::kKernel) {
    if (kind == WorkKind::kKernel) counters_.kernels.fetch_add(1, std::memory_order_relaxed);
    if (kind == WorkKind::kCopy || kind == WorkKind::kStagedCopy) counters_.copies.fetch_add(1, std::memory_order_relaxed);
    if (kind == WorkKind::kStagedCopy) counters_.staged_copies.fetch_add(1, std::memory_order_relaxed);
    return DoPost(std::move(work), kind);
  }
  // An event at the latest post: it happens once everything posted so far
  // finished. Counted when someone waits for it, not here.
  Event Record() const { return Event{const_cast<Stream*>(this), LastPosted()}; }
  // Device-side wait: work posted here after the call starts only once
  // `event` happened. Returns at once; a no-op for events of this stream
  // (stream order covers them) and for events that already happened.
  void Wait(const Event& event) {
    if (event.stream == nullptr || event.stream == this || event.HasHappened()) return;
    counters_.device_waits.fetch_add(1, std::memory_order_relaxed);
    event.stream->counters_.events_recorded.fetch_add(1, std::memory_order_relaxed);
    DoWait(event);
  }
  // Blocks the calling host thread until `ticket` finished, for at most
  // `timeout`; true if it did.
  // A reader that waits in slices (to notice Ctrl-C) counts once per
  // ticket, not once per slice.
  bool HostWaitFor(uint64_t ticket, std::chrono::microseconds timeout) {
    if (Passed(ticket)) return true;
    uint64_t counted = last_host_sync_.load(std::memory_order_relaxed);
    while (ticket > counted && !last_host_sync_.compare_exchange_weak(counted, ticket, std::memory_order_relaxed)) {
    }
    if (ticket > counted) {
      counters_.host_syncs.fetch_add(1, std::memory_order_relaxed);
      counters_.events_recorded.fetch_add(1, std::memory_order_relaxed);
    }
    return BlockUntil(ticket, timeout);
  }
  // Calls `callback` once `ticket` finished: at once on this thread if it
  // has, else on the stream's thread when it does. Only where a stream
  // meets the host; never per kernel.
  void OnCompleted(uint64_t ticket, std::function<void()> callback) {
    if (Passed(ticket)) return callback();
    counters_.host_callbacks.fetch_add(1, std::memory_order_relaxed);
    counters_.events_recorded.fetch_add(1, std::memory_order_relaxed);
    DoOnCompleted(ticket, std::move(callback));
  }

  // The ticket of the latest post (0 before any).
  virtual uint64_t LastPosted() const = 0;
  // Every post up to this ticket has finished.
  virtual uint64_t LastCompleted() const = 0;
  // Blocks until every post so far finished. For shutdown and tests.
  virtual void Drain() = 0;
  // Why the device of this stream can run no more work (Note [Sticky CUDA
  // errors] in devices/cuda/cuda_api.h); OK while it can. A failed stream
  // counts all its work as finished, so no reader waits forever: readers
  // of values it made check this after their wait.
  virtual Status Failure() const { return Status::OK(); }
  // True if Post runs `work` before it returns, on the posting thread (a
  // GPU's: the work launches device work). The launcher may then read
  // what the work left (Note [Device error words]).
  virtual bool RunsWorkAtPost() const { return false; }
  // For stream implementations: blocks until `ticket` finished (or the
  // timeout passed), without counting a host synchronization; true if it
  // finished. A device-side wait of another stream uses it.
  virtual bool BlockUntil(uint64_t ticket, std::chrono::microseconds timeout) = 0;

  bool Passed(uint64_t ticket) const { return LastCompleted() >= ticket; }
  const StreamCounters& counters() const { return counters_; }

 protected:
  virtual uint64_t DoPost(std::function<void()> work, WorkKind kind) = 0;
  virtual void DoWait(const Event& event) = 0;
  virtual void DoOnCompleted(uint64_t ticket, std::function<void()> callback) = 0;
  StreamCounters& mutable_counters() { return counters_; }

 private:
  StreamCounters counters_;
  std::atomic<uint64_t> last_host_sync_{0};  // the highest ticket counted in host_syncs
};

inline bool Event::HasHappened() const { return stream == nullptr || stream->Passed(ticket); }

inline bool Event::SynchronizeFor(std::chrono::microseconds timeout) const {
  return stream == nullptr || stream->HostWaitFor(ticket, timeout);
}

inline void Event::Synchronize() const {
  while (!SynchronizeFor(std::chrono::hours(1))) {
  }
}

}  // namespace ember

// This file declares CudaStream, a Stream over one CUDA stream, and
// DeviceHealth, a GPU's record of a sticky failure.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/stream.h"
#include "devices/cuda/cuda_api.h"

namespace ember::cuda {

// Note [Sticky CUDA errors] (cuda_api.h): the first sticky error a GPU's
// streams meet, shared by them. Once failed, every stream of the device
// counts all its work as finished (so no reader waits forever) and
// reports the failure (Stream::Failure), and every later launch fails.
class DeviceHealth {
 public:
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  Status status() const;
  // Keeps the first failure.
  void Fail(Status status);

 private:
  std::atomic<bool> failed_{false};
  mutable std::mutex mu_;
  Status status_;
};

// A captured CUDA graph, instantiated, with the work objects of the posts
// it recorded (Note [Capturing a stream]): their tensors are the buffers
// the graph's kernels read and write, so those stay allocated for as long
// as the graph lives. Destroyed by its last owner; a replay's post owns it
// until the replay finished.
class CudaGraph {
 public:
  CudaGraph(CudaApi* api, int device) : api_(api), device_(device) {}
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  GraphExecHandle exec() const { return exec_; }
  // The posts the capture recorded.
  size_t num_posts() const { return work_.size(); }

 private:
  friend class CudaStream;
  CudaApi* const api_;
  const int device_;
  GraphHandle graph_ = nullptr;
  GraphExecHandle exec_ = nullptr;
  std::vector<std::function<void()>> work_;
};

// Note [CUDA streams and tickets]
// Stream's model (Note [Streams and events] in core/stream.h) on a GPU:
//  - Post runs `work` at once on the posting thread, under the stream's
//    launch lock: the work *launches* device work into the CUDA stream
//    (a kernel, a cudaMemcpyAsync), so launch order is ticket order.
//  - The work object (with the tensors it captured) is kept until its
//    ticket is known finished, as a simulated stream keeps it until it
//    ran: buffers a queued kernel reads or writes cannot return to the
//    allocator early, so the runtime's lifetime rules are the same on
//    every device.
//  - Which tickets finished is learnt from CUDA events, recorded only
//    where they are needed: one every kMarkInterval posts (so held work
//    and pending memory are released as the GPU advances, at one event
//    per kMarkInterval launches), and one at the latest post whenever
//    another stream or the host waits for a ticket no event covers yet.
//    Events are pooled and reused once they have been seen complete.
//  - A device-side wait (Stream::Wait) is cudaStreamWaitEvent on an event
//    covering the ticket; a host wait polls that event; a completion
//    callback runs on the stream's completion thread (started on first
//    use), never inside a CUDA callback, so it may free memory and post.
// The work must not wait on or post to another stream.
class CudaStream final : public Stream {
 public:
  static constexpr uint64_t kMarkInterval = 16;

  // `device` is the CUDA ordinal; work runs with access to memory of
  // `access_domain` (Note [Strict device memory]).
  CudaStream(std::string name, CudaApi* api, int device, const void* access_domain, DeviceHealth* health);
  ~CudaStream() override;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  // Null if the CUDA stream could not be created (then the device failed).
  StreamHandle handle() const { return handle_; }
  const std::string& name() const { return name_; }
  int device() const { return device_; }
  CudaApi* api() const { return api_; }

  uint64_t LastPosted() const override { return posted_.load(std::memory_order_acquire); }
  // Polls the recorded events, so it advances as the GPU does.
  uint64_t LastCompleted() const override;
  void Drain() override;
  bool BlockUntil(uint64_t ticket, std::chrono::microseconds timeout) override;
  Status Failure() const override;
  bool RunsWorkAtPost() const override { return true; }

  // Note [Capturing a stream]
  // Records the device work that `issue` posts to this stream into a CUDA
  // graph instead of running it (docs/devices.md, "CUDA graphs for
  // functions"). The launch lock is held throughout, so other threads'
  // posts and waits on this stream wait for the capture to end. Before it
  // starts, a mark covers every earlier post, so host waits during the
  // capture can poll. During it, posts launch as usual into the capturing
  // stream, keep their work objects in the graph, record no events (one
  // recorded inside a capture is a graph node, never a real record) and
  // return the last real ticket; a wait for another stream's event is a
  // host wait (a device-side wait would tie the graph to that event).
  // Completion callbacks asked for meanwhile run when the work before the
  // capture finished: a capture must not ask for them.
  Status Capture(const std::function<Status()>& issue, std::shared_ptr<CudaGraph>* graph);
  // Posts one replay of `graph`, with `before` and `after` (the copies of
  // a call's arguments in and results out) launched in the same post
  // around it. The post keeps `graph` until the replay finished.
  Status PostGraph(std::shared_ptr<const CudaGraph> graph, std::function<void()> before, std::function<void()> after,
                   uint64_t* ticket);

  // Events recorded so far (for tests of the recording policy).
  uint64_t events_recorded_total() const { return marks_recorded_.load(std::memory_order_relaxed); }
  // Work objects still held (for tests of their release).
  size_t held_work() const;

 protected:
  uint64_t DoPost(std::function<void()> work, WorkKind kind) override;
  void DoWait(const Event& event) override;
  void DoOnCompleted(uint64_t ticket, std::function<void()> callback) override;

 private:
  struct Mark {
    uint64_t ticket;
    EventHandle event;
  };

  // Under launch_mu_: an event recorded at the latest post, unless the
  // newest mark is there already. False if recording failed.
  bool RecordMarkLocked();
  // Makes sure a recorded mark covers `ticket`; false if none could be.
  bool CoverTicket(uint64_t ticket);
  // Updates completed_ from the marks; the caller holds marks_mu_.
  void PollLocked() const;
  // Destroys the work objects of finished tickets (outside every lock:
  // destroying one may free memory, which polls streams).
  void ReleaseFinishedWork();
  void FailDevice(ApiResult result, const char* what) const;
  void CompletionLoop();

  const std::string name_;
  CudaApi* const api_;
  const int device_;
  const void* const access_domain_;
  DeviceHealth* const health_;
  StreamHandle handle_ = nullptr;

  // Serializes launches with ticket assignment and mark recording.
  // Recursive: a work object may allocate, and the allocator may ask this
  // stream for a mark.
  mutable std::recursive_mutex launch_mu_;
  std::atomic<uint64_t> posted_{0};
  CudaGraph* capture_ = nullptr;  // under launch_mu_: the graph being captured

  // Guards marks_, event_pool_ (a leaf lock: nothing is taken under it).
  mutable std::mutex marks_mu_;
  mutable std::deque<Mark> marks_;
  mutable std::vector<EventHandle> event_pool_;
  mutable std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> marks_recorded_{0};

  mutable std::mutex held_mu_;
  std::deque<std::pair<uint64_t, std::function<void()>>> held_;

  // Completion callbacks (Stream::OnCompleted), run on completion_thread_.
  std::mutex callbacks_mu_;
  std::condition_variable callbacks_cv_;
  std::deque<std::pair<uint64_t, std::function<void()>>> callbacks_;
  bool stopping_ = false;
  std::thread completion_thread_;
};

}  // namespace ember::cuda

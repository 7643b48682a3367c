// This file declares SimStream: one of the simulated accelerator's
// in-order queues, a thread that plays a device stream.
#pragma once

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

namespace ember {

// Note [Simulated timing]
// Runs posted work in order on its own thread. Each kernel or copy first
// takes `latency_us` on the stream (EMBER_SIMULATED_LATENCY_US: the
// device's time, during which the host goes on), and each post takes
// `launch_us` of the posting thread's time (EMBER_SIMULATED_LAUNCH_US: a
// driver's launch cost). Work thus finishes well after the host queued
// it, as on a GPU, and ordering mistakes show as wrong values. A
// device-side wait (Stream::Wait) blocks this thread, not the host's,
// until the other stream passed the event.
class SimStream final : public Stream {
 public:
  // Work runs with access to memory of `access_domain` (Note [Strict
  // device memory]); null: host memory only.
  SimStream(std::string name, int64_t latency_us, int64_t launch_us, const void* access_domain = nullptr);
  ~SimStream() override;

  // Note [Simulated graphs]
  // The simulated accelerator models CUDA graphs (Note [Graph replay] in
  // core/device.h, Note [Capturing a stream] in devices/cuda/cuda_stream.h)
  // so the graph executor's capture and replay run in every CI build. Its
  // kernels are host code that runs on this stream's thread, so a
  // recording is the work itself: while `issue` runs, what the calling
  // thread posts here is kept in `*recording` instead of queued, and the
  // post returns the last real ticket (no new one, as a GPU's capture
  // records no events); a device-side wait it asks for is a host wait, as
  // on a GPU. Other threads post as usual meanwhile. PostReplay queues
  // `before`, every recorded work item in order and `after` as one item:
  // one launch, one latency. The recorded work then runs once per replay,
  // so it may refer to nothing that lives only as long as the captured
  // call (the executor posts recorded kernels that report to the
  // recording's own error cell).
  using Recording = std::vector<std::function<void()>>;
  Status Capture(const std::function<Status()>& issue, Recording* recording);
  uint64_t PostReplay(std::shared_ptr<const Recording> recording, std::function<void()> before,
                      std::function<void()> after);

  uint64_t LastPosted() const override { return posted_.load(std::memory_order_acquire); }
  uint64_t LastCompleted() const override { return completed_.load(std::memory_order_acquire); }
  void Drain() override;
  bool BlockUntil(uint64_t ticket, std::chrono::microseconds timeout) override;
  const std::string& name() const { return name_; }

 protected:
  uint64_t DoPost(std::function<void()> work, WorkKind kind) override;
  void DoWait(const Event& event) override;
  void DoOnCompleted(uint64_t ticket, std::function<void()> callback) override;

 private:
  struct Item {
    std::function<void()> work;  // null for a wait
    Event wait;                  // set for a device-side wait
    WorkKind kind = WorkKind::kKernel;
  };
  bool CapturingHere() const;
  uint64_t Push(Item item);
  void Loop();
  static void Spin(int64_t us);

  std::string name_;
  int64_t latency_us_;
  int64_t launch_us_;
  const void* access_domain_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable drained_cv_;
  std::deque<Item> queue_;
  std::vector<std::pair<uint64_t, std::function<void()>>> callbacks_;  // under mu_
  bool stopping_ = false;
  std::atomic<uint64_t> posted_{0};
  std::atomic<uint64_t> completed_{0};
  // Note [Simulated graphs]: the capturing thread and where its posts go;
  // `recording_` is read only by that thread.
  std::atomic<std::thread::id> capturing_thread_{};
  Recording* recording_ = nullptr;
  std::thread thread_;
};

}  // namespace ember

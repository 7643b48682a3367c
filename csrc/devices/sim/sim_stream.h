// This file declares SimStream: the simulated accelerator's in-order
// queue, one thread that plays the device's stream.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/stream.h"

namespace ember {

// Runs posted work in order on its own thread, each item after an optional
// delay (EMBER_SIMULATED_LATENCY_US), so that work finishes well after the
// host queued it, as on a GPU, and ordering mistakes show as wrong values.
class SimStream final : public Stream {
 public:
  SimStream(std::string name, int64_t latency_us);
  ~SimStream() override;

  uint64_t Post(std::function<void()> work) override;
  uint64_t LastPosted() const override { return posted_.load(std::memory_order_acquire); }
  uint64_t LastCompleted() const override { return completed_.load(std::memory_order_acquire); }
  void Drain() override;

 private:
  void Loop();
  void Delay() const;

  std::string name_;
  int64_t latency_us_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable drained_cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::atomic<uint64_t> posted_{0};
  std::atomic<uint64_t> completed_{0};
  std::thread thread_;
};

}  // namespace ember

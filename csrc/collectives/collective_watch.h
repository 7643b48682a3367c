// This file declares CollectiveWatch: a thread that watches collectives
// enqueued on a device until they finish, and aborts them when a worker is
// lost (Note [Watching collectives on GPUs]).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collectives/communicator.h"
#include "core/status.h"

namespace ember::collectives {

// Note [Watching collectives on GPUs]
// A collective on a GPU is only enqueued (Note [Collectives on GPUs]): the
// kernel returns before the other workers have joined, so the host-side
// wait that names lost workers on the CPU (Note [Collective ops]) has no
// place to run. If a worker dies, its peers' NCCL kernels would wait on the
// GPU forever, and so would every reader of their results. So each GPU
// collective is handed to a CollectiveWatch, whose one thread polls it
// (a CUDA event recorded after it, and NCCL's asynchronous error) until
// it finishes. After the same quiet period as the CPU's wait it also asks
// the communicator's lost-worker check, about every 10 ms, and at the
// collective timeout (EMBER_COLLECTIVE_TIMEOUT) for the roll call. A lost
// worker, an NCCL error or the timeout aborts the collective
// (ncclCommAbort, which ends its kernels) and fails the device with that
// error (Note [Sticky CUDA errors]), so readers get the error that names
// the lost rank instead of hanging. The watch knows nothing of CUDA or
// NCCL: the kernel gives it the calls to make (Ops), which lets the host
// build test it with stand-ins.
class CollectiveWatch {
 public:
  // What the watch asks of one collective. `finished` and `async_error`
  // are polled; `abort` is called at most once, with the error; `release`
  // once, when the watch lets go of the collective (finished or aborted).
  struct Ops {
    std::function<bool()> finished;
    std::function<Status()> async_error;
    std::function<void(const Status&)> abort;
    std::function<void()> release;
  };

  struct Options {
    std::chrono::microseconds poll{2000};
    // Before this, only `finished` and `async_error` are asked.
    std::chrono::milliseconds quiet{100};
    std::chrono::milliseconds fault_check_every{10};
  };

  CollectiveWatch();
  explicit CollectiveWatch(Options options);
  ~CollectiveWatch();
  CollectiveWatch(const CollectiveWatch&) = delete;
  CollectiveWatch& operator=(const CollectiveWatch&) = delete;

  // The process's watch, started on first use and kept to the end.
  static CollectiveWatch& Global();

  // Watches one collective of `communicator`; `label` names it in errors.
  void Add(std::string label, std::shared_ptr<Communicator> communicator, Ops ops);
  // Collectives added and not yet let go of.
  size_t pending() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    std::string label;
    std::shared_ptr<Communicator> communicator;
    Ops ops;
    Clock::time_point start, deadline, next_fault_check;
  };

  void Loop();
  // True when the watch is done with `entry` (finished, or aborted).
  bool Check(Entry& entry, Clock::time_point now);
  static void Abort(Entry& entry, const Status& status);

  const Options options_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Entry> incoming_;  // under mu_
  size_t pending_ = 0;           // under mu_
  bool stop_ = false;            // under mu_
  std::thread thread_;
};

}  // namespace ember::collectives

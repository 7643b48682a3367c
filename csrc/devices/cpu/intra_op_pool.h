// This file declares IntraOpPool: the CPU device's threads for splitting
// one kernel's work (Note [Intra-op pool]).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ember {

// Note [Intra-op pool]
// A kernel splits its work into blocks and calls ParallelFor; the calling
// thread (the device's executor, or the Python thread for a kernel run at
// issue) takes blocks too, so a pool of `threads` has threads - 1 workers.
// The blocks are cut into one contiguous share per thread (the caller's
// first). Each thread runs its own share first and then claims what is left
// of the others', from their counters: a block never waits for a
// particular thread, so a region is never slower than the caller doing
// every block itself. The fixed shares keep a thread on the same part of
// the data from one call to the next, so that part stays in its core's
// cache: the MLP's weights (2.7 MB) fit in the two cores' L2 caches
// together, not in one.
//
// Why not Eigen's ThreadPool, as before: on the 2-core VMs Ember is
// measured on, waking a thread that sleeps on another core takes about 47
// us (a halted virtual CPU; docs/performance.md, "Stop 36"), and Eigen's
// pool paid it twice per region: the
// worker's wake-up when the region was posted, and the caller's when it
// blocked on the region's barrier. A [64, 784] x [784, 512] product took
// 350 us on two threads against NumPy's 240, and only 420 us on one.
// Here a worker that finished a block spins (pausing, and yielding its
// core to any other runnable thread) for kSpinAfterWork before it sleeps,
// as OpenBLAS's and OpenMP's threads do, so back-to-back kernels find it
// awake; and the caller waits for the last blocks by spinning for a while,
// then sleeping on the region's counter.
//
// One region runs at a time: a second caller (another logical CPU
// device's executor) runs its blocks alone rather than queueing behind the
// first.
class IntraOpPool {
 public:
  using RangeFn = std::function<void(int64_t first, int64_t last)>;

  // `threads` counts the caller: threads - 1 workers are started.
  explicit IntraOpPool(int threads);
  ~IntraOpPool();
  IntraOpPool(const IntraOpPool&) = delete;
  IntraOpPool& operator=(const IntraOpPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn on the blocks [b * block_size, min(n, (b + 1) * block_size))
  // covering [0, n), concurrently, and returns when every call returned.
  // Where the caller runs alone (one block, no workers, or another region
  // in flight) it makes one call, fn(0, n). fn must not throw
  // (ParallelForOnPool catches for it).
  void ParallelFor(int64_t n, int64_t block_size, const RangeFn& fn);

 private:
  struct Region;

  void WorkerLoop(int share);
  // Runs share `first_share`'s blocks, then the other shares' unclaimed ones.
  static void RunBlocks(Region& region, int first_share);
  // True once `region` has no unclaimed block left.
  static bool Exhausted(const Region& region);

  std::vector<std::thread> workers_;
  std::atomic<Region*> current_{nullptr};
  // Workers holding a Region* they loaded from current_: the caller waits
  // for none before its Region (on its stack) goes away.
  std::atomic<int> inside_{0};
  std::atomic<bool> busy_{false};  // a region is in flight (set by its caller)
  std::mutex sleep_mu_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace ember

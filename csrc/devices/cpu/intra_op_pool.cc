// This file implements IntraOpPool (Note [Intra-op pool]).
#include "devices/cpu/intra_op_pool.h"

#include <sched.h>

#include <algorithm>
#include <chrono>

#include "runtime/spin.h"

namespace ember {
namespace {

using Clock = std::chrono::steady_clock;

// How long a worker stays awake after its last block, and how long a
// caller spins for the last blocks before it sleeps.
constexpr auto kSpinAfterWork = std::chrono::microseconds(200);
constexpr auto kCallerSpin = std::chrono::microseconds(100);

}  // namespace

struct IntraOpPool::Region {
  // One thread's share of the blocks: [next, end) are unclaimed.
  struct alignas(64) Share {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };

  Region(const RangeFn* fn, int64_t n, int64_t block_size, int64_t blocks, int threads)
      : fn(fn), n(n), block_size(block_size), blocks(blocks), shares(static_cast<size_t>(threads)) {
    for (int t = 0; t < threads; ++t) {
      shares[t].next.store(blocks * t / threads, std::memory_order_relaxed);
      shares[t].end = blocks * (t + 1) / threads;
    }
  }

  const RangeFn* fn;
  int64_t n, block_size, blocks;
  std::vector<Share> shares;
  alignas(64) std::atomic<int64_t> done{0};  // blocks finished
  std::atomic<bool> caller_sleeps{false};
};

IntraOpPool::IntraOpPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

IntraOpPool::~IntraOpPool() {
  {
    std::lock_guard<std::mutex> lock(sleep_mu_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool IntraOpPool::Exhausted(const Region& region) {
  for (const Region::Share& share : region.shares) {
    if (share.next.load(std::memory_order_relaxed) < share.end) return false;
  }
  return true;
}

void IntraOpPool::RunBlocks(Region& region, int first_share) {
  const int shares = static_cast<int>(region.shares.size());
  for (int s = 0; s < shares; ++s) {
    Region::Share& share = region.shares[(first_share + s) % shares];
    for (int64_t b = share.next.fetch_add(1); b < share.end; b = share.next.fetch_add(1)) {
      const int64_t first = b * region.block_size;
      (*region.fn)(first, std::min(region.n, first + region.block_size));
      if (region.done.fetch_add(1) + 1 == region.blocks && region.caller_sleeps.load()) region.done.notify_all();
    }
  }
}

void IntraOpPool::ParallelFor(int64_t n, int64_t block_size, const RangeFn& fn) {
  if (n <= 0) return;
  block_size = std::max<int64_t>(block_size, 1);
  const int64_t blocks = (n + block_size - 1) / block_size;
  // One block, no workers, or another region in flight (another device's,
  // or this one's, from inside a block): alone.
  if (blocks == 1 || workers_.empty() || busy_.exchange(true)) {
    fn(0, n);
    return;
  }
  Region region(&fn, n, block_size, blocks, num_threads());
  current_.store(&region);
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(sleep_mu_);
    wake_.notify_all();
  }
  RunBlocks(region, 0);
  // Every block is claimed: let no new worker in, then wait for the blocks
  // still running elsewhere.
  current_.store(nullptr);
  const Clock::time_point spin_until = Clock::now() + kCallerSpin;
  for (int polls = 1; region.done.load() < blocks; ++polls) {
    if (polls % kPollsPerYield != 0) {
      CpuRelax();
      continue;
    }
    if (Clock::now() < spin_until) {
      sched_yield();
      continue;
    }
    region.caller_sleeps.store(true);
    for (int64_t seen = region.done.load(); seen < blocks; seen = region.done.load()) region.done.wait(seen);
  }
  // A worker may still hold the region's address (it loaded current_ before
  // the store above, and found nothing left to claim).
  while (inside_.load() > 0) CpuRelax();
  busy_.store(false);
}

void IntraOpPool::WorkerLoop(int share) {
  Clock::time_point last_work = Clock::now();
  for (int polls = 1; !stop_.load(std::memory_order_relaxed); ++polls) {
    if (current_.load(std::memory_order_relaxed) != nullptr) {
      inside_.fetch_add(1);
      Region* region = current_.load();
      const bool work = region != nullptr && !Exhausted(*region);
      if (work) RunBlocks(*region, share);
      inside_.fetch_sub(1);
      if (work) {
        last_work = Clock::now();
        continue;
      }
    }
    if (polls % kPollsPerYield != 0) {
      CpuRelax();
      continue;
    }
    if (Clock::now() - last_work < kSpinAfterWork) {
      sched_yield();  // another thread that wants this core gets it
      continue;
    }
    std::unique_lock<std::mutex> lock(sleep_mu_);
    sleepers_.fetch_add(1);
    wake_.wait(lock, [this] { return stop_.load() || current_.load() != nullptr; });
    sleepers_.fetch_sub(1);
    last_work = Clock::now();
  }
}

}  // namespace ember

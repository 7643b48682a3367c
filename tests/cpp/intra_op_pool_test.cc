// Tests IntraOpPool (Note [Intra-op pool]): every index runs exactly once,
// whoever runs it; concurrent and nested regions run alone instead of
// waiting; regions after the workers went to sleep still finish.
#include "devices/cpu/intra_op_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

namespace ember {
namespace {

// Runs ParallelFor over [0, n) and checks each index was visited once.
void ExpectEachIndexOnce(IntraOpPool& pool, int64_t n, int64_t block_size) {
  std::vector<std::atomic<int>> visits(static_cast<size_t>(n));
  pool.ParallelFor(n, block_size, [&](int64_t first, int64_t last) {
    ASSERT_LE(0, first);
    ASSERT_LT(first, last);
    ASSERT_LE(last, n);
    ASSERT_TRUE(last - first <= block_size || (first == 0 && last == n)) << first << ", " << last;
    for (int64_t i = first; i < last; ++i) visits[static_cast<size_t>(i)].fetch_add(1);
  });
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(visits[static_cast<size_t>(i)].load(), 1) << "index " << i;
}

TEST(IntraOpPoolTest, CountsTheCallerAsAThread) {
  EXPECT_EQ(IntraOpPool(1).num_threads(), 1);
  EXPECT_EQ(IntraOpPool(4).num_threads(), 4);
}

TEST(IntraOpPoolTest, EveryIndexOnceForManyShapes) {
  for (int threads : {1, 2, 3, 8}) {
    IntraOpPool pool(threads);
    for (int64_t n : {1, 2, 3, 7, 64, 1000, 4097}) {
      for (int64_t block : {1, 2, 5, 64, 5000}) ExpectEachIndexOnce(pool, n, block);
    }
  }
}

TEST(IntraOpPoolTest, NothingToDo) {
  IntraOpPool pool(2);
  bool called = false;
  pool.ParallelFor(0, 4, [&](int64_t, int64_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(IntraOpPoolTest, WorkersTakeBlocksWhenTheCallerIsBusy) {
  // The caller's first block waits until another thread has run a block:
  // a worker must take one while the caller is occupied.
  IntraOpPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> other_ran{false};
  pool.ParallelFor(2, 1, [&](int64_t, int64_t) {
    if (std::this_thread::get_id() != caller) {
      other_ran.store(true);
      return;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!other_ran.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  });
  EXPECT_TRUE(other_ran.load());
}

TEST(IntraOpPoolTest, AWorkerStartsWithItsOwnShare) {
  // Four blocks on two threads: the caller's share is blocks 0-1, the
  // worker's 2-3. While the caller holds block 0, the worker must start at 2.
  IntraOpPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int64_t> workers_first{-1};
  pool.ParallelFor(4, 1, [&](int64_t first, int64_t) {
    if (std::this_thread::get_id() != caller) {
      int64_t none = -1;
      workers_first.compare_exchange_strong(none, first);
      return;
    }
    if (first != 0) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (workers_first.load() < 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  });
  EXPECT_EQ(workers_first.load(), 2);
}

TEST(IntraOpPoolTest, RegionsAfterTheWorkersSleptFinish) {
  IntraOpPool pool(3);
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // longer than the workers' spin
    ExpectEachIndexOnce(pool, 100, 3);
  }
}

TEST(IntraOpPoolTest, NestedRegionsRunInline) {
  IntraOpPool pool(2);
  std::atomic<int64_t> total{0};
  pool.ParallelFor(4, 1, [&](int64_t, int64_t) {
    pool.ParallelFor(10, 2, [&](int64_t first, int64_t last) { total.fetch_add(last - first); });
  });
  EXPECT_EQ(total.load(), 40);
}

TEST(IntraOpPoolTest, ConcurrentCallersEachFinishTheirOwnRegion) {
  IntraOpPool pool(2);
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        std::atomic<int64_t> sum{0};
        pool.ParallelFor(257, 8, [&](int64_t first, int64_t last) {
          for (int64_t i = first; i < last; ++i) sum.fetch_add(i);
        });
        if (sum.load() != 257 * 256 / 2) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace ember

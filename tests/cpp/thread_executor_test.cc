// Tests ThreadExecutor: FIFO order and WaitIdle.
#include "runtime/thread_executor.h"

#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace ember {
namespace {

class FnTask : public Task {
 public:
  explicit FnTask(std::function<void()> fn, bool cheap = true) : fn_(std::move(fn)), cheap_(cheap) {}
  void Run() override { fn_(); }
  bool CheapToRunInline(InlineRunner) const override { return cheap_; }

 private:
  std::function<void()> fn_;
  bool cheap_;
};

TEST(ThreadExecutorTest, RunsTasksInFifoOrder) {
  ThreadExecutor executor("test");
  std::vector<int> order;  // only the worker writes
  for (int i = 0; i < 1000; ++i) executor.Enqueue(std::make_unique<FnTask>([&order, i] { order.push_back(i); }));
  executor.WaitIdle();
  ASSERT_EQ(order.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(order[i], i);
}

TEST(ThreadExecutorTest, WaitIdleWaitsForTheRunningTask) {
  ThreadExecutor executor("test");
  std::atomic<bool> done{false};
  executor.Enqueue(std::make_unique<FnTask>([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    done = true;
  }));
  executor.WaitIdle();
  EXPECT_TRUE(done.load());
}

TEST(ThreadExecutorTest, ManyProducers) {
  ThreadExecutor executor("test");
  std::atomic<int> count{0};
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p) {
    producers.emplace_back([&] {
      for (int i = 0; i < 500; ++i) executor.Enqueue(std::make_unique<FnTask>([&] { count++; }));
    });
  }
  for (auto& t : producers) t.join();
  executor.WaitIdle();
  EXPECT_EQ(count.load(), 2000);
}

TEST(ThreadExecutorTest, DestructorDrainsTheQueue) {
  std::atomic<int> count{0};
  {
    ThreadExecutor executor("test");
    for (int i = 0; i < 100; ++i) executor.Enqueue(std::make_unique<FnTask>([&] { count++; }));
  }
  EXPECT_EQ(count.load(), 100);
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

TEST(ThreadExecutorTest, ReadersRunNothingUnlessAllowed) {
  ThreadExecutor executor("test");
  std::atomic<int> ran{0};
  executor.Enqueue(std::make_unique<FnTask>([&] { ran++; }));
  EXPECT_FALSE(executor.TryRunOne());
  executor.WaitIdle();
  EXPECT_EQ(ran.load(), 1);
}

// Note [Readers run queued work]: reader threads and the worker share the
// queue, one task at a time, in FIFO order.
TEST(ThreadExecutorTest, ReadersAndTheWorkerRunTasksOneAtATimeInOrder) {
  ThreadExecutor executor("test", /*readers_may_run=*/true);
  constexpr int kBatch = 5000;
  std::vector<int> order;  // written by whichever thread runs the task
  std::atomic<int> running{0};
  std::atomic<bool> overlap{false};
  std::atomic<int> run_by_readers{0};
  int next = 0;
  // Batches until readers have won some tasks from the worker (each task
  // spins a little, so a reader gets its turn between two of them).
  for (int batch = 0; batch < 50 && run_by_readers.load() < 100; ++batch) {
    for (int k = 0; k < kBatch; ++k, ++next) {
      executor.Enqueue(std::make_unique<FnTask>([&, i = next] {
        if (running.fetch_add(1) != 0) overlap = true;
        order.push_back(i);
        for (volatile int spin = 0; spin < 200; spin = spin + 1) {
        }
        running.fetch_sub(1);
      }));
    }
    std::vector<std::thread> readers;
    for (int r = 0; r < 3; ++r) {
      readers.emplace_back([&] {
        while (executor.QueueLength() > 0) {
          if (executor.TryRunOne()) run_by_readers++;
        }
      });
    }
    for (auto& t : readers) t.join();
    executor.WaitIdle();
  }
  EXPECT_FALSE(overlap.load());
  ASSERT_EQ(order.size(), static_cast<size_t>(next));
  for (int i = 0; i < next; ++i) ASSERT_EQ(order[i], i);
  EXPECT_GT(run_by_readers.load(), 0);
  EXPECT_FALSE(executor.TryRunOne());  // empty queue
}

TEST(ThreadExecutorTest, ReadersLeaveTasksThatAreNotCheapToTheWorker) {
  ThreadExecutor executor("test", /*readers_may_run=*/true);
  std::atomic<bool> release{false};
  std::thread::id expensive_ran_on;
  executor.Enqueue(std::make_unique<FnTask>([&] {
    while (!release.load()) std::this_thread::yield();
  }));
  while (executor.QueueLength() != 0) std::this_thread::yield();  // the worker took it
  executor.Enqueue(std::make_unique<FnTask>([&] { expensive_ran_on = std::this_thread::get_id(); },
                                            /*cheap=*/false));
  std::atomic<int> reader_ran{0};
  std::thread reader([&] {
    while (executor.QueueLength() != 0) reader_ran += executor.TryRunOne();
  });
  release = true;
  reader.join();
  executor.WaitIdle();
  EXPECT_EQ(reader_ran.load(), 0);
  EXPECT_NE(expensive_ran_on, std::thread::id());
  EXPECT_NE(expensive_ran_on, std::this_thread::get_id());
}

TEST(ThreadExecutorTest, WorkerTakesOverAfterAReaderAndDrainsOnDestruction) {
  std::atomic<int> ran{0};
  {
    ThreadExecutor executor("test", /*readers_may_run=*/true);
    for (int i = 0; i < 100; ++i) executor.Enqueue(std::make_unique<FnTask>([&] { ran++; }));
    executor.TryRunOne();
  }
  EXPECT_EQ(ran.load(), 100);
}

// Note [Running at issue]: an idle executor lets the issuing thread run a
// cheap task at once; a busy one, or a task that is not cheap, is queued
// so that FIFO order holds.
TEST(ThreadExecutorTest, IssuerRunsACheapTaskOnlyWhenTheExecutorIsIdle) {
  ThreadExecutor executor("test", /*readers_may_run=*/true);
  executor.WaitIdle();
  std::thread::id ran_on;
  std::unique_ptr<Task> cheap = std::make_unique<FnTask>([&] { ran_on = std::this_thread::get_id(); });
  ASSERT_TRUE(executor.TryRunAtIssue(*cheap));
  EXPECT_EQ(ran_on, std::this_thread::get_id());

  std::unique_ptr<Task> expensive = std::make_unique<FnTask>([] {}, /*cheap=*/false);
  EXPECT_FALSE(executor.TryRunAtIssue(*expensive));

  // While the worker runs a task, a cheap one must queue behind it.
  std::atomic<bool> release{false};
  std::vector<int> order;
  executor.Enqueue(std::make_unique<FnTask>([&] {
    while (!release.load()) std::this_thread::yield();
    order.push_back(0);
  }));
  std::unique_ptr<Task> second = std::make_unique<FnTask>([&] { order.push_back(1); });
  EXPECT_FALSE(executor.TryRunAtIssue(*second));
  executor.Enqueue(std::move(second));
  release = true;
  executor.WaitIdle();
  EXPECT_EQ(order, (std::vector<int>{0, 1}));

  ThreadExecutor strict("strict");  // readers_may_run=false: never inline
  std::unique_ptr<Task> task = std::make_unique<FnTask>([] {});
  EXPECT_FALSE(strict.TryRunAtIssue(*task));
}

// Note [Claiming the executor]: issuers run tasks without the lock while
// the worker, readers and WaitIdle use it. Under all of them at once, one
// task runs at a time, each issuing thread's tasks run in its order, and
// WaitIdle never returns while a task runs or waits in the queue.
TEST(ThreadExecutorTest, IssuersReadersAndTheWorkerKeepOrderAndRunOneTaskAtATime) {
  ThreadExecutor executor("test", /*readers_may_run=*/true);
  constexpr int kIssuers = 3;
  constexpr int kTasks = 20000;
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::vector<std::vector<int>> ran(kIssuers);  // written only by the running task
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    while (!stop.load()) executor.TryRunOne();
  });
  std::atomic<int> idle_waits{0};
  std::thread idler([&] {
    while (!stop.load()) {
      if (executor.WaitIdleFor(std::chrono::milliseconds(1))) idle_waits++;
    }
  });
  std::vector<std::thread> issuers;
  for (int t = 0; t < kIssuers; ++t) {
    issuers.emplace_back([&, t] {
      for (int i = 0; i < kTasks; ++i) {
        // Every third task is not cheap: it must queue, so later cheap ones
        // test that issuing never overtakes it.
        auto task = std::make_unique<FnTask>(
            [&, t, i] {
              if (inside.fetch_add(1) != 0) overlaps++;
              ran[t].push_back(i);
              inside.fetch_sub(1);
            },
            /*cheap=*/i % 3 != 0);
        if (!executor.TryRunAtIssue(*task)) executor.Enqueue(std::move(task));
      }
    });
  }
  for (auto& th : issuers) th.join();
  executor.WaitIdle();
  EXPECT_EQ(executor.QueueLength(), 0u);
  stop = true;
  reader.join();
  idler.join();
  EXPECT_EQ(overlaps.load(), 0);
  for (int t = 0; t < kIssuers; ++t) {
    ASSERT_EQ(ran[t].size(), static_cast<size_t>(kTasks)) << "issuer " << t;
    for (int i = 0; i < kTasks; ++i) ASSERT_EQ(ran[t][i], i) << "issuer " << t;
  }
}

}  // namespace
}  // namespace ember

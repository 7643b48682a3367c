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
  explicit FnTask(std::function<void()> fn) : fn_(std::move(fn)) {}
  void Run() override { fn_(); }

 private:
  std::function<void()> fn_;
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

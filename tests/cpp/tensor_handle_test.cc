// Tests TensorHandle: the future behind every op output.
#include "runtime/tensor_handle.h"

#include <atomic>
#include <thread>

#include <gtest/gtest.h>

namespace ember {
namespace {

Tensor MakeScalar(float v) {
  RefPtr<Buffer> b = Buffer::Allocate(HostAllocator(), sizeof(float));
  *static_cast<float*>(b->data()) = v;
  return Tensor(DType::kFloat32, Shape(), std::move(b));
}

TEST(TensorHandleTest, MetadataKnownWhilePending) {
  auto h = TensorHandle::CreatePending(DType::kFloat64, Shape({2, 3}), nullptr);
  EXPECT_FALSE(h->IsAvailable());
  EXPECT_EQ(h->dtype(), DType::kFloat64);
  EXPECT_EQ(h->shape(), Shape({2, 3}));
}

TEST(TensorHandleTest, AwaitReturnsOnceSetReadyFromAnotherThread) {
  auto h = TensorHandle::CreatePending(DType::kFloat32, Shape(), nullptr);
  std::thread producer([h] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    h->SetReady(MakeScalar(4.5f));
  });
  EXPECT_TRUE(h->Await().ok());
  EXPECT_EQ(*h->tensor().data<float>(), 4.5f);
  producer.join();
}

TEST(TensorHandleTest, ErrorIsAValue) {
  auto h = TensorHandle::CreatePending(DType::kFloat32, Shape(), nullptr);
  h->SetError(InvalidArgument("boom"));
  EXPECT_TRUE(h->IsError());
  Status s = h->Await();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "boom");
}

TEST(TensorHandleTest, AndThenRunsImmediatelyWhenAvailable) {
  auto h = TensorHandle::CreateReady(MakeScalar(1), nullptr);
  bool ran = false;
  h->AndThen([&] { ran = true; });
  EXPECT_TRUE(ran);
}

TEST(TensorHandleTest, AndThenRunsOnPublish) {
  auto h = TensorHandle::CreatePending(DType::kFloat32, Shape(), nullptr);
  std::atomic<int> calls{0};
  for (int i = 0; i < 3; ++i) h->AndThen([&] { calls++; });
  EXPECT_EQ(calls.load(), 0);
  h->SetReady(MakeScalar(1));
  EXPECT_EQ(calls.load(), 3);
}

TEST(TensorHandleTest, ManyWaitersAllWake) {
  auto h = TensorHandle::CreatePending(DType::kFloat32, Shape(), nullptr);
  std::atomic<int> woke{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 8; ++i) waiters.emplace_back([&] { if (h->Await().ok()) woke++; });
  h->SetReady(MakeScalar(2));
  for (auto& t : waiters) t.join();
  EXPECT_EQ(woke.load(), 8);
}

// Note [Lighter handles]: handles share the wait table's slots; waiters of
// many handles at once (several per slot) all wake.
TEST(TensorHandleTest, WaitersOfManyHandlesSharingSlotsAllWake) {
  std::vector<RefPtr<TensorHandle>> handles;
  for (int i = 0; i < 256; ++i) handles.push_back(TensorHandle::CreatePending(DType::kFloat32, Shape(), nullptr));
  std::atomic<int> woke{0};
  std::vector<std::thread> waiters;
  for (int t = 0; t < 8; ++t) {
    waiters.emplace_back([&, t] {
      for (int i = t; i < 256; i += 8) {
        if (handles[i]->Await().ok()) woke++;
      }
    });
  }
  for (auto& h : handles) h->SetReady(MakeScalar(1));
  for (auto& t : waiters) t.join();
  EXPECT_EQ(woke.load(), 256);
}

// Note [Unwatched publish]: Publish skips the wait table's lock unless a
// waiter announced itself. Race a waiter that is about to sleep against the
// publish many times: a lost wake-up shows as a wait that times out.
TEST(TensorHandleTest, PublishRacingAWaiterNeverLosesTheWakeUp) {
  for (int round = 0; round < 3000; ++round) {
    auto h = TensorHandle::CreatePending(DType::kFloat32, Shape(), nullptr);
    std::atomic<bool> started{false};
    bool woke = false;
    std::thread waiter([&] {
      started = true;
      woke = h->AwaitFor(std::chrono::seconds(10));
    });
    while (!started.load()) std::this_thread::yield();
    // Vary the interleaving: some publishes land while the waiter spins,
    // others after it went to sleep.
    if (round % 2 == 0) {
      for (int spin = 0; spin < round % 64; ++spin) std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(round % 200));
    }
    h->SetReady(MakeScalar(1));
    waiter.join();
    ASSERT_TRUE(woke) << "round " << round;
  }
  // Callbacks registered while the publish happens run exactly once.
  for (int round = 0; round < 3000; ++round) {
    auto h = TensorHandle::CreatePending(DType::kFloat32, Shape(), nullptr);
    std::atomic<int> ran{0};
    std::thread registrar([&] { h->AndThen([&] { ran++; }); });
    h->SetReady(MakeScalar(1));
    registrar.join();
    ASSERT_EQ(ran.load(), 1) << "round " << round;
  }
}

}  // namespace
}  // namespace ember

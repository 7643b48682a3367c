// Tests CollectiveWatch (Note [Watching collectives on GPUs]) with stand-ins
// for the CUDA event and NCCL: finished collectives are let go of, an
// asynchronous error or a lost worker aborts, and so does the timeout.
#include "collectives/collective_watch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

namespace ember::collectives {
namespace {

using namespace std::chrono_literals;

// One watched collective's state, as the stand-in Ops see and change it.
struct Fake {
  std::atomic<bool> finished{false};
  std::mutex mu;
  Status async_error;  // under mu
  Status aborted;      // under mu
  std::atomic<int> aborts{0};
  std::atomic<int> releases{0};

  CollectiveWatch::Ops Ops() {
    CollectiveWatch::Ops ops;
    ops.finished = [this] { return finished.load(); };
    ops.async_error = [this] {
      std::lock_guard<std::mutex> lock(mu);
      return async_error;
    };
    ops.abort = [this](const Status& status) {
      std::lock_guard<std::mutex> lock(mu);
      aborted = status;
      aborts.fetch_add(1);
    };
    ops.release = [this] { releases.fetch_add(1); };
    return ops;
  }
};

CollectiveWatch::Options Fast() {
  CollectiveWatch::Options options;
  options.poll = 200us;
  options.quiet = 5ms;
  options.fault_check_every = 1ms;
  return options;
}

// A communicator that makes no MPI call: only its timeout and fault check.
std::shared_ptr<Communicator> MakeCommunicator(double timeout_s,
                                               std::function<Status(const std::string&, bool)> check_faults) {
  CommunicatorSpec spec;
  spec.size = 4;
  spec.timeout_s = timeout_s;
  spec.check_faults = std::move(check_faults);
  return std::make_shared<Communicator>(std::move(spec));
}

// Waits (up to 20 s) until `done` holds.
template <typename Pred>
bool Eventually(Pred done) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(CollectiveWatchTest, FinishedCollectivesAreLetGoOf) {
  CollectiveWatch watch(Fast());
  Fake a, b;
  auto communicator = MakeCommunicator(60, nullptr);
  watch.Add("all_reduce #1", communicator, a.Ops());
  watch.Add("all_reduce #2", communicator, b.Ops());
  EXPECT_EQ(watch.pending(), 2u);
  a.finished = true;
  ASSERT_TRUE(Eventually([&] { return a.releases.load() == 1; }));
  EXPECT_EQ(watch.pending(), 1u);
  b.finished = true;
  ASSERT_TRUE(Eventually([&] { return watch.pending() == 0; }));
  EXPECT_EQ(a.aborts.load() + b.aborts.load(), 0);
  EXPECT_EQ(b.releases.load(), 1);
}

TEST(CollectiveWatchTest, AnAsynchronousErrorAborts) {
  CollectiveWatch watch(Fast());
  Fake fake;
  {
    std::lock_guard<std::mutex> lock(fake.mu);
    fake.async_error = Internal("NCCL error: remote process exited or there was a network error");
  }
  watch.Add("all_reduce (collective #3 of worker 0)", MakeCommunicator(60, nullptr), fake.Ops());
  ASSERT_TRUE(Eventually([&] { return fake.releases.load() == 1; }));
  EXPECT_EQ(fake.aborts.load(), 1);
  std::lock_guard<std::mutex> lock(fake.mu);
  EXPECT_EQ(fake.aborted.code(), StatusCode::kInternal);
  EXPECT_NE(fake.aborted.message().find("all_reduce (collective #3 of worker 0): NCCL error"), std::string::npos)
      << fake.aborted.message();
}

TEST(CollectiveWatchTest, ALostWorkerAbortsWithTheCheckError) {
  CollectiveWatch watch(Fast());
  Fake fake;
  std::atomic<int> checks{0};
  auto communicator = MakeCommunicator(60, [&](const std::string& what, bool deadline_passed) {
    EXPECT_FALSE(deadline_passed);
    return checks.fetch_add(1) < 3 ? Status::OK() : Unavailable(what + ": worker 2 was lost");
  });
  watch.Add("broadcast", communicator, fake.Ops());
  ASSERT_TRUE(Eventually([&] { return fake.releases.load() == 1; }));
  EXPECT_EQ(fake.aborts.load(), 1);
  EXPECT_GE(checks.load(), 4);
  std::lock_guard<std::mutex> lock(fake.mu);
  EXPECT_EQ(fake.aborted.code(), StatusCode::kUnavailable);
  EXPECT_EQ(fake.aborted.message(), "broadcast: worker 2 was lost");
}

TEST(CollectiveWatchTest, TheTimeoutAbortsAfterTheRollCall) {
  CollectiveWatch watch(Fast());
  Fake fake;
  std::atomic<bool> roll_call{false};
  auto communicator = MakeCommunicator(0.05, [&](const std::string&, bool deadline_passed) {
    if (deadline_passed) roll_call = true;
    return Status::OK();  // every worker answers: a stuck one, not a lost one
  });
  watch.Add("all_gather", communicator, fake.Ops());
  ASSERT_TRUE(Eventually([&] { return fake.releases.load() == 1; }));
  EXPECT_TRUE(roll_call.load());
  std::lock_guard<std::mutex> lock(fake.mu);
  EXPECT_EQ(fake.aborted.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(fake.aborted.message().find("all_gather: not every worker joined within EMBER_COLLECTIVE_TIMEOUT"),
            std::string::npos)
      << fake.aborted.message();
}

TEST(CollectiveWatchTest, StoppingLetsGoOfWhatIsLeft) {
  Fake fake;
  {
    CollectiveWatch watch(Fast());
    watch.Add("all_reduce", MakeCommunicator(60, nullptr), fake.Ops());
  }
  EXPECT_EQ(fake.releases.load(), 1);
  EXPECT_EQ(fake.aborts.load(), 0);
}

}  // namespace
}  // namespace ember::collectives

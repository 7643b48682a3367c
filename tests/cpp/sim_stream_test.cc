// Tests SimStream: stream order, device-side waits between streams, host
// synchronization and callbacks, and the counters (Note [Streams and
// events]).
#include "devices/sim/sim_stream.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace ember {
namespace {

using std::chrono::microseconds;

TEST(SimStreamTest, RunsPostsInOrderAndCountsTickets) {
  SimStream stream("test", /*latency_us=*/0, /*launch_us=*/0);
  std::mutex mu;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) {
    const uint64_t ticket = stream.Post([&, i] {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
    });
    EXPECT_EQ(ticket, static_cast<uint64_t>(i + 1));
  }
  stream.Drain();
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(stream.counters().kernels.load(), 100u);
  EXPECT_EQ(stream.LastCompleted(), 100u);
}

// Work on `consumer` posted after Wait(event of producer) must see what the
// producer's earlier work wrote, though the producer is much slower.
TEST(SimStreamTest, DeviceSideWaitOrdersAcrossStreams) {
  SimStream producer("producer", /*latency_us=*/2000, 0);
  SimStream consumer("consumer", 0, 0);
  std::atomic<int> value{0};
  producer.Post([&] { value.store(42); });
  const Event event = producer.Record();
  consumer.Wait(event);
  std::atomic<int> seen{-1};
  const uint64_t ticket = consumer.Post([&] { seen.store(value.load()); });
  // The host did not block: the wait is the consumer stream's.
  EXPECT_FALSE(event.HasHappened());
  EXPECT_TRUE(consumer.HostWaitFor(ticket, std::chrono::seconds(10)));
  EXPECT_EQ(seen.load(), 42);
  EXPECT_EQ(consumer.counters().device_waits.load(), 1u);
  EXPECT_EQ(producer.counters().events_recorded.load(), 1u);  // the device-side wait needed one
}

TEST(SimStreamTest, WaitOnOwnOrHappenedEventIsFree) {
  SimStream a("a", 0, 0);
  SimStream b("b", 0, 0);
  a.Post([] {});
  a.Drain();
  b.Wait(Event{&a, 1});  // already happened
  b.Wait(Event{&b, 1});  // this stream's own order
  b.Wait(Event{});       // no stream: host data
  EXPECT_EQ(b.counters().device_waits.load(), 0u);
  EXPECT_EQ(b.LastPosted(), 0u);  // nothing was queued for them
}

TEST(SimStreamTest, HostSynchronizationBlocksUntilTheTicket) {
  SimStream stream("test", /*latency_us=*/3000, 0);
  std::atomic<bool> ran{false};
  // The stream is held until the first wait has timed out, so the ticket
  // cannot pass first however slowly this thread runs (under ASan).
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  stream.Post([released] { released.wait(); }, WorkKind::kMarker);
  const uint64_t ticket = stream.Post([&] { ran.store(true); });
  EXPECT_FALSE(stream.HostWaitFor(ticket, microseconds(10)));
  release.set_value();
  Event{&stream, ticket}.Synchronize();
  EXPECT_TRUE(ran.load());
  // Waiting for one ticket in two slices is one synchronization.
  EXPECT_EQ(stream.counters().host_syncs.load(), 1u);
  EXPECT_GE(stream.counters().busy_ns.load(), 3000u * 1000u);
}

TEST(SimStreamTest, OnCompletedCallsBackOnceAfterTheTicket) {
  SimStream stream("test", /*latency_us=*/1000, 0);
  std::atomic<bool> ran{false};
  std::atomic<int> calls{0};
  // The stream is held until the callback is registered, so the ticket
  // cannot pass first however slowly this thread runs (under ASan).
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  stream.Post([released] { released.wait(); }, WorkKind::kMarker);
  const uint64_t ticket = stream.Post([&] { ran.store(true); });
  stream.OnCompleted(ticket, [&] {
    EXPECT_TRUE(ran.load());
    calls.fetch_add(1);
  });
  release.set_value();
  stream.Drain();
  // The callback runs on the stream thread right after the count moved.
  for (int i = 0; i < 1000 && calls.load() == 0; ++i) std::this_thread::sleep_for(microseconds(100));
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(stream.counters().host_callbacks.load(), 1u);
  // Already passed: at once, on this thread, and not counted.
  stream.OnCompleted(ticket, [&] { calls.fetch_add(1); });
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(stream.counters().host_callbacks.load(), 1u);
}

// A copy on one stream and a kernel on another run at the same time: each
// waits (up to seconds) to see the other running, which only concurrent
// streams allow.
TEST(SimStreamTest, TwoStreamsRunConcurrently) {
  SimStream compute("compute", 0, 0);
  SimStream copies("copies", 0, 0);
  std::atomic<int> running{0};
  std::atomic<bool> compute_saw_copy{false};
  std::atomic<bool> copy_saw_compute{false};
  auto meet = [&](std::atomic<bool>* saw) {
    running.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (running.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    saw->store(running.load() == 2);
  };
  compute.Post([&] { meet(&compute_saw_copy); });
  copies.Post([&] { meet(&copy_saw_compute); }, WorkKind::kCopy);
  compute.Drain();
  copies.Drain();
  EXPECT_TRUE(compute_saw_copy.load());
  EXPECT_TRUE(copy_saw_compute.load());
  EXPECT_EQ(copies.counters().copies.load(), 1u);
  EXPECT_EQ(compute.counters().kernels.load(), 1u);
}

// Note [Simulated graphs]: the capturing thread's posts are recorded, not
// run, and take no ticket; its device-side waits are host waits; another
// thread's posts run as usual meanwhile; each replay runs before, the
// recording in order, and after, as one post.
TEST(SimStreamTest, CaptureRecordsThisThreadsPostsAndReplaysThemAsOnePost) {
  SimStream stream("compute", 0, 0);
  SimStream other("other", /*latency_us=*/2000, 0);
  std::mutex mu;
  std::vector<int> order;
  auto note = [&](int v) {
    std::lock_guard<std::mutex> lock(mu);
    order.push_back(v);
  };
  stream.Post([&] { note(0); });
  std::atomic<bool> other_done{false};
  other.Post([&] { other_done.store(true); });
  SimStream::Recording recording;
  std::atomic<bool> outsider_ran{false};
  const Status s = stream.Capture(
      [&] {
        EXPECT_EQ(stream.Post([&] { note(1); }), 1u);  // the last real ticket
        stream.Wait(other.Record());
        EXPECT_TRUE(other_done.load());  // waited on the host
        stream.Post([&] { note(2); });
        std::thread outsider([&] {
          const uint64_t ticket = stream.Post([&] { outsider_ran.store(true); });
          stream.HostWaitFor(ticket, std::chrono::seconds(10));
        });
        outsider.join();
        return Status::OK();
      },
      &recording);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(outsider_ran.load());
  ASSERT_EQ(recording.size(), 2u);
  stream.Drain();
  EXPECT_EQ(order, std::vector<int>({0}));
  auto shared = std::make_shared<const SimStream::Recording>(std::move(recording));
  for (int replay = 0; replay < 2; ++replay) {
    const uint64_t ticket = stream.PostReplay(shared, [&] { note(10); }, [&] { note(20); });
    EXPECT_TRUE(stream.HostWaitFor(ticket, std::chrono::seconds(10)));
  }
  EXPECT_EQ(order, std::vector<int>({0, 10, 1, 2, 20, 10, 1, 2, 20}));
  EXPECT_EQ(stream.LastPosted(), 4u);  // 0, the outsider's, two replays
  // A failed issue ends the capture, and the stream posts as usual.
  EXPECT_FALSE(stream.Capture([] { return Internal("no"); }, &recording).ok());
  EXPECT_EQ(stream.Post([] {}), 5u);
}

}  // namespace
}  // namespace ember

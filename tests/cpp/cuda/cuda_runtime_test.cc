// Tests the GPU device runtime's host side against FakeCudaApi (Note [CUDA
// API seam]): stream order and tickets, lazy events, held work, waits
// across streams and devices, callbacks, copies with pinned staging, the
// caching allocator's out-of-memory path, and sticky failures.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/device_access.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_memory.h"
#include "devices/cuda/cuda_stream.h"
#include "fake_cuda_api.h"

namespace ember::cuda {
namespace {

using testing::FakeCudaApi;
using std::chrono::milliseconds;

TEST(CudaErrorTest, StickyErrorsAreTheContextBreakingOnes) {
  EXPECT_TRUE(IsStickyError(kErrorIllegalAddress));
  EXPECT_TRUE(IsStickyError(kErrorLaunchFailure));
  EXPECT_TRUE(IsStickyError(710));  // a device-side assert
  EXPECT_FALSE(IsStickyError(kSuccess));
  EXPECT_FALSE(IsStickyError(kErrorMemoryAllocation));
  EXPECT_FALSE(IsStickyError(kErrorNotReady));
  EXPECT_FALSE(IsStickyError(1));  // invalid value: that call only
}

TEST(CudaErrorTest, StatusNamesTheCallAndTheError) {
  FakeCudaApi api;
  Status oom = api.ToStatus(kErrorMemoryAllocation, "cudaMalloc");
  EXPECT_EQ(oom.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(oom.message().find("cudaMalloc failed: cudaErrorMemoryAllocation"), std::string::npos);
  Status fault = api.ToStatus(kErrorIllegalAddress, "a kernel");
  EXPECT_EQ(fault.code(), StatusCode::kInternal);
  EXPECT_NE(fault.message().find("illegal memory access"), std::string::npos);
}

struct StreamFixture : ::testing::Test {
  FakeCudaApi api{2};
  DeviceHealth health;
  // A post as a kernel launch would make it: device work in stream order.
  uint64_t Launch(CudaStream& s, std::function<void()> fn) {
    return s.Post([this, h = s.handle(), fn = std::move(fn)] { api.LaunchHostWork(h, fn); });
  }
};

TEST_F(StreamFixture, PostsRunInOrderAndTicketsCount) {
  CudaStream s("s", &api, 0, nullptr, &health);
  std::vector<int> order;
  for (int i = 0; i < 40; ++i) EXPECT_EQ(Launch(s, [&order, i] { order.push_back(i); }), uint64_t(i + 1));
  s.Drain();
  ASSERT_EQ(order.size(), 40u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(s.LastCompleted(), 40u);
  EXPECT_EQ(s.counters().kernels.load(), 40u);
  EXPECT_TRUE(s.Failure().ok());
}

// Note [CUDA streams and tickets]: an event every kMarkInterval posts, and
// none per post.
TEST_F(StreamFixture, EventsAreRecordedOnlyWhereNeeded) {
  CudaStream s("s", &api, 0, nullptr, &health);
  for (int i = 0; i < 64; ++i) Launch(s, [] {});
  EXPECT_EQ(s.events_recorded_total(), 64 / CudaStream::kMarkInterval);
  s.Drain();  // covered by the last mark already
  EXPECT_EQ(s.events_recorded_total(), 64 / CudaStream::kMarkInterval);
  Launch(s, [] {});
  s.Drain();  // needs one more
  EXPECT_EQ(s.events_recorded_total(), 64 / CudaStream::kMarkInterval + 1);
  // Events are pooled: once the pool holds as many as were outstanding at
  // once, another run of posts creates none.
  // The gates keep all of a run's events outstanding at once. Each run
  // waits for its interval marks before draining, so the drain's mark
  // takes an event they gave back: without that wait, whether the pool
  // has one yet depends on when the fake stream's thread ran the work,
  // and a second run could need one event more than the first.
  const auto settle_and_drain = [&s] {
    s.BlockUntil(s.LastPosted() / CudaStream::kMarkInterval * CudaStream::kMarkInterval, std::chrono::seconds(60));
    s.Drain();
  };
  auto gate = api.Block(s.handle());
  for (int i = 0; i < 320; ++i) Launch(s, [] {});
  gate->Open();
  settle_and_drain();
  const int created = api.events_created();
  EXPECT_GE(created, 20);
  const uint64_t before = s.events_recorded_total();
  gate = api.Block(s.handle());
  for (int i = 0; i < 320; ++i) Launch(s, [] {});
  gate->Open();
  settle_and_drain();
  EXPECT_EQ(api.events_created(), created);
  // 320 posts from ticket 386: 20 interval marks, and one for the drain
  // (the last ticket, 705, is not on the interval).
  EXPECT_EQ(s.events_recorded_total() - before, 21u);
}

// The work object, and what it captured, lives until the GPU finished it.
TEST_F(StreamFixture, WorkIsHeldUntilItsTicketFinished) {
  CudaStream s("s", &api, 0, nullptr, &health);
  auto gate = api.Block(s.handle());
  auto captured = std::make_shared<int>(7);
  const uint64_t ticket = s.Post([this, h = s.handle(), captured] { api.LaunchHostWork(h, [] {}); });
  EXPECT_EQ(captured.use_count(), 2);
  EXPECT_FALSE(s.BlockUntil(ticket, std::chrono::microseconds(2000)));
  EXPECT_EQ(captured.use_count(), 2);  // still queued: still held
  gate->Open();
  EXPECT_TRUE(s.BlockUntil(ticket, milliseconds(5000)));
  EXPECT_EQ(captured.use_count(), 1);
  EXPECT_EQ(s.held_work(), 0u);
}

TEST_F(StreamFixture, DeviceSideWaitOrdersAcrossStreamsAndDevices) {
  CudaStream producer("p", &api, 0, nullptr, &health);
  CudaStream consumer("c", &api, 1, nullptr, &health);
  auto gate = api.Block(producer.handle());
  std::atomic<int> value{0};
  Launch(producer, [&] { value = 42; });
  consumer.Wait(producer.Record());
  int seen = -1;
  const uint64_t t = Launch(consumer, [&] { seen = value.load(); });
  EXPECT_FALSE(consumer.BlockUntil(t, std::chrono::microseconds(2000)));  // waits on the device, not here
  gate->Open();
  consumer.Drain();
  EXPECT_EQ(seen, 42);
  EXPECT_EQ(api.stream_waits(), 1);
  EXPECT_EQ(consumer.counters().device_waits.load(), 1u);
  // Waiting for what already happened costs nothing.
  consumer.Wait(producer.Record());
  EXPECT_EQ(api.stream_waits(), 1);
}

TEST_F(StreamFixture, CallbacksRunAfterTheirTicketInOrder) {
  CudaStream s("s", &api, 0, nullptr, &health);
  auto gate = api.Block(s.handle());
  const uint64_t t = Launch(s, [] {});
  std::atomic<int> calls{0};
  std::vector<int> order;
  std::mutex mu;
  for (int i = 0; i < 3; ++i) {
    s.OnCompleted(t, [&, i] {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
      ++calls;
    });
  }
  std::this_thread::sleep_for(milliseconds(5));
  EXPECT_EQ(calls.load(), 0);
  gate->Open();
  for (int i = 0; i < 2000 && calls.load() < 3; ++i) std::this_thread::sleep_for(milliseconds(1));
  ASSERT_EQ(calls.load(), 3);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
  // A finished ticket calls back at once, on the caller's thread.
  bool now = false;
  s.OnCompleted(t, [&] { now = true; });
  EXPECT_TRUE(now);
}

TEST_F(StreamFixture, StickyFaultFailsTheDeviceWithoutHanging) {
  CudaStream s("gpu:0 compute", &api, 0, nullptr, &health);
  CudaStream other("gpu:0 host-to-device", &api, 0, nullptr, &health);
  Launch(other, [] {});
  auto gate = api.Block(s.handle());
  api.InjectFault(s.handle(), kErrorIllegalAddress);
  const uint64_t t = Launch(s, [] {});
  gate->Open();
  EXPECT_TRUE(s.BlockUntil(t, milliseconds(5000)));  // finished, by failing
  ASSERT_FALSE(s.Failure().ok());
  EXPECT_NE(s.Failure().message().find("cudaErrorIllegalAddress"), std::string::npos);
  EXPECT_NE(s.Failure().message().find("gpu:0 compute"), std::string::npos);
  // Every stream of the device reports it and waits for nothing more.
  Launch(other, [] {});
  EXPECT_TRUE(other.BlockUntil(other.LastPosted(), milliseconds(100)));
  EXPECT_EQ(other.Failure().message(), s.Failure().message());
}

// Note [Capturing a stream]: what a capture's posts launch is recorded,
// not run; each replay runs it, between the call's copies in and out.
TEST_F(StreamFixture, CaptureRecordsTheWorkAndReplaysRunIt) {
  CudaStream s("s", &api, 0, nullptr, &health);
  for (int i = 0; i < 3; ++i) Launch(s, [] {});  // earlier work, not yet covered by a mark
  std::vector<float> input = {1, 2, 3}, staged(3, 0), output(3, 0), result(3, 0);
  auto held = std::make_shared<int>(0);
  const uint64_t before_capture = s.LastPosted();
  const uint64_t marks = s.events_recorded_total();
  std::shared_ptr<CudaGraph> graph;
  ASSERT_TRUE(s.Capture(
                   [&] {
                     // One "kernel": output = 2 * staged, as host work; and a copy.
                     EXPECT_EQ(Launch(s, [&] { for (int i = 0; i < 3; ++i) output[i] = 2 * staged[i]; }),
                               before_capture);
                     s.Post([this, h = s.handle(), held, &output, &result] {
                       api.MemcpyAsync(result.data(), output.data(), 3 * sizeof(float), h);
                     });
                     // More posts than the mark interval: still no event recorded.
                     for (int i = 0; i < 20; ++i) Launch(s, [] {});
                     // Host waits during the capture see the earlier work.
                     EXPECT_TRUE(s.BlockUntil(before_capture, milliseconds(5000)));
                     return Status::OK();
                   },
                   &graph)
                  .ok());
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(graph->num_posts(), 22u);
  EXPECT_EQ(s.LastPosted(), before_capture);  // no tickets taken
  EXPECT_EQ(s.events_recorded_total(), marks + 1);  // the one covering the earlier posts
  EXPECT_EQ(held.use_count(), 2);  // the graph keeps the captured work
  s.Drain();
  EXPECT_EQ(result, (std::vector<float>{0, 0, 0}));  // nothing ran
  EXPECT_FALSE(api.capturing(s.handle()));

  for (float scale : {1.0f, 10.0f}) {
    for (int i = 0; i < 3; ++i) input[i] *= scale;
    uint64_t ticket = 0;
    ASSERT_TRUE(s.PostGraph(
                     graph,
                     [this, h = s.handle(), &input, &staged] {
                       api.MemcpyAsync(staged.data(), input.data(), 3 * sizeof(float), h);
                     },
                     nullptr, &ticket)
                    .ok());
    EXPECT_GT(ticket, before_capture);
    ASSERT_TRUE(s.BlockUntil(ticket, milliseconds(5000)));
    EXPECT_EQ(result, (std::vector<float>{2 * input[0], 2 * input[1], 2 * input[2]}));
  }
  EXPECT_EQ(api.graph_launches(), 2);
  EXPECT_TRUE(s.Failure().ok());
  // The graph and its work objects go with the last owner.
  graph.reset();
  s.Drain();
  EXPECT_EQ(held.use_count(), 1);
  EXPECT_EQ(api.graphs_live(), 0);
}

// A wait for another stream during a capture is a host wait: the fake
// fails a device-side wait on a capturing stream, as the design requires.
TEST_F(StreamFixture, WaitsDuringACaptureAreHostWaits) {
  CudaStream s("s", &api, 0, nullptr, &health);
  CudaStream other("o", &api, 0, nullptr, &health);
  auto gate = api.Block(other.handle());
  std::atomic<int> value{0};
  Launch(other, [&] { value = 5; });
  const Event ready = other.Record();
  std::thread opener([&] {
    std::this_thread::sleep_for(milliseconds(5));
    gate->Open();
  });
  std::shared_ptr<CudaGraph> graph;
  const Status st = s.Capture(
      [&] {
        s.Wait(ready);
        EXPECT_EQ(value.load(), 5);  // the host waited
        Launch(s, [] {});
        return Status::OK();
      },
      &graph);
  opener.join();
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(api.stream_waits(), 0);
  EXPECT_TRUE(s.Failure().ok());
}

// A capture whose issuing fails ends the capture, gives no graph, and
// leaves the stream as it was: later posts run.
TEST_F(StreamFixture, FailedCaptureLeavesTheStreamUsable) {
  CudaStream s("s", &api, 0, nullptr, &health);
  auto held = std::make_shared<int>(0);
  std::shared_ptr<CudaGraph> graph;
  const Status st = s.Capture(
      [&] {
        s.Post([held] {});
        return InvalidArgument("a node failed");
      },
      &graph);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(graph, nullptr);
  EXPECT_EQ(held.use_count(), 1);  // the recorded work was dropped
  EXPECT_FALSE(api.capturing(s.handle()));
  int ran = 0;
  const uint64_t t = Launch(s, [&] { ran = 1; });
  ASSERT_TRUE(s.BlockUntil(t, milliseconds(5000)));
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(api.graphs_live(), 0);
  EXPECT_TRUE(s.Failure().ok());
}

Tensor HostTensor(Allocator* allocator, const std::vector<float>& values) {
  Tensor t(DType::kFloat32, Shape({static_cast<int64_t>(values.size())}),
           Buffer::Allocate(allocator, values.size() * sizeof(float)));
  if (!values.empty()) std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(float));
  return t;
}

struct DeviceFixture : ::testing::Test {
  static DeviceTypeId Type() {
    static DeviceTypeId type = RegisterDeviceType("gpu");
    return type;
  }
  FakeCudaApi api{2, size_t{64} << 20};
};

// Host -> device -> device -> host, through staging for a pageable source
// and directly from a pinned one; the values survive and the counters say
// which copies were staged.
TEST_F(DeviceFixture, CopiesRoundTripAndStagePageableSources) {
  CudaDevice gpu0(Type(), 0, &api);
  CudaDevice gpu1(Type(), 1, &api);
  EXPECT_EQ(gpu0.name(), "gpu:0");
  EXPECT_EQ(gpu0.description(), "Fake GPU 0");
  const std::vector<float> values = {1.5f, -2.f, 3.25f, 0.f, 1e30f};
  Tensor pageable = HostTensor(HostAllocator(), values);
  const size_t bytes = values.size() * sizeof(float);
  Tensor on0(DType::kFloat32, pageable.shape(), Buffer::Allocate(gpu0.allocator(), bytes, gpu0.stream()));
  Tensor on1(DType::kFloat32, pageable.shape(), Buffer::Allocate(gpu1.allocator(), bytes, gpu1.stream()));
  Tensor back = HostTensor(gpu0.pinned_allocator(), std::vector<float>(values.size(), 0.f));
  Event e1, e2, e3;
  ASSERT_TRUE(gpu0.CopyFromHost(pageable, on0, Event{}, &e1).ok());
  ASSERT_TRUE(gpu0.CopyToDevice(on0, &gpu1, on1, e1, &e2).ok());
  ASSERT_TRUE(gpu1.CopyToHost(on1, back, e2, &e3).ok());
  e3.Synchronize();
  EXPECT_EQ(std::memcmp(back.raw_data(), values.data(), bytes), 0);
  EXPECT_EQ(gpu0.streams()[1]->counters().staged_copies.load(), 1u);
  // A pinned source goes directly.
  Event e4;
  ASSERT_TRUE(gpu1.CopyFromHost(back, on1, Event{}, &e4).ok());
  e4.Synchronize();
  EXPECT_EQ(gpu1.streams()[1]->counters().staged_copies.load(), 0u);
  EXPECT_EQ(gpu1.streams()[1]->counters().copies.load(), 1u);
  // gpu0's peer-copy stream holds gpu1 memory until its work is released:
  // drain both before either device goes (the process never destroys
  // devices; tests do).
  for (Stream* s : gpu0.streams()) s->Drain();
  for (Stream* s : gpu1.streams()) s->Drain();
}

// Host code may not touch GPU memory (Note [Strict device memory]).
TEST_F(DeviceFixture, HostCodeCannotTouchDeviceMemory) {
  CudaDevice gpu(Type(), 0, &api);
  Tensor t(DType::kFloat32, Shape({4}), Buffer::Allocate(gpu.allocator(), 16, gpu.stream()));
  EXPECT_THROW(t.raw_data(), DeviceMemoryAccessError);
  DeviceAccessScope scope(CudaAccessDomain());
  EXPECT_NO_THROW(t.raw_data());
}

// Out of memory: nullptr (the op's ResourceExhaustedError) after the cache
// was flushed, and the device stays usable; steady state calls no cudaMalloc.
TEST_F(DeviceFixture, OutOfMemoryLeavesTheDeviceUsable) {
  FakeCudaApi small(1, size_t{40} << 20);
  CudaDevice gpu(Type(), 0, &small);
  Allocator* a = gpu.allocator();
  void* big = a->Allocate(size_t{30} << 20, gpu.stream());
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(a->Allocate(size_t{30} << 20, gpu.stream()), nullptr);
  EXPECT_FALSE(gpu.health().failed());
  a->Deallocate(big, size_t{30} << 20);
  void* again = a->Allocate(size_t{30} << 20, gpu.stream());
  EXPECT_NE(again, nullptr);
  const int mallocs = small.mallocs();
  for (int i = 0; i < 100; ++i) {
    void* p = a->Allocate(4096, gpu.stream());
    a->Deallocate(p, 4096);
  }
  EXPECT_LE(small.mallocs(), mallocs + 1);  // one small segment at most
  a->Deallocate(again, size_t{30} << 20);
  a->EmptyCache();
  EXPECT_EQ(small.device_bytes(), 0u);
}

TEST_F(DeviceFixture, StickyMallocErrorFailsTheDevice) {
  CudaDevice gpu(Type(), 0, &api);
  api.FailNextMalloc(kErrorIllegalAddress);
  EXPECT_EQ(gpu.allocator()->Allocate(1024, gpu.stream()), nullptr);
  ASSERT_TRUE(gpu.health().failed());
  Tensor src = HostTensor(HostAllocator(), {1.f});
  Tensor dst = HostTensor(HostAllocator(), {0.f});
  Event done;
  Status s = gpu.CopyToHost(src, dst, Event{}, &done);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cudaErrorIllegalAddress"), std::string::npos);
}

}  // namespace
}  // namespace ember::cuda

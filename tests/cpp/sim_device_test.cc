// Tests the simulated accelerator's strict memory (Note [Strict device
// memory]) and its copies on separate streams (Note [Device copies]).
#include "devices/sim/sim_device.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <thread>

#include "core/device_access.h"
#include "ops/op_def.h"
#include "ops/op_ids.gen.h"
#include "runtime/kernel_run.h"
#include "runtime/tensor_handle.h"

namespace ember {
namespace {

class SimDeviceTest : public ::testing::Test {
 protected:
  SimDeviceTest() : device_(RegisterDeviceType("sim"), 7, DeviceContext{}, /*latency_us=*/0, /*launch_us=*/0) {}

  Tensor DeviceTensor(int64_t n) {
    return Tensor(DType::kFloat32, Shape({n}), Buffer::Allocate(device_.allocator(), n * 4, device_.stream()));
  }

  SimDevice device_;
};

TEST_F(SimDeviceTest, HostCodeCannotTouchDeviceMemory) {
  Tensor t = DeviceTensor(4);
  EXPECT_THROW(t.raw_data(), DeviceMemoryAccessError);
  EXPECT_THROW(t.data<float>(), DeviceMemoryAccessError);
  try {
    t.raw_data();
  } catch (const DeviceMemoryAccessError& e) {
    EXPECT_NE(std::string(e.what()).find("Strict device memory"), std::string::npos);
  }
  // Host memory stays open to everyone.
  Tensor host(DType::kFloat32, Shape({4}), Buffer::Allocate(HostAllocator(), 16));
  EXPECT_NE(host.raw_data(), nullptr);
}

TEST_F(SimDeviceTest, WorkOnTheDeviceStreamsMayTouchIt) {
  Tensor t = DeviceTensor(4);
  std::atomic<bool> wrote{false};
  device_.stream()->Post([&] {
    float* p = t.data<float>();
    for (int i = 0; i < 4; ++i) p[i] = static_cast<float>(i);
    wrote.store(true);
  });
  device_.stream()->Drain();
  EXPECT_TRUE(wrote.load());
}

// Note [Kernel inputs on their device]: an input in host memory reaching a
// device kernel (a GPU would read it as an illegal address) is refused
// before the kernel runs.
TEST_F(SimDeviceTest, AKernelNeverReadsAnotherDevicesMemory) {
  KernelRun run;
  run.op = &GetOpDef(OpId::kAdd);
  run.device = &device_;
  run.inputs = {DeviceTensor(4), Tensor(DType::kFloat32, Shape({4}), Buffer::Allocate(HostAllocator(), 16))};
  const Status s = RunKernelNow(run);  // refused before the (absent) kernel would run
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("input 1 of a kernel on"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Kernel inputs on their device"), std::string::npos) << s.message();
}

TEST_F(SimDeviceTest, CopiesRoundTripThroughTheCopyStreams) {
  Tensor host_in(DType::kFloat32, Shape({3}), Buffer::Allocate(HostAllocator(), 12));
  const float values[3] = {1.5f, -2.0f, 7.0f};
  std::memcpy(host_in.raw_data(), values, sizeof(values));
  Tensor on_device = DeviceTensor(3);
  // The upload is held back until the download was enqueued behind it, so
  // the download must order itself after it on the device.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  device_.streams()[1]->Post([released] { released.wait(); }, WorkKind::kMarker);
  Event uploaded;
  ASSERT_TRUE(device_.CopyFromHost(host_in, on_device, Event{}, &uploaded).ok());
  Tensor host_out(DType::kFloat32, Shape({3}), Buffer::Allocate(HostAllocator(), 12));
  Event downloaded;
  ASSERT_TRUE(device_.CopyToHost(on_device, host_out, uploaded, &downloaded).ok());
  release.set_value();
  downloaded.Synchronize();
  EXPECT_EQ(std::memcmp(host_out.raw_data(), values, sizeof(values)), 0);
  const std::vector<Stream*> streams = device_.streams();
  ASSERT_EQ(streams.size(), 3u);
  EXPECT_EQ(streams[1]->counters().copies.load(), 1u);  // host to device
  EXPECT_EQ(streams[2]->counters().copies.load(), 1u);  // device to host
  EXPECT_EQ(streams[2]->counters().device_waits.load(), 1u);  // after the upload, on the device
}

TEST_F(SimDeviceTest, CopyOfMismatchedSizesIsRefusedAtEnqueue) {
  Tensor host_in(DType::kFloat32, Shape({2}), Buffer::Allocate(HostAllocator(), 8));
  Tensor on_device = DeviceTensor(3);
  Event done;
  EXPECT_FALSE(device_.CopyFromHost(host_in, on_device, Event{}, &done).ok());
}

// Note [Defined handles]: a handle defined with an event of a stream is
// available once the event happened, with no callback from the stream;
// a failure set on the stream before the event shows as its error, and a
// copy's output fails with its source (SetErrorSource).
TEST_F(SimDeviceTest, DefinedHandlesFollowTheirEvent) {
  SimStream slow("slow", /*latency_us=*/3000, 0);
  RefPtr<TensorHandle> value = TensorHandle::CreatePending(DType::kFloat32, Shape({4}), &device_);
  value->SetTensor(DeviceTensor(4));
  const uint64_t ticket = slow.Post([] {});
  value->MarkDefined(Event{&slow, ticket});
  EXPECT_TRUE(value->IsDefined());
  EXPECT_FALSE(value->IsAvailable());
  std::atomic<bool> called{false};
  value->AndThen([&] { called.store(true); });  // through the stream's OnCompleted
  EXPECT_TRUE(value->Await().ok());
  EXPECT_TRUE(value->IsAvailable());
  slow.Drain();
  for (int i = 0; i < 1000 && !called.load(); ++i) std::this_thread::sleep_for(std::chrono::microseconds(100));
  EXPECT_TRUE(called.load());
  EXPECT_EQ(slow.counters().host_callbacks.load(), 1u);
}

TEST_F(SimDeviceTest, FailureOnTheStreamIsTheHandlesErrorAndPassesToCopies) {
  SimStream stream("stream", /*latency_us=*/1000, 0);
  RefPtr<TensorHandle> source = TensorHandle::CreatePending(DType::kFloat32, Shape({4}), &device_);
  source->SetTensor(DeviceTensor(4));
  const uint64_t ticket = stream.Post([source] { source->SetError(InvalidArgument("bad data")); });
  source->MarkDefined(Event{&stream, ticket});
  RefPtr<TensorHandle> copy = TensorHandle::CreatePending(DType::kFloat32, Shape({4}), &device_);
  copy->SetTensor(DeviceTensor(4));
  copy->SetErrorSource(source);
  const uint64_t copied = stream.Post([] {}, WorkKind::kCopy);
  copy->MarkDefined(Event{&stream, copied});
  Status s = copy->Await();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(copy->IsError());
  EXPECT_TRUE(source->IsError());
  EXPECT_EQ(source->error().message(), "bad data");
}

}  // namespace
}  // namespace ember

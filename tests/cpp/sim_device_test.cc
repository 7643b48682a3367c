// Tests the simulated accelerator's strict memory (Note [Strict device
// memory]) and its copies on separate streams (Note [Device copies]).
#include "devices/sim/sim_device.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "core/device_access.h"

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

TEST_F(SimDeviceTest, CopiesRoundTripThroughTheCopyStreams) {
  Tensor host_in(DType::kFloat32, Shape({3}), Buffer::Allocate(HostAllocator(), 12));
  const float values[3] = {1.5f, -2.0f, 7.0f};
  std::memcpy(host_in.raw_data(), values, sizeof(values));
  Tensor on_device = DeviceTensor(3);
  Event uploaded;
  ASSERT_TRUE(device_.CopyFromHost(host_in, on_device, Event{}, &uploaded).ok());
  Tensor host_out(DType::kFloat32, Shape({3}), Buffer::Allocate(HostAllocator(), 12));
  Event downloaded;
  ASSERT_TRUE(device_.CopyToHost(on_device, host_out, uploaded, &downloaded).ok());
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

}  // namespace
}  // namespace ember

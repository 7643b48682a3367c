// This file declares SimDevice: a simulated accelerator for testing every
// cross-device path without a GPU (docs/devices.md).
#pragma once

#include <memory>

#include "core/device.h"
#include "devices/sim/sim_stream.h"

namespace ember {

// Note [Simulated accelerator]
// Memory of its own (a CachingAllocator over host pages, host_memory()
// false: reachable only through copies), one SimStream as its stream,
// an executor thread for the host side of launches, asynchronous copies,
// and the CPU's kernels, run on the stream thread through the device
// context (the CPU's intra-op pool). Placement priority 50: above the CPU,
// like a GPU.
class SimDevice final : public Device {
 public:
  SimDevice(DeviceTypeId type, int index, const DeviceContext& cpu, int64_t latency_us);
  ~SimDevice() override;

  Allocator* allocator() override { return allocator_.get(); }
  Executor* executor() override { return executor_.get(); }
  bool host_memory() const override { return false; }

  void RunInOrder(std::function<Status()> work, DoneCallback done) override;
  void CopyFromHost(const Tensor& src, Tensor dst, DoneCallback done) override;
  void CopyToHost(const Tensor& src, Tensor dst, DoneCallback done) override;
  void CopyToDevice(const Tensor& src, Device* dst_device, Tensor dst, DoneCallback done) override;

 private:
  void PostCopy(const Tensor& src, Tensor dst, DoneCallback done);

  std::unique_ptr<Allocator> allocator_;
  std::unique_ptr<SimStream> stream_;
  std::unique_ptr<Executor> executor_;
};

// With EMBER_SIMULATED_DEVICES=n, adds sim:0 .. sim:n-1 and gives them the
// CPU's kernels; EMBER_SIMULATED_LATENCY_US=k delays every kernel and copy
// by k microseconds. Call after InitCpuDevice().
void InitSimulatedDevices();

}  // namespace ember

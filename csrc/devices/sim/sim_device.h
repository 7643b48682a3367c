// This file declares SimDevice: a simulated accelerator for testing every
// cross-device path without a GPU (docs/devices.md).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/device.h"
#include "devices/sim/sim_stream.h"

namespace ember {

// Note [Simulated accelerator]
// Memory of its own (a CachingAllocator over host pages, host_memory()
// false: reachable only through copies), three SimStreams as a GPU has
// them (compute, host-to-device copies, device-to-host and peer copies),
// an executor thread for the host side of launches, asynchronous copies
// that overlap compute and stage pageable host memory through a pinned
// pool (Note [Pinned staging] in core/device.h), and the CPU's kernels, run on the compute stream's
// thread through the device context (the CPU's intra-op pool). Placement
// priority 50: above the CPU, like a GPU.
class SimDevice final : public Device {
 public:
  SimDevice(DeviceTypeId type, int index, const DeviceContext& cpu, int64_t latency_us, int64_t launch_us);
  ~SimDevice() override;

  Allocator* allocator() override { return allocator_.get(); }
  Executor* executor() override { return executor_.get(); }
  bool host_memory() const override { return false; }

  Allocator* pinned_allocator() override;
  std::vector<Stream*> streams() const override { return {compute_.get(), host_to_device_.get(), device_to_host_.get()}; }
  // Note [Simulated graphs] (sim_stream.h): replay modeled on CUDA graphs,
  // under the same setting.
  bool CanCaptureGraphs() const override { return GraphReplayEnabled(); }
  Status CaptureGraph(const std::function<Status()>& issue, std::shared_ptr<DeviceGraph>* graph) override;
  Status ReplayGraph(const std::shared_ptr<DeviceGraph>& graph, const std::vector<GraphCopy>& copies_in,
                     const std::vector<GraphCopy>& copies_out, std::vector<Tensor> keep, Event* done) override;
  Status CopyFromHost(const Tensor& src, Tensor dst, const Event& after, Event* done) override;
  Status CopyToHost(const Tensor& src, Tensor dst, const Event& after, Event* done) override;
  Status CopyToDevice(const Tensor& src, Device* dst_device, Tensor dst, const Event& after, Event* done) override;

 private:
  static Status PostCopy(SimStream* stream, const Tensor& src, Tensor dst, const Event& after, Event* done,
                         WorkKind kind = WorkKind::kCopy);

  std::unique_ptr<Allocator> allocator_;
  std::unique_ptr<SimStream> compute_;
  std::unique_ptr<SimStream> host_to_device_;
  std::unique_ptr<SimStream> device_to_host_;  // also peer copies to other simulated devices
  std::unique_ptr<Executor> executor_;
};

// Note [Strict device memory]: the access domain of every simulated
// device's memory.
const void* SimAccessDomain();

// With EMBER_SIMULATED_DEVICES=n, adds sim:0 .. sim:n-1 and gives them the
// CPU's kernels; EMBER_SIMULATED_LATENCY_US=k delays every kernel and copy
// by k microseconds on its stream, EMBER_SIMULATED_LAUNCH_US=k makes every
// post cost the posting thread k microseconds (Note [Simulated timing]).
// Call after InitCpuDevice().
void InitSimulatedDevices();

}  // namespace ember

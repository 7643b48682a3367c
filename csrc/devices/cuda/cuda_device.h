// This file declares CudaDevice: one NVIDIA GPU as an Ember device.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/device.h"
#include "devices/cuda/cuda_api.h"
#include "devices/cuda/cuda_stream.h"

namespace ember::cuda {

// What a GPU kernel needs of its device, reached through
// DeviceContext::library_handles (Note [Device context]).
struct CudaKernelEnv {
  CudaApi* api = nullptr;
  StreamHandle stream = nullptr;  // the compute stream's cudaStream_t
  int device = 0;                 // the CUDA ordinal
  int64_t max_blocks = 0;         // Note [Grid-stride launches]
  DeviceHealth* health = nullptr;
  // The status for a launch's result: OK, or the error naming the op's
  // kernel, which also marks the device failed if it is sticky.
  Status CheckLaunch(ApiResult result, const char* what) const;
  // The device's cuBLASLt handle, made on first use (on a launching
  // thread, whose current device is this one).
  Status CublasLtHandle(void** handle) const;
  // The device's cuDNN handle, bound to the compute stream, made likewise.
  Status CudnnHandle(void** handle) const;

 private:
  mutable std::mutex blas_mu_;
  mutable void* cublaslt_ = nullptr;
  mutable void* cudnn_ = nullptr;
};

// Note [CUDA device]
// A GPU as the device interface sees it (core/device.h), in the shape of
// the simulated accelerator that stood in for it (Note [Simulated
// accelerator]): device memory through a CachingAllocator over cudaMalloc
// (stream-ordered reuse, a limit, empty_cache, out of memory after one
// flush and retry); three CudaStreams — compute, host-to-device, and
// device-to-host plus peer copies — so copies overlap compute; an
// executor thread for the host side of launches (shape checks, output
// allocation, the launch itself), so Python never waits for the driver;
// pageable host sources staged through the process's pinned pool; and a
// DeviceHealth shared by the streams (Note [Sticky CUDA errors]).
// Placement priority 100: above the CPU and the simulated device, as
// TensorFlow places on a GPU when one is present.
class CudaDevice final : public Device {
 public:
  CudaDevice(DeviceTypeId type, int index, CudaApi* api);
  ~CudaDevice() override;

  Allocator* allocator() override { return allocator_.get(); }
  Executor* executor() override { return executor_.get(); }
  bool host_memory() const override { return false; }
  Allocator* pinned_allocator() override;
  DeviceErrorWords* error_words() override;
  std::vector<Stream*> streams() const override { return {compute_.get(), host_to_device_.get(), device_to_host_.get()}; }

  Status CopyFromHost(const Tensor& src, Tensor dst, const Event& after, Event* done) override;
  Status CopyToHost(const Tensor& src, Tensor dst, const Event& after, Event* done) override;
  Status CopyToDevice(const Tensor& src, Device* dst_device, Tensor dst, const Event& after, Event* done) override;

  // Note [Graph replay], over CudaStream::Capture with the allocator's
  // capture sink (Note [Capture sink]); on while GraphReplayEnabled().
  bool CanCaptureGraphs() const override;
  Status CaptureGraph(const std::function<Status()>& issue, std::shared_ptr<DeviceGraph>* graph) override;
  Status ReplayGraph(const std::shared_ptr<DeviceGraph>& graph, const std::vector<GraphCopy>& copies_in,
                     const std::vector<GraphCopy>& copies_out, std::vector<Tensor> keep, Event* done) override;

  const DeviceHealth& health() const { return health_; }
  const std::string& description() const { return description_; }  // "NVIDIA H100 80GB HBM3"
  CudaStream* compute_stream() const { return compute_.get(); }

 private:
  Status PostCopy(CudaStream* stream, const Tensor& src, Tensor dst, const Event& after, Event* done,
                  WorkKind kind = WorkKind::kCopy);

  CudaApi* api_;
  DeviceHealth health_;
  std::string description_;
  std::unique_ptr<Allocator> allocator_;
  std::unique_ptr<CudaStream> compute_;
  std::unique_ptr<CudaStream> host_to_device_;
  std::unique_ptr<CudaStream> device_to_host_;  // also peer copies
  std::unique_ptr<Executor> executor_;
  CudaKernelEnv env_;
};

// The process's pinned host pool over `api` (one for every GPU).
Allocator* PinnedPool(CudaApi* api);

}  // namespace ember::cuda

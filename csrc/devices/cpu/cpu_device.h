// This file declares CpuDevice: host memory, an async executor thread and
// a thread pool for intra-op parallelism (Note [Intra-op pool]).
#pragma once

#include <memory>

#include "core/device.h"

namespace ember {

class IntraOpPool;
class KernelRegistry;

class CpuDevice final : public Device {
 public:
  // `intra_op_threads` <= 0 means one per hardware thread.
  CpuDevice(int index, int intra_op_threads);
  // Another logical CPU device sharing `other`'s intra-op pool.
  CpuDevice(int index, const CpuDevice& other);
  ~CpuDevice() override;

  Allocator* allocator() override { return HostAllocator(); }
  Executor* executor() override { return executor_.get(); }
  bool host_memory() const override { return true; }

  // Threads that split one kernel's work, the caller's included.
  int num_intra_op_threads() const;

 private:
  void SetCpuContext();

  std::shared_ptr<IntraOpPool> pool_;
  std::unique_ptr<Executor> executor_;
};

// Adds cpu:0 to the DeviceManager and registers every CPU kernel. With
// EMBER_NUM_CPU_DEVICES=n it adds logical devices cpu:1 .. cpu:n-1 too:
// each has its own executor thread and shares the intra-op pool and host
// memory (TensorFlow's logical CPU devices; Note [Host-memory devices]).
void InitCpuDevice();

// Explicit per-family registration (csrc/kernels/cpu/*.cc).
void RegisterCpuElementwiseKernels(KernelRegistry& registry);
void RegisterCpuReductionKernels(KernelRegistry& registry);
void RegisterCpuAxisKernels(KernelRegistry& registry);
void RegisterCpuMatmulKernels(KernelRegistry& registry);
void RegisterCpuShapeKernels(KernelRegistry& registry);
void RegisterCpuMovementKernels(KernelRegistry& registry);
void RegisterCpuDebuggingKernels(KernelRegistry& registry);
void RegisterCpuNnKernels(KernelRegistry& registry);
void RegisterCpuRandomKernels(KernelRegistry& registry);
void RegisterCpuListKernels(KernelRegistry& registry);
void RegisterCpuFunctionKernels(KernelRegistry& registry);  // graph/call_function.cc
void RegisterCpuControlFlowKernels(KernelRegistry& registry);  // graph/control_flow.cc
void RegisterCpuEinsumKernels(KernelRegistry& registry);
void RegisterCpuTrainingKernels(KernelRegistry& registry);  // kernels/cpu/training.cc
void RegisterCpuLinalgKernels(KernelRegistry& registry);  // kernels/cpu/linalg.cc
void RegisterCpuSegmentKernels(KernelRegistry& registry);   // kernels/cpu/segments.cc
void RegisterCpuSignalKernels(KernelRegistry& registry);    // kernels/cpu/signal_fft.cc
void RegisterCpuImageKernels(KernelRegistry& registry);     // kernels/cpu/image_resize.cc
void RegisterCpuCollectiveKernels(KernelRegistry& registry);  // kernels/cpu/collective.cc

}  // namespace ember

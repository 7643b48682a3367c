// This file implements CpuDevice and the CPU runtime's start-up.
#include "devices/cpu/cpu_device.h"

#include <thread>

#include "devices/cpu/intra_op_pool.h"
#include "kernels/cpu/blas.h"
#include "ops/op_kernel.h"
#include "runtime/thread_executor.h"

namespace ember {

namespace {
int DefaultThreads(int requested) {
  if (requested > 0) return requested;
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}
}  // namespace

CpuDevice::CpuDevice(int index, int intra_op_threads)
    : Device(kCpuDeviceType, index, /*placement_priority=*/0),
      pool_(std::make_shared<IntraOpPool>(DefaultThreads(intra_op_threads))),
      executor_(std::make_unique<ThreadExecutor>("cpu:" + std::to_string(index), /*readers_may_run=*/true)) {
  SetCpuContext();
}

CpuDevice::CpuDevice(int index, const CpuDevice& other)
    : Device(kCpuDeviceType, index, /*placement_priority=*/0),
      pool_(other.pool_),
      executor_(std::make_unique<ThreadExecutor>("cpu:" + std::to_string(index), /*readers_may_run=*/true)) {
  SetCpuContext();
}

// No stream: CPU kernels finish inside Compute, on the executor thread.
void CpuDevice::SetCpuContext() {
  DeviceContext context;
  context.cpu_pool = pool_.get();
  context.scratch = HostAllocator();
  set_context(context);
}

CpuDevice::~CpuDevice() = default;

int CpuDevice::num_intra_op_threads() const { return pool_->num_threads(); }

void InitCpuDevice() {
  static bool done = [] {
    const char* env = std::getenv("EMBER_NUM_THREADS");
    int threads = env ? std::atoi(env) : 0;
    auto cpu0 = std::make_unique<CpuDevice>(0, threads);
    const CpuDevice& first = *cpu0;
    DeviceManager::Global().Add(std::move(cpu0));
    const char* devices = std::getenv("EMBER_NUM_CPU_DEVICES");
    for (int i = 1; devices != nullptr && i < std::atoi(devices); ++i) {
      DeviceManager::Global().Add(std::make_unique<CpuDevice>(i, first));
    }
    KernelRegistry& registry = KernelRegistry::Global();
    RegisterCpuElementwiseKernels(registry);
    RegisterCpuReductionKernels(registry);
    RegisterCpuAxisKernels(registry);
    RegisterCpuMatmulKernels(registry);
    RegisterCpuShapeKernels(registry);
    RegisterCpuMovementKernels(registry);
    RegisterCpuDebuggingKernels(registry);
    RegisterCpuNnKernels(registry);
    RegisterCpuRandomKernels(registry);
    RegisterCpuListKernels(registry);
    RegisterCpuFunctionKernels(registry);
    RegisterCpuControlFlowKernels(registry);
    RegisterCpuEinsumKernels(registry);
    RegisterCpuTrainingKernels(registry);
    RegisterCpuLinalgKernels(registry);
    RegisterCpuSegmentKernels(registry);
    RegisterCpuSignalKernels(registry);
    RegisterCpuImageKernels(registry);
    RegisterCpuCollectiveKernels(registry);
    return true;
  }();
  (void)done;
}

}  // namespace ember

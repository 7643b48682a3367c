// This file implements GPU discovery and start-up (Note [GPU discovery]).
#include "devices/cuda/cuda_init.h"

#include <dlfcn.h>

#include <atomic>

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#ifdef EMBER_HAVE_CUDNN_HEADERS
#include <cudnn_version.h>
#endif
#ifdef EMBER_HAVE_NCCL_HEADERS
#include <nccl.h>
#endif

#include "core/device.h"
#include "devices/cuda/cuda_device.h"
#include "kernels/cuda/cuda_kernels.h"
#include "ops/op_kernel.h"

// Note [Deferred CUDA registration]
// Each .cu file's static constructor hands its fat binary and kernels to the
// CUDA runtime (__cudaRegisterFatBinary), and the static runtime has a
// constructor of its own. They ran at load, in every process, GPU or not:
// `import ember` is 0.3 MiB smaller without them.
// cmake/deferred_cuda_init.ld moves those constructors, in their link order,
// out of .init_array into ember_cuda_ctors, which the loader does not run;
// Discover runs them once the driver library has loaded, before the
// runtime's first call, so the runtime sees what it saw before.
// Without that linker script (another linker, tests/cpp's executables) the
// section does not exist, these weak symbols are null, and the constructors
// ran at load as usual.
extern "C" {
__attribute__((weak, visibility("hidden"))) extern void (*const __start_ember_cuda_ctors[])();
__attribute__((weak, visibility("hidden"))) extern void (*const __stop_ember_cuda_ctors[])();
}

namespace ember {
namespace {

std::atomic<bool> g_deferred_registration_ran{false};

void RunDeferredCudaRegistration() {
  for (auto* ctor = __start_ember_cuda_ctors; ctor != __stop_ember_cuda_ctors; ++ctor) (*ctor)();
  g_deferred_registration_ran.store(true, std::memory_order_release);
}

std::string Version(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

constexpr const char* kNoDriver = "no NVIDIA driver was found (libcuda could not be loaded)";

// Note [GPU discovery without a driver]
// The CUDA runtime's first call initializes it: on a machine without the
// driver that found nothing, yet ran code spread over the static runtime's
// 490 KB of text and left heap behind; `import ember` was 0.64 MiB larger
// for it, in every process. The runtime finds the driver by loading
// libcuda.so.1, so where that library does not load there is no GPU, and
// the runtime is not asked. Where it loads, the handle stays open: the
// runtime loads the same library next.
bool DriverLibraryLoads() { return dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != nullptr; }

CudaBuildInfo Discover() {
  CudaBuildInfo info;
  info.cuda_runtime_version = CUDART_VERSION;
  info.cublas_version = Version(CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH);
#ifdef EMBER_HAVE_CUDNN_HEADERS
  info.cudnn_version = Version(CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
#endif
#ifdef EMBER_HAVE_NCCL_HEADERS
  info.nccl_version = Version(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
#endif
  info.architectures = EMBER_CUDA_ARCHITECTURES;
  if (!DriverLibraryLoads()) {
    // What the runtime itself would say, without asking it.
    info.status = "the CUDA runtime found no usable GPU: " + std::string(kNoDriver) + " (cudaErrorInsufficientDriver)";
    return info;
  }
  RunDeferredCudaRegistration();  // once: GetCudaBuildInfo's static runs Discover once
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) info.driver_version = driver;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    // Without a driver the runtime says "driver version is insufficient":
    // name the real cause.
    const std::string cause = info.driver_version == 0 ? kNoDriver
                                                       : std::string(cudaGetErrorString(error));
    info.status = "the CUDA runtime found no usable GPU: " + cause + " (" + cudaGetErrorName(error) + ")";
    cudaGetLastError();  // not sticky: clear it
    return info;
  }
  info.gpus_found = count;
  if (count == 0) info.status = "the CUDA runtime found no GPU";
  return info;
}

}  // namespace

DeferredCudaRegistration GetDeferredCudaRegistration() {
  return {static_cast<int>(__stop_ember_cuda_ctors - __start_ember_cuda_ctors),
          g_deferred_registration_ran.load(std::memory_order_acquire)};
}

const CudaBuildInfo& GetCudaBuildInfo() {
  static const CudaBuildInfo info = Discover();
  return info;
}

void InitCudaDevices() {
  static bool done = [] {
    const CudaBuildInfo& info = GetCudaBuildInfo();
    // "gpu" is a known device type even with no GPU, so `gpu:0` gets the
    // reason instead of "unknown device type".
    const DeviceTypeId type = RegisterDeviceType("gpu");
    // Registered with or without a GPU: placement only considers devices
    // that exist, and the coverage test (tests/gpu/gpu_coverage.py) lists them.
    cuda::RegisterCudaKernels(KernelRegistry::Global(), type);
    if (info.gpus_found == 0) {
      DeviceManager::Global().SetMissingDeviceNote("gpu", "CUDA is compiled in, but " + info.status);
      return true;
    }
    for (int i = 0; i < info.gpus_found && i < 64; ++i) {
      DeviceManager::Global().Add(std::make_unique<cuda::CudaDevice>(type, i, cuda::RealCudaApi()));
    }
    return true;
  }();
  (void)done;
}

}  // namespace ember

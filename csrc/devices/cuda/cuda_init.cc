// This file implements GPU discovery and start-up (Note [GPU discovery]).
#include "devices/cuda/cuda_init.h"

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

namespace ember {
namespace {

std::string Version(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

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
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) info.driver_version = driver;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    // Without a driver the runtime says "driver version is insufficient":
    // name the real cause.
    const std::string cause = info.driver_version == 0 ? "no NVIDIA driver was found (libcuda could not be loaded)"
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

// This file declares InitCudaDevices and CudaBuildInfo: GPU discovery and
// start-up for a build with the CUDA library compiled in.
#pragma once

#include <string>

namespace ember {

// Note [GPU discovery]
// The CUDA runtime is linked statically and the driver (libcuda) never is:
// the runtime loads the driver the first time Ember asks it for devices, at
// import, unless libcuda.so.1 does not load at all (Note [GPU discovery
// without a driver]). Without a driver or a GPU Ember records why,
// registers no GPU, and works as a CPU build: `gpu:0` names a device type
// it knows, so `ember.device("gpu:0")` says that no GPU was found and why,
// and ember.config.build_info() reports the same reason.
// With GPUs, each becomes a CudaDevice (Note [CUDA device]) and the GPU
// kernels are registered for "gpu".
void InitCudaDevices();

struct CudaBuildInfo {
  int cuda_runtime_version = 0;  // CUDART_VERSION this build was made with, e.g. 13000
  int driver_version = 0;        // what the loaded driver supports; 0 without one
  std::string cublas_version;    // from the headers, "13.0.0"
  std::string cudnn_version;     // from the headers, "9.13.0"; empty if none were found
  std::string nccl_version;      // from the header, "2.28.9"; empty if none was found
  std::string architectures;     // "80-real,90-real,90-virtual"
  int gpus_found = 0;
  std::string status;            // why no GPU is used, or "" when GPUs are in use
};
const CudaBuildInfo& GetCudaBuildInfo();

// The .cu files' constructors the loader left to GPU discovery, and whether
// it ran them (Note [Deferred CUDA registration] in cuda_init.cc): 0 where
// the linker did not take cmake/deferred_cuda_init.ld.
struct DeferredCudaRegistration {
  int constructors = 0;
  bool ran = false;
};
DeferredCudaRegistration GetDeferredCudaRegistration();

}  // namespace ember

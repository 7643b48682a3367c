// This file implements the parts of CudaApi that need no CUDA header: the
// error classification (Note [Sticky CUDA errors]) and ToStatus.
#include "devices/cuda/cuda_api.h"

namespace ember::cuda {

// The values are cudaError_t's (driver_types.h), checked against the
// header by a static_assert in cuda_runtime_api.cc.
bool IsStickyError(ApiResult result) {
  switch (result) {
    case 214:  // cudaErrorECCUncorrectable
    case 700:  // cudaErrorIllegalAddress
    case 702:  // cudaErrorLaunchTimeout
    case 710:  // cudaErrorAssert
    case 714:  // cudaErrorHardwareStackError
    case 715:  // cudaErrorIllegalInstruction
    case 716:  // cudaErrorMisalignedAddress
    case 717:  // cudaErrorInvalidAddressSpace
    case 718:  // cudaErrorInvalidPc
    case 719:  // cudaErrorLaunchFailure
    case 999:  // cudaErrorUnknown: assume the worst
      return true;
    default:
      return false;
  }
}

Status CudaApi::ToStatus(ApiResult result, const char* what) {
  if (result == kSuccess) return Status::OK();
  std::string message = std::string(what) + " failed: " + ErrorName(result) + " (" + ErrorString(result) + ")";
  if (result == kErrorMemoryAllocation) return ResourceExhausted(std::move(message));
  return Internal(std::move(message));
}

}  // namespace ember::cuda

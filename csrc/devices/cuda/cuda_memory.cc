// This file implements the GPU's raw memory and pinned host memory.
#include "devices/cuda/cuda_memory.h"

namespace ember::cuda {

const void* CudaAccessDomain() {
  static const char domain = 0;
  return &domain;
}

namespace {

// CUDA wants at least one byte; the caching allocator asks for whole
// segments anyway.
size_t AtLeastOne(size_t bytes) { return bytes == 0 ? 1 : bytes; }

}  // namespace

void* CudaDeviceMemory::Alloc(size_t bytes) {
  if (health_->failed()) return nullptr;
  void* ptr = nullptr;
  ApiResult r = api_->SetDevice(device_);
  if (r == kSuccess) r = api_->Malloc(&ptr, AtLeastOne(bytes));
  if (r == kSuccess) return ptr;
  // Out of memory is reported once and leaves the device usable: the
  // caching allocator flushes its cache and retries, then the op fails.
  if (IsStickyError(r)) health_->Fail(api_->ToStatus(r, "cudaMalloc"));
  api_->GetLastError();
  return nullptr;
}

void CudaDeviceMemory::Free(void* ptr, size_t) {
  api_->SetDevice(device_);
  const ApiResult r = api_->Free(ptr);
  if (r != kSuccess && IsStickyError(r)) health_->Fail(api_->ToStatus(r, "cudaFree"));
}

void* CudaPinnedMemory::Alloc(size_t bytes) {
  void* ptr = nullptr;
  if (api_->HostAlloc(&ptr, AtLeastOne(bytes)) == kSuccess) return ptr;
  api_->GetLastError();
  return nullptr;
}

void CudaPinnedMemory::Free(void* ptr, size_t) { api_->HostFree(ptr); }

}  // namespace ember::cuda

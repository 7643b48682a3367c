// This file declares the raw memory of a GPU and of pinned host memory, as
// SubAllocators for CachingAllocator.
#pragma once

#include "core/caching_allocator.h"
#include "devices/cuda/cuda_api.h"
#include "devices/cuda/cuda_stream.h"

namespace ember::cuda {

// Note [Strict device memory] (core/device_access.h): the access domain of
// every GPU's memory. One for all GPUs, so a peer copy's launch may name
// both ends.
const void* CudaAccessDomain();

// cudaMalloc and cudaFree on one GPU. Only the caching allocator calls
// them, and in steady state it does not (Note [Caching allocator sizes] in
// core/caching_allocator.cc). A sticky error on the way marks the device
// failed.
class CudaDeviceMemory final : public SubAllocator {
 public:
  CudaDeviceMemory(CudaApi* api, int device, DeviceHealth* health) : api_(api), device_(device), health_(health) {}
  void* Alloc(size_t bytes) override;
  void Free(void* ptr, size_t bytes) override;
  MemoryKind kind() const override { return MemoryKind::kDevice; }
  const char* Name() const override { return "cuda"; }
  const void* access_domain() const override { return CudaAccessDomain(); }

 private:
  CudaApi* api_;
  int device_;
  DeviceHealth* health_;
};

// cudaHostAlloc'd page-locked host memory, usable by every GPU (Note
// [Pinned staging] in core/device.h).
class CudaPinnedMemory final : public SubAllocator {
 public:
  explicit CudaPinnedMemory(CudaApi* api) : api_(api) {}
  void* Alloc(size_t bytes) override;
  void Free(void* ptr, size_t bytes) override;
  MemoryKind kind() const override { return MemoryKind::kPinnedHost; }
  const char* Name() const override { return "cuda pinned"; }

 private:
  CudaApi* api_;
};

}  // namespace ember::cuda

// This file declares the GPUs' supply of device error words (Note [Device
// error words] in core/device_error.h).
#pragma once

#include <mutex>
#include <vector>

#include "core/device_error.h"
#include "devices/cuda/cuda_api.h"

namespace ember::cuda {

// Words in page-locked host memory from cudaHostAlloc: with unified
// addressing a kernel on any GPU writes them through the same pointer the
// host reads. Allocated a slab at a time and reused; a word costs one
// lock and a 32-byte clear.
class CudaErrorWords final : public DeviceErrorWords {
 public:
  static constexpr size_t kWordsPerSlab = 128;

  explicit CudaErrorWords(CudaApi* api) : api_(api) {}
  ~CudaErrorWords() override;

  DeviceErrorWord* Acquire() override;
  void Release(DeviceErrorWord* word) override;

  // For tests: slabs allocated and words handed out now.
  size_t slabs() const;
  size_t in_use() const;

 private:
  CudaApi* const api_;
  mutable std::mutex mu_;
  std::vector<void*> slabs_;
  std::vector<DeviceErrorWord*> free_;
  size_t in_use_ = 0;
};

// The process's words over `api`, shared by its GPUs. Leaked, as values
// that carry a word may outlive static destruction.
CudaErrorWords* ErrorWordPool(CudaApi* api);

}  // namespace ember::cuda

// This file implements CudaErrorWords.
#include "devices/cuda/cuda_error_words.h"

#include <cstring>
#include <map>

namespace ember::cuda {

CudaErrorWords::~CudaErrorWords() {
  for (void* slab : slabs_) api_->HostFree(slab);
}

DeviceErrorWord* CudaErrorWords::Acquire() {
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.empty()) {
    void* slab = nullptr;
    if (api_->HostAlloc(&slab, kWordsPerSlab * sizeof(DeviceErrorWord)) != kSuccess || slab == nullptr) {
      return nullptr;
    }
    slabs_.push_back(slab);
    auto* words = static_cast<DeviceErrorWord*>(slab);
    for (size_t i = kWordsPerSlab; i-- > 0;) free_.push_back(words + i);
  }
  DeviceErrorWord* word = free_.back();
  free_.pop_back();
  ++in_use_;
  std::memset(word, 0, sizeof(*word));
  return word;
}

void CudaErrorWords::Release(DeviceErrorWord* word) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(word);
  --in_use_;
}

size_t CudaErrorWords::slabs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return slabs_.size();
}

size_t CudaErrorWords::in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

CudaErrorWords* ErrorWordPool(CudaApi* api) {
  static std::mutex mu;
  static auto* pools = new std::map<CudaApi*, CudaErrorWords*>();
  std::lock_guard<std::mutex> lock(mu);
  CudaErrorWords*& pool = (*pools)[api];
  if (pool == nullptr) pool = new CudaErrorWords(api);
  return pool;
}

}  // namespace ember::cuda

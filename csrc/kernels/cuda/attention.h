// This file declares the launcher of the GPU attention's row kernel (Note
// [GPU attention] in attention_indexing.h).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/attention_indexing.h"

namespace ember::cuda {

// In place over `rows` score rows of `lk` values: scores * scale + mask
// (M bool: false entries -inf), then each row's softmax.
template <typename T, typename M>
cudaError_t LaunchMaskedSoftmax(T* scores, const M* mask, const AttentionMaskIndex& index, int64_t rows, int64_t lk,
                                double scale, cudaStream_t stream, int64_t max_blocks);

}  // namespace ember::cuda

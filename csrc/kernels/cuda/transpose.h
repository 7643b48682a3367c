// This file declares the launcher of the CUDA transpose.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/transpose_indexing.h"

namespace ember::cuda {

// T is an unsigned integer of the element's size (Note [GPU transpose]).
template <typename T>
cudaError_t LaunchTranspose(const T* in, T* out, const TransposeIndexing& ix, cudaStream_t stream, int64_t max_blocks);

}  // namespace ember::cuda

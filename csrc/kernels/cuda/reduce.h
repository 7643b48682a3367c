// This file declares the launcher of the CUDA reductions (reduce_sum,
// _mean, _prod, _max, _min) over a ReduceIndexing (Note [GPU reductions]).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/reduce_indexing.h"

namespace ember::cuda {

enum class ReduceOp { kSum, kMean, kProd, kMax, kMin };

template <typename T>
cudaError_t LaunchReduce(ReduceOp op, const T* in, T* out, const ReduceIndexing& indexing, cudaStream_t stream,
                         int64_t max_blocks);

}  // namespace ember::cuda

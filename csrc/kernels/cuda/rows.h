// This file declares the CUDA kernels that work row by row over a
// ReduceIndexing (Note [GPU reductions]): layer normalization and the
// arg-reductions.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/reduce_indexing.h"

namespace ember::cuda {

// Note [GPU row kernels]
// A "row" is one output element of a reduction: its kept coordinates
// address the row, its reduced coordinates the row's elements (in the
// order the normalized dims are laid out, which is how gamma and beta are
// flattened). A block handles a row, its threads striding over the
// elements and combining by warp shuffles and shared memory.
//  - layer normalization: the mean, then the variance of (x - mean)
//    (two passes, as on the CPU), then y = (x - mean) / sqrt(var + eps) *
//    gamma + beta, in float32 for the half types;
//  - argmax/argmin: the first index of the best value, where a NaN is best
//    and the first NaN wins (NumPy's rule, as on the CPU).
template <typename T>
cudaError_t LaunchLayerNorm(const T* x, const T* gamma, const T* beta, T* y, const ReduceIndexing& ix, double epsilon,
                            cudaStream_t stream, int64_t max_blocks);

template <typename T, typename Index>
cudaError_t LaunchArgReduce(const T* x, Index* out, const ReduceIndexing& ix, bool max, cudaStream_t stream,
                            int64_t max_blocks);

}  // namespace ember::cuda

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

// Note [GPU two-pass reductions]
// reduce_logsumexp, _variance and _std need a first pass over each reduced
// group (its maximum, its mean) before the second (the sum of exp(x - max),
// of (x - mean)^2). A block per output does both over the same strided
// addressing, each pass combined across the block, in float32 for the half
// types: the CPU's math (Note [Row reductions] in reduction_rows.cc),
// including its shift of 0 when the maximum is not finite and NaN (-inf
// for logsumexp) for a reduction of nothing.
enum class TwoPassOp { kLogSumExp, kVariance, kStd };

template <typename T>
cudaError_t LaunchTwoPassReduce(TwoPassOp op, const T* in, T* out, const ReduceIndexing& indexing, cudaStream_t stream,
                                int64_t max_blocks);

}  // namespace ember::cuda

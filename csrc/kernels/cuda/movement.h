// This file declares the CUDA movement kernels: pad, concat and element
// fills, all moving elements by size (1, 2, 4 or 8 bytes).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/movement_body.h"

namespace ember::cuda {

// U is an unsigned integer of the element's size.
template <typename U>
cudaError_t LaunchPad(const U* in, U* out, int64_t n, const PadIndexing& p, U fill, cudaStream_t stream,
                      int64_t max_blocks);
template <typename U>
cudaError_t LaunchConcatPart(const U* in, U* out, int64_t n, int64_t width, int64_t start, int64_t out_width,
                             cudaStream_t stream, int64_t max_blocks);
// out[i] = value for i < n; `value_on_device` (one element) if not null,
// else `value`.
template <typename U>
cudaError_t LaunchFill(U* out, int64_t n, U value, const U* value_on_device, cudaStream_t stream, int64_t max_blocks);

// out[i] = condition[c(i)] ? x[x(i)] : y[y(i)] (Note: operands 0, 1, 2 of
// `ix` are the condition, x and y).
template <typename U>
cudaError_t LaunchWhere(const bool* condition, const U* x, const U* y, U* out, int64_t n, const NaryIndexing& ix,
                        cudaStream_t stream, int64_t max_blocks);
// one_hot with on and off values read from the device (one element each).
template <typename U, typename Index>
cudaError_t LaunchOneHot(const Index* indices, const U* on, const U* off, U* out, int64_t n, int64_t depth,
                         int64_t inner, cudaStream_t stream, int64_t max_blocks);

// The n elements of a strided copy (slice, strided_slice, reverse,
// broadcast_to, tile, stack, unstack, split).
template <typename U>
cudaError_t LaunchStridedCopy(const U* in, U* out, int64_t n, const StridedCopyIndexing& ix, cudaStream_t stream,
                              int64_t max_blocks);

}  // namespace ember::cuda

// This file declares the CUDA gather and scatter kernels. Indices out of
// range are reported in the launch's device error word (Note [Device
// error words] in core/device_error.h): the element is then zero (gather)
// or skipped (scatter), never read or written out of bounds.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "core/device_error_word.h"
#include "kernels/cuda/indexing_body.h"

namespace ember::cuda {

// U is an unsigned integer of the element's size; Index int32_t or int64_t.
template <typename U, typename Index>
cudaError_t LaunchGather(const U* params, const Index* indices, U* out, int64_t n, const GatherIndexing& g,
                         DeviceErrorWord* word, cudaStream_t stream, int64_t max_blocks);
template <typename U, typename Index>
cudaError_t LaunchGatherNd(const U* params, const Index* indices, U* out, int64_t n, const NdIndexing& nd,
                           DeviceErrorWord* word, cudaStream_t stream, int64_t max_blocks);

// scatter_nd: out (zeroed by the caller) += updates at the rows indices
// pick. T is float, double, __half, __nv_bfloat16, int32_t or int64_t.
template <typename T, typename Index>
cudaError_t LaunchScatterAdd(const Index* indices, const T* updates, T* out, int64_t n, const NdIndexing& nd,
                             DeviceErrorWord* word, cudaStream_t stream, int64_t max_blocks);

// tensor_scatter_nd_update over out (a copy of the tensor): the last index
// row naming a slot wins, as on the CPU. `winners` (one int64 per slot
// row, rows of them) is scratch.
template <typename U, typename Index>
cudaError_t LaunchScatterUpdate(const Index* indices, const U* updates, U* out, int64_t n, int64_t index_rows,
                                const NdIndexing& nd, int64_t* winners, int64_t rows, DeviceErrorWord* word,
                                cudaStream_t stream, int64_t max_blocks);

}  // namespace ember::cuda

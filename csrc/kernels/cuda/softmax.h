// This file declares the launcher of the CUDA softmax and log-softmax.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace ember::cuda {

// Note [GPU softmax]
// The input is viewed as [outer, n, inner] around the softmax axis; each
// of the outer * inner rows (n values, `inner` apart) is one block's: its
// threads find the row's maximum, then the sum of exp(x - max), combined
// by warp shuffles and shared memory, then write exp(x - max) / sum (or
// x - max - log(sum)). Subtracting the maximum keeps exp from
// overflowing; float16 and bfloat16 compute in float32, as on the CPU.
template <typename T>
cudaError_t LaunchSoftmax(const T* in, T* out, int64_t outer, int64_t n, int64_t inner, bool log, cudaStream_t stream,
                          int64_t max_blocks);

}  // namespace ember::cuda

// This file declares the launcher of the CUDA softmax and log-softmax.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "core/device_error_word.h"

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

// sparse_softmax_cross_entropy_with_logits over rows of `classes`
// logits, a block per row; labels out of range are reported in `word`.
template <typename T, typename I>
cudaError_t LaunchSparseSoftmaxXent(const I* labels, const T* logits, T* loss, int64_t rows, int64_t classes,
                                    DeviceErrorWord* word, cudaStream_t stream, int64_t max_blocks);
// softmax_cross_entropy_with_logits over the [outer, n, inner] view.
template <typename T>
cudaError_t LaunchSoftmaxXent(const T* labels, const T* logits, T* loss, int64_t outer, int64_t n, int64_t inner,
                              cudaStream_t stream, int64_t max_blocks);

}  // namespace ember::cuda

// This file declares the CUDA kernel of fused_elementwise (Note [GPU fused
// programs] in fused_body.h).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/fused_body.h"

namespace ember::cuda {

// Runs `code` on elements [0, n). T is float or double.
template <typename T>
cudaError_t LaunchFused(const FusedCode& code, const FusedOperands<T>& operands, int64_t n, cudaStream_t stream,
                        int64_t max_blocks);

}  // namespace ember::cuda

// This file declares the launcher of the CUDA activations (relu6,
// leaky_relu, elu, selu, gelu, silu): the shared scalar functors of
// element_math.h, some carrying their op's parameter.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace ember::cuda {

// out[i] = f(in[i]) in ComputeType<T>, with `f` (a math:: activation)
// copied to the kernel.
template <typename T, typename F>
cudaError_t LaunchActivation(const T* in, T* out, int64_t n, F f, cudaStream_t stream, int64_t max_blocks);

}  // namespace ember::cuda

// This file declares the CUDA optimizer updates (op_defs/training.yaml):
// one pass over the variable, its slots and the gradient, with the shared
// per-element math (kernels/common/training_math.h). The scalar inputs
// (learning rate, betas, ...) are read on the device, so a step never
// waits for them on the host. T is float, double, __half or
// __nv_bfloat16; the half types compute in float.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace ember::cuda {

template <typename T>
cudaError_t LaunchGradientDescent(const T* var, const T* grad, const T* lr, T* out, int64_t n, cudaStream_t stream,
                                  int64_t max_blocks);
template <typename T>
cudaError_t LaunchMomentum(const T* var, const T* m, const T* grad, const T* lr, const T* momentum, bool nesterov,
                           T* var_out, T* m_out, int64_t n, cudaStream_t stream, int64_t max_blocks);
// scalars: lr, beta_1, beta_2, epsilon, beta_1_power, beta_2_power,
// weight_decay (the op's inputs 4..10, one element each).
template <typename T>
cudaError_t LaunchAdam(const T* var, const T* m, const T* v, const T* grad, const T* const* scalars, T* var_out,
                       T* m_out, T* v_out, int64_t n, cudaStream_t stream, int64_t max_blocks);

}  // namespace ember::cuda

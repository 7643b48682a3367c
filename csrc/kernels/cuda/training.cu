// This file defines the CUDA optimizer updates (training.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/training_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/training.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void GradientDescentKernel(const T* __restrict__ var, const T* __restrict__ grad, const T* __restrict__ lr,
                                      T* out, int64_t n) {
  using C = ComputeType<T>;
  const C rate = static_cast<C>(*lr);
  EMBER_GRID_STRIDE(i, n) {
    out[i] = static_cast<T>(math::GradientDescentStep<C>(static_cast<C>(var[i]), static_cast<C>(grad[i]), rate));
  }
}

template <typename T>
__global__ void MomentumKernel(const T* __restrict__ var, const T* __restrict__ m, const T* __restrict__ grad,
                               const T* __restrict__ lr, const T* __restrict__ momentum, bool nesterov, T* var_out,
                               T* m_out, int64_t n) {
  using C = ComputeType<T>;
  const C rate = static_cast<C>(*lr), mu = static_cast<C>(*momentum);
  EMBER_GRID_STRIDE(i, n) {
    C next_var, next_m;
    math::MomentumStep<C>(static_cast<C>(var[i]), static_cast<C>(m[i]), static_cast<C>(grad[i]), rate, mu, nesterov,
                          &next_var, &next_m);
    var_out[i] = static_cast<T>(next_var);
    m_out[i] = static_cast<T>(next_m);
  }
}

// The seven scalars by value: pointers into device memory.
template <typename T>
struct AdamInputs {
  const T* scalar[7];
};

template <typename T>
__global__ void AdamKernel(const T* __restrict__ var, const T* __restrict__ m, const T* __restrict__ v,
                           const T* __restrict__ grad, AdamInputs<T> in, T* var_out, T* m_out, T* v_out, int64_t n) {
  using C = ComputeType<T>;
  const math::AdamScalars<C> s = math::MakeAdamScalars<C>(
      static_cast<C>(*in.scalar[0]), static_cast<C>(*in.scalar[1]), static_cast<C>(*in.scalar[2]),
      static_cast<C>(*in.scalar[3]), static_cast<C>(*in.scalar[4]), static_cast<C>(*in.scalar[5]),
      static_cast<C>(*in.scalar[6]));
  EMBER_GRID_STRIDE(i, n) {
    C next_var, next_m, next_v;
    math::AdamStep<C>(static_cast<C>(var[i]), static_cast<C>(m[i]), static_cast<C>(v[i]), static_cast<C>(grad[i]), s,
                      &next_var, &next_m, &next_v);
    var_out[i] = static_cast<T>(next_var);
    m_out[i] = static_cast<T>(next_m);
    v_out[i] = static_cast<T>(next_v);
  }
}

unsigned Blocks(const LaunchConfig& c) { return static_cast<unsigned>(c.blocks); }

}  // namespace

template <typename T>
cudaError_t LaunchGradientDescent(const T* var, const T* grad, const T* lr, T* out, int64_t n, cudaStream_t stream,
                                  int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  GradientDescentKernel<T><<<Blocks(c), c.threads, 0, stream>>>(var, grad, lr, out, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchMomentum(const T* var, const T* m, const T* grad, const T* lr, const T* momentum, bool nesterov,
                           T* var_out, T* m_out, int64_t n, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  MomentumKernel<T><<<Blocks(c), c.threads, 0, stream>>>(var, m, grad, lr, momentum, nesterov, var_out, m_out, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchAdam(const T* var, const T* m, const T* v, const T* grad, const T* const* scalars, T* var_out,
                       T* m_out, T* v_out, int64_t n, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  AdamInputs<T> in;
  for (int k = 0; k < 7; ++k) in.scalar[k] = scalars[k];
  AdamKernel<T><<<Blocks(c), c.threads, 0, stream>>>(var, m, v, grad, in, var_out, m_out, v_out, n);
  return cudaGetLastError();
}

#define EMBER_TRAINING(T)                                                                                         \
  template cudaError_t LaunchGradientDescent<T>(const T*, const T*, const T*, T*, int64_t, cudaStream_t, int64_t); \
  template cudaError_t LaunchMomentum<T>(const T*, const T*, const T*, const T*, const T*, bool, T*, T*, int64_t,  \
                                         cudaStream_t, int64_t);                                                   \
  template cudaError_t LaunchAdam<T>(const T*, const T*, const T*, const T*, const T* const*, T*, T*, T*, int64_t, \
                                     cudaStream_t, int64_t);

EMBER_TRAINING(float)
EMBER_TRAINING(double)
EMBER_TRAINING(__half)
EMBER_TRAINING(__nv_bfloat16)

}  // namespace ember::cuda

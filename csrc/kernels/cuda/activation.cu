// This file defines the CUDA activation kernel and instantiates it for each
// activation over the float types.
#include "kernels/common/element_math.h"
#include "kernels/cuda/activation.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/launch_config.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T, typename F>
__global__ void ActivationKernel(const T* __restrict__ in, T* __restrict__ out, int64_t n, F f) {
  EMBER_GRID_STRIDE(i, n) { out[i] = static_cast<T>(f(static_cast<ComputeType<T>>(in[i]))); }
}

}  // namespace

template <typename T, typename F>
cudaError_t LaunchActivation(const T* in, T* out, int64_t n, F f, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig config = ForElements(n, kThreads, 1, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  ActivationKernel<T, F><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(in, out, n, f);
  return cudaGetLastError();
}

#define EMBER_ACTIVATION(F)                                                                                          \
  template cudaError_t LaunchActivation<float, math::F>(const float*, float*, int64_t, math::F, cudaStream_t,         \
                                                        int64_t);                                                    \
  template cudaError_t LaunchActivation<double, math::F>(const double*, double*, int64_t, math::F, cudaStream_t,      \
                                                         int64_t);                                                   \
  template cudaError_t LaunchActivation<__half, math::F>(const __half*, __half*, int64_t, math::F, cudaStream_t,      \
                                                         int64_t);                                                   \
  template cudaError_t LaunchActivation<__nv_bfloat16, math::F>(const __nv_bfloat16*, __nv_bfloat16*, int64_t,       \
                                                                math::F, cudaStream_t, int64_t);
EMBER_ACTIVATION(Relu6)
EMBER_ACTIVATION(LeakyRelu)
EMBER_ACTIVATION(Elu)
EMBER_ACTIVATION(Selu)
EMBER_ACTIVATION(Gelu)
EMBER_ACTIVATION(Silu)

}  // namespace ember::cuda

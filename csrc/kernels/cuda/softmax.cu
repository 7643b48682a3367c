// This file defines the CUDA softmax and log-softmax (Note [GPU softmax])
// and instantiates them for the float types.
#include "kernels/common/element_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/softmax.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

template <typename C>
__device__ C WarpMax(C v) {
  for (int offset = 16; offset > 0; offset /= 2) v = math::Maximum()(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

template <typename C>
__device__ C WarpSum(C v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The block's combined value, broadcast to every thread. `partial` holds a
// value per warp; `kMax` picks the maximum, else the sum.
template <typename C, bool kMax>
__device__ C BlockCombine(C v, C* partial) {
  v = kMax ? WarpMax(v) : WarpSum(v);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = blockDim.x / 32;
    C w = lane < warps ? partial[lane] : (kMax ? -INFINITY : C(0));
    w = kMax ? WarpMax(w) : WarpSum(w);
    if (lane == 0) partial[0] = w;
  }
  __syncthreads();
  const C result = partial[0];
  __syncthreads();  // `partial` is reused by the next combine
  return result;
}

template <typename T>
__global__ void SoftmaxRows(const T* __restrict__ in, T* __restrict__ out, int64_t outer, int64_t n, int64_t inner,
                            bool log) {
  using C = ComputeType<T>;
  __shared__ C partial[kThreads / 32];
  for (int64_t row = blockIdx.x; row < outer * inner; row += gridDim.x) {
    const int64_t base = (row / inner) * n * inner + row % inner;
    C max = -INFINITY;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) max = math::Maximum()(max, static_cast<C>(in[base + i * inner]));
    max = BlockCombine<C, true>(max, partial);
    C sum = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) sum += math::Exp()(static_cast<C>(in[base + i * inner]) - max);
    sum = BlockCombine<C, false>(sum, partial);
    const C log_sum = math::Log()(sum);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const C shifted = static_cast<C>(in[base + i * inner]) - max;
      out[base + i * inner] = static_cast<T>(log ? shifted - log_sum : math::Exp()(shifted) / sum);
    }
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchSoftmax(const T* in, T* out, int64_t outer, int64_t n, int64_t inner, bool log, cudaStream_t stream,
                          int64_t max_blocks) {
  const int64_t rows = outer * inner;
  if (rows == 0 || n == 0) return cudaSuccess;
  const int64_t blocks = rows < max_blocks ? rows : max_blocks;
  SoftmaxRows<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, outer, n, inner, log);
  return cudaGetLastError();
}

template cudaError_t LaunchSoftmax<float>(const float*, float*, int64_t, int64_t, int64_t, bool, cudaStream_t, int64_t);
template cudaError_t LaunchSoftmax<double>(const double*, double*, int64_t, int64_t, int64_t, bool, cudaStream_t, int64_t);
template cudaError_t LaunchSoftmax<__half>(const __half*, __half*, int64_t, int64_t, int64_t, bool, cudaStream_t, int64_t);
template cudaError_t LaunchSoftmax<__nv_bfloat16>(const __nv_bfloat16*, __nv_bfloat16*, int64_t, int64_t, int64_t, bool,
                                                 cudaStream_t, int64_t);

}  // namespace ember::cuda

// This file defines the CUDA row kernels (Note [GPU row kernels]) and
// instantiates them for the dtypes register_rows.cc registers.
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/reduce_body.h"
#include "kernels/cuda/rows.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

__device__ int64_t ElementOffset(const ReduceIndexing& ix, int64_t r) {
  return ix.reduced_rank == 1 ? r * ix.reduced_strides[0]
                              : ReduceOffset(r, ix.reduced_rank, ix.reduced_dims, ix.reduced_strides);
}

// The block's sum of `v`, returned to every thread.
template <typename C>
__device__ C BlockSum(C v, C* partial) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    C w = lane < static_cast<int>(blockDim.x / 32) ? partial[lane] : C(0);
    for (int offset = 16; offset > 0; offset /= 2) w += __shfl_down_sync(0xffffffffu, w, offset);
    if (lane == 0) partial[0] = w;
  }
  __syncthreads();
  const C total = partial[0];
  __syncthreads();
  return total;
}

template <typename T>
__global__ void LayerNormRows(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                              T* __restrict__ y, ReduceIndexing ix, double epsilon) {
  using C = ComputeType<T>;
  __shared__ C partial[kThreads / 32];
  const C n = static_cast<C>(ix.num_reduced);
  for (int64_t row = blockIdx.x; row < ix.num_outputs; row += gridDim.x) {
    const int64_t base = ReduceOffset(row, ix.kept_rank, ix.kept_dims, ix.kept_strides);
    C sum = 0;
    for (int64_t r = threadIdx.x; r < ix.num_reduced; r += blockDim.x) sum += static_cast<C>(x[base + ElementOffset(ix, r)]);
    const C mean = BlockSum(sum, partial) / n;
    C squares = 0;
    for (int64_t r = threadIdx.x; r < ix.num_reduced; r += blockDim.x) {
      const C d = static_cast<C>(x[base + ElementOffset(ix, r)]) - mean;
      squares += d * d;
    }
    const C inv = C(1) / sqrt(BlockSum(squares, partial) / n + static_cast<C>(epsilon));
    for (int64_t r = threadIdx.x; r < ix.num_reduced; r += blockDim.x) {
      const int64_t at = base + ElementOffset(ix, r);
      y[at] = static_cast<T>((static_cast<C>(x[at]) - mean) * inv * static_cast<C>(gamma[r]) + static_cast<C>(beta[r]));
    }
  }
}

// Whether (value a, index ia) beats (b, ib): a NaN beats numbers, then
// the better value, then the smaller index (the first occurrence).
template <typename C>
__device__ bool Beats(C a, int64_t ia, C b, int64_t ib, bool max) {
  const bool a_nan = a != a, b_nan = b != b;
  if (a_nan || b_nan) return a_nan && (!b_nan || ia < ib);
  if (a != b) return max ? a > b : a < b;
  return ia < ib;
}

template <typename T, typename Index>
__global__ void ArgReduceRows(const T* __restrict__ x, Index* __restrict__ out, ReduceIndexing ix, bool max) {
  using C = ComputeType<T>;
  __shared__ C best_values[kThreads];
  __shared__ int64_t best_indices[kThreads];
  for (int64_t row = blockIdx.x; row < ix.num_outputs; row += gridDim.x) {
    const int64_t base = ReduceOffset(row, ix.kept_rank, ix.kept_dims, ix.kept_strides);
    C best = 0;
    int64_t best_index = -1;
    for (int64_t r = threadIdx.x; r < ix.num_reduced; r += blockDim.x) {
      const C v = static_cast<C>(x[base + ElementOffset(ix, r)]);
      if (best_index < 0 || Beats(v, r, best, best_index, max)) {
        best = v;
        best_index = r;
      }
    }
    best_values[threadIdx.x] = best;
    best_indices[threadIdx.x] = best_index;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        const int other = threadIdx.x + half;
        if (best_indices[other] >= 0 &&
            (best_indices[threadIdx.x] < 0 || Beats(best_values[other], best_indices[other], best_values[threadIdx.x],
                                                    best_indices[threadIdx.x], max))) {
          best_values[threadIdx.x] = best_values[other];
          best_indices[threadIdx.x] = best_indices[other];
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = static_cast<Index>(best_indices[0]);
    __syncthreads();
  }
}

int64_t Blocks(int64_t rows, int64_t max_blocks) { return rows < max_blocks ? rows : max_blocks; }

}  // namespace

template <typename T>
cudaError_t LaunchLayerNorm(const T* x, const T* gamma, const T* beta, T* y, const ReduceIndexing& ix, double epsilon,
                            cudaStream_t stream, int64_t max_blocks) {
  if (ix.num_outputs == 0 || ix.num_reduced == 0) return cudaSuccess;
  LayerNormRows<T><<<static_cast<unsigned>(Blocks(ix.num_outputs, max_blocks)), kThreads, 0, stream>>>(
      x, gamma, beta, y, ix, epsilon);
  return cudaGetLastError();
}

template <typename T, typename Index>
cudaError_t LaunchArgReduce(const T* x, Index* out, const ReduceIndexing& ix, bool max, cudaStream_t stream,
                            int64_t max_blocks) {
  if (ix.num_outputs == 0) return cudaSuccess;
  ArgReduceRows<T, Index><<<static_cast<unsigned>(Blocks(ix.num_outputs, max_blocks)), kThreads, 0, stream>>>(
      x, out, ix, max);
  return cudaGetLastError();
}

#define EMBER_LAYER_NORM(T)                                                                                \
  template cudaError_t LaunchLayerNorm<T>(const T*, const T*, const T*, T*, const ReduceIndexing&, double, \
                                          cudaStream_t, int64_t);
EMBER_LAYER_NORM(float)
EMBER_LAYER_NORM(double)
EMBER_LAYER_NORM(__half)
EMBER_LAYER_NORM(__nv_bfloat16)

#define EMBER_ARG_REDUCE(T)                                                                                   \
  template cudaError_t LaunchArgReduce<T, int32_t>(const T*, int32_t*, const ReduceIndexing&, bool, cudaStream_t, \
                                                   int64_t);                                                    \
  template cudaError_t LaunchArgReduce<T, int64_t>(const T*, int64_t*, const ReduceIndexing&, bool, cudaStream_t, \
                                                   int64_t);
EMBER_ARG_REDUCE(float)
EMBER_ARG_REDUCE(double)
EMBER_ARG_REDUCE(__half)
EMBER_ARG_REDUCE(__nv_bfloat16)
EMBER_ARG_REDUCE(int32_t)
EMBER_ARG_REDUCE(int64_t)
EMBER_ARG_REDUCE(int8_t)
EMBER_ARG_REDUCE(int16_t)
EMBER_ARG_REDUCE(uint8_t)

}  // namespace ember::cuda

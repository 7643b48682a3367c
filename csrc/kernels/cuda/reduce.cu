// This file defines the CUDA reductions (Note [GPU reductions]) and
// instantiates them for the dtypes register_reduce.cc registers.
#include "kernels/cuda/block_combine.cuh"
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/reduce_body.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

// One thread per output element.
template <typename T, typename R>
__global__ void ReducePerThread(const T* __restrict__ in, T* __restrict__ out, ReduceIndexing ix) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < ix.num_outputs; o += stride) {
    out[o] = ReduceOutput<T, R>(in, o, ix);
  }
}

template <typename Acc, typename R>
__device__ Acc WarpCombine(Acc value) {
  for (int offset = 16; offset > 0; offset /= 2) value = R::Combine(value, __shfl_down_sync(0xffffffffu, value, offset));
  return value;
}

// One block per output element (a grid-stride loop over outputs).
template <typename T, typename R>
__global__ void ReducePerBlock(const T* __restrict__ in, T* __restrict__ out, ReduceIndexing ix) {
  using Acc = typename R::Acc;
  __shared__ Acc partial[kThreads / 32];
  for (int64_t o = blockIdx.x; o < ix.num_outputs; o += gridDim.x) {
    const int64_t base = ReduceOffset(o, ix.kept_rank, ix.kept_dims, ix.kept_strides);
    Acc acc = R::Identity();
    for (int64_t r = threadIdx.x; r < ix.num_reduced; r += blockDim.x) {
      const int64_t at = ix.reduced_rank == 1 ? r * ix.reduced_strides[0]
                                              : ReduceOffset(r, ix.reduced_rank, ix.reduced_dims, ix.reduced_strides);
      acc = R::Combine(acc, static_cast<Acc>(in[base + at]));
    }
    acc = WarpCombine<Acc, R>(acc);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
      acc = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : R::Identity();
      acc = WarpCombine<Acc, R>(acc);
      if (threadIdx.x == 0) out[o] = R::Store(acc, ix.num_reduced);
    }
    __syncthreads();  // `partial` is reused by the next output
  }
}

// Note [GPU two-pass reductions]: a block per output.
template <typename T>
__global__ void TwoPassPerBlock(const T* __restrict__ in, T* __restrict__ out, ReduceIndexing ix, TwoPassOp op) {
  using C = ComputeType<T>;
  __shared__ C partial[kThreads / 32];
  const bool lse = op == TwoPassOp::kLogSumExp;
  for (int64_t o = blockIdx.x; o < ix.num_outputs; o += gridDim.x) {
    if (ix.num_reduced == 0) {  // the same for every thread of the block
      if (threadIdx.x == 0) out[o] = static_cast<T>(lse ? C(-INFINITY) : C(NAN));
      continue;
    }
    const int64_t base = ReduceOffset(o, ix.kept_rank, ix.kept_dims, ix.kept_strides);
    auto value = [&](int64_t r) {
      const int64_t at = ix.reduced_rank == 1 ? r * ix.reduced_strides[0]
                                              : ReduceOffset(r, ix.reduced_rank, ix.reduced_dims, ix.reduced_strides);
      return static_cast<C>(in[base + at]);
    };
    C first = lse ? C(-INFINITY) : C(0);
    for (int64_t r = threadIdx.x; r < ix.num_reduced; r += blockDim.x) {
      first = lse ? math::Maximum()(first, value(r)) : first + value(r);
    }
    first = lse ? BlockCombine<C, true>(first, partial) : BlockCombine<C, false>(first, partial);
    const C n = static_cast<C>(ix.num_reduced);
    // An infinite maximum is not subtracted: that would give NaN where the
    // result is defined.
    const C shift = lse ? (math::IsFinite()(first) ? first : C(0)) : first / n;
    C second = 0;
    for (int64_t r = threadIdx.x; r < ix.num_reduced; r += blockDim.x) {
      const C d = value(r) - shift;
      second += lse ? math::Exp()(d) : d * d;
    }
    second = BlockCombine<C, false>(second, partial);
    if (threadIdx.x == 0) {
      const C result = lse ? math::Log()(second) + shift
                           : (op == TwoPassOp::kStd ? math::Sqrt()(second / n) : second / n);
      out[o] = static_cast<T>(result);
    }
  }
}

// A long reduction with fewer outputs than this goes block per output.
constexpr int64_t kFewOutputs = 2048;
constexpr int64_t kLongReduction = 512;

template <typename T, typename R>
cudaError_t Launch(const T* in, T* out, const ReduceIndexing& ix, cudaStream_t stream, int64_t max_blocks) {
  if (ix.num_outputs == 0) return cudaSuccess;
  if (ix.num_outputs < kFewOutputs && ix.num_reduced >= kLongReduction) {
    const int64_t blocks = ix.num_outputs < max_blocks ? ix.num_outputs : max_blocks;
    ReducePerBlock<T, R><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, ix);
  } else {
    const LaunchConfig config = ForElements(ix.num_outputs, kThreads, 1, max_blocks);
    ReducePerThread<T, R><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(in, out, ix);
  }
  return cudaGetLastError();
}

}  // namespace

template <typename T>
cudaError_t LaunchReduce(ReduceOp op, const T* in, T* out, const ReduceIndexing& ix, cudaStream_t stream,
                         int64_t max_blocks) {
  switch (op) {
    case ReduceOp::kSum: return Launch<T, Sum<T>>(in, out, ix, stream, max_blocks);
    case ReduceOp::kMean: return Launch<T, Mean<T>>(in, out, ix, stream, max_blocks);
    case ReduceOp::kProd: return Launch<T, Prod<T>>(in, out, ix, stream, max_blocks);
    case ReduceOp::kMax: return Launch<T, Max<T>>(in, out, ix, stream, max_blocks);
    case ReduceOp::kMin: return Launch<T, Min<T>>(in, out, ix, stream, max_blocks);
  }
  return cudaErrorInvalidValue;
}

template <typename T>
cudaError_t LaunchTwoPassReduce(TwoPassOp op, const T* in, T* out, const ReduceIndexing& ix, cudaStream_t stream,
                                int64_t max_blocks) {
  if (ix.num_outputs == 0) return cudaSuccess;
  const int64_t blocks = ix.num_outputs < max_blocks ? ix.num_outputs : max_blocks;
  TwoPassPerBlock<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, ix, op);
  return cudaGetLastError();
}

template cudaError_t LaunchTwoPassReduce<float>(TwoPassOp, const float*, float*, const ReduceIndexing&, cudaStream_t,
                                                int64_t);
template cudaError_t LaunchTwoPassReduce<double>(TwoPassOp, const double*, double*, const ReduceIndexing&,
                                                 cudaStream_t, int64_t);
template cudaError_t LaunchTwoPassReduce<__half>(TwoPassOp, const __half*, __half*, const ReduceIndexing&,
                                                 cudaStream_t, int64_t);
template cudaError_t LaunchTwoPassReduce<__nv_bfloat16>(TwoPassOp, const __nv_bfloat16*, __nv_bfloat16*,
                                                        const ReduceIndexing&, cudaStream_t, int64_t);

#define EMBER_REDUCE(T) \
  template cudaError_t LaunchReduce<T>(ReduceOp, const T*, T*, const ReduceIndexing&, cudaStream_t, int64_t);
EMBER_REDUCE(float)
EMBER_REDUCE(double)
EMBER_REDUCE(__half)
EMBER_REDUCE(__nv_bfloat16)
EMBER_REDUCE(int32_t)
EMBER_REDUCE(int64_t)
EMBER_REDUCE(int8_t)
EMBER_REDUCE(int16_t)
EMBER_REDUCE(uint8_t)  // also reduce_all and reduce_any, over bool's bytes

}  // namespace ember::cuda

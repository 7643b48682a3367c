// This file defines the CUDA unary element-wise kernel template and its
// launcher (declared in elementwise.h), for the .cu files that instantiate
// it: unary.cu (the math) and cast.cu (the casts).
#pragma once

#include "kernels/common/element_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_body.h"
#include "kernels/cuda/launch_config.h"

namespace ember::cuda {
namespace unary_detail {

constexpr int kThreads = 256;

// Note [Grid-stride launches] (launch_config.h); with `packed`, Note
// [Packed element-wise loads] (elementwise_body.h).
template <typename T, typename Out, typename F>
__global__ void UnaryKernel(const T* __restrict__ in, Out* __restrict__ out, int64_t n, bool packed) {
  UnaryThread<T, Out, F>(in, out, n, packed, static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                         static_cast<int64_t>(gridDim.x) * blockDim.x);
}

}  // namespace unary_detail

template <typename T, typename Out, typename F>
cudaError_t LaunchUnary(const T* in, Out* out, int64_t n, cudaStream_t stream, int64_t max_blocks) {
  constexpr int N = kPackOf<T, Out>;
  const bool packed = N > 1 && PackAligned(in, N) && PackAligned(out, N);
  const LaunchConfig config = ForElements(n, unary_detail::kThreads, packed ? N : 1, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  unary_detail::UnaryKernel<T, Out, F>
      <<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(in, out, n, packed);
  return cudaGetLastError();
}

}  // namespace ember::cuda

// This file defines the CUDA transpose (Note [GPU transpose]), instantiated
// per element size.
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/transpose.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void TransposeKernel(const T* __restrict__ in, T* __restrict__ out, TransposeIndexing ix) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < ix.num_elements; i += stride) {
    int64_t rest = i, from = 0;
    for (int d = ix.rank - 1; d >= 0; --d) {
      from += (rest % ix.out_dims[d]) * ix.in_strides[d];
      rest /= ix.out_dims[d];
    }
    out[i] = in[from];
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchTranspose(const T* in, T* out, const TransposeIndexing& ix, cudaStream_t stream,
                            int64_t max_blocks) {
  const LaunchConfig config = ForElements(ix.num_elements, kThreads, 1, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  TransposeKernel<T><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(in, out, ix);
  return cudaGetLastError();
}

template cudaError_t LaunchTranspose<uint8_t>(const uint8_t*, uint8_t*, const TransposeIndexing&, cudaStream_t, int64_t);
template cudaError_t LaunchTranspose<uint16_t>(const uint16_t*, uint16_t*, const TransposeIndexing&, cudaStream_t,
                                               int64_t);
template cudaError_t LaunchTranspose<uint32_t>(const uint32_t*, uint32_t*, const TransposeIndexing&, cudaStream_t,
                                               int64_t);
template cudaError_t LaunchTranspose<uint64_t>(const uint64_t*, uint64_t*, const TransposeIndexing&, cudaStream_t,
                                               int64_t);

}  // namespace ember::cuda

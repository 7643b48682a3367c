// This file defines the CUDA cumsum and cumprod kernels (scan.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/element_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/scan.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T, bool kProduct>
__global__ void ScanColumns(const T* __restrict__ in, T* __restrict__ out, int64_t outer, int64_t len, int64_t inner,
                            bool exclusive, bool reverse) {
  using C = ComputeType<T>;
  EMBER_GRID_STRIDE(column, outer * inner) {
    const int64_t base = (column / inner) * len * inner + column % inner;
    C acc = kProduct ? C(1) : C(0);
    for (int64_t s = 0; s < len; ++s) {
      const int64_t at = base + (reverse ? len - 1 - s : s) * inner;
      const C x = static_cast<C>(in[at]);
      const C next = kProduct ? math::Multiply()(acc, x) : math::Add()(acc, x);
      out[at] = static_cast<T>(exclusive ? acc : next);
      acc = next;
    }
  }
}

}  // namespace

template <typename T, bool kProduct>
cudaError_t LaunchScan(const T* in, T* out, int64_t outer, int64_t len, int64_t inner, bool exclusive, bool reverse,
                       cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(outer * inner, kThreads, 1, max_blocks);
  if (c.blocks == 0 || len == 0) return cudaSuccess;
  ScanColumns<T, kProduct><<<static_cast<unsigned>(c.blocks), c.threads, 0, stream>>>(in, out, outer, len, inner,
                                                                                       exclusive, reverse);
  return cudaGetLastError();
}

#define EMBER_SCAN(T)                                                                                     \
  template cudaError_t LaunchScan<T, false>(const T*, T*, int64_t, int64_t, int64_t, bool, bool, cudaStream_t, \
                                            int64_t);                                                      \
  template cudaError_t LaunchScan<T, true>(const T*, T*, int64_t, int64_t, int64_t, bool, bool, cudaStream_t,  \
                                           int64_t);
EMBER_SCAN(float)
EMBER_SCAN(double)
EMBER_SCAN(__half)
EMBER_SCAN(__nv_bfloat16)
EMBER_SCAN(int8_t)
EMBER_SCAN(int16_t)
EMBER_SCAN(int32_t)
EMBER_SCAN(int64_t)
EMBER_SCAN(uint8_t)

}  // namespace ember::cuda

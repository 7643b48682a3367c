// This file defines the CUDA clip_by_value and add_n kernels (nary.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/element_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/nary.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void ClipKernel(const T* __restrict__ t, const T* __restrict__ lo, const T* __restrict__ hi,
                           T* __restrict__ out, int64_t n, NaryIndexing ix) {
  using C = ComputeType<T>;
  EMBER_GRID_STRIDE(i, n) {
    out[i] = static_cast<T>(math::Clip()(static_cast<C>(t[NaryOffset(i, ix, 0)]), static_cast<C>(lo[NaryOffset(i, ix, 1)]),
                                         static_cast<C>(hi[NaryOffset(i, ix, 2)])));
  }
}

template <typename T>
__global__ void AddNKernel(AddNInputs<T> inputs, T* out, int64_t n) {
  using C = ComputeType<T>;
  EMBER_GRID_STRIDE(i, n) {
    C sum = inputs.accumulate ? static_cast<C>(out[i]) : C(0);
    for (int k = 0; k < inputs.count; ++k) sum = math::Add()(sum, static_cast<C>(inputs.in[k][i]));
    out[i] = static_cast<T>(sum);
  }
}

unsigned Blocks(const LaunchConfig& c) { return static_cast<unsigned>(c.blocks); }

}  // namespace

template <typename T>
cudaError_t LaunchClip(const T* t, const T* lo, const T* hi, T* out, int64_t n, const NaryIndexing& ix,
                       cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  ClipKernel<T><<<Blocks(c), c.threads, 0, stream>>>(t, lo, hi, out, n, ix);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchAddN(const AddNInputs<T>& inputs, T* out, int64_t n, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  AddNKernel<T><<<Blocks(c), c.threads, 0, stream>>>(inputs, out, n);
  return cudaGetLastError();
}

#define EMBER_NARY(T)                                                                                         \
  template cudaError_t LaunchClip<T>(const T*, const T*, const T*, T*, int64_t, const NaryIndexing&,       \
                                     cudaStream_t, int64_t);                                                \
  template cudaError_t LaunchAddN<T>(const AddNInputs<T>&, T*, int64_t, cudaStream_t, int64_t);
EMBER_NARY(float)
EMBER_NARY(double)
EMBER_NARY(__half)
EMBER_NARY(__nv_bfloat16)
EMBER_NARY(int8_t)
EMBER_NARY(int16_t)
EMBER_NARY(int32_t)
EMBER_NARY(int64_t)
EMBER_NARY(uint8_t)

}  // namespace ember::cuda

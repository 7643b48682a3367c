// This file defines the CUDA gather and scatter kernels (indexing.h)
// around their addressing (indexing_body.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/indexing.h"
#include "kernels/cuda/launch_config.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

// The first thread to find a bad index claims the word and says which;
// the host reads it after the kernel finished (Note [Device error words]).
__device__ void ReportIndexOutOfRange(DeviceErrorWord* word, uint32_t operand, int64_t position, int64_t value,
                                      int64_t bound) {
  const unsigned none = kDeviceErrorNone, code = kDeviceErrorIndexOutOfRange;
  if (atomicCAS(&word->code, none, code) != none) return;
  word->operand = operand;
  word->position = position;
  word->value = value;
  word->bound = bound;
  __threadfence_system();
}

template <typename U, typename Index>
__global__ void GatherKernel(const U* __restrict__ params, const Index* __restrict__ indices, U* __restrict__ out,
                             int64_t n, GatherIndexing g, DeviceErrorWord* word) {
  EMBER_GRID_STRIDE(o, n) {
    int64_t position, base;
    GatherAddress(o, g, &position, &base);
    const int64_t v = static_cast<int64_t>(indices[position]);
    if (v < 0 || v >= g.axis_dim) {
      // One report per bad index, from the thread of its first element.
      if (o % g.inner == 0) ReportIndexOutOfRange(word, 1, position, v, g.axis_dim);
      out[o] = U{0};
    } else {
      out[o] = params[base + v * g.inner];
    }
  }
}

template <typename Index>
__device__ int64_t SlotOrReport(const Index* indices, int64_t j, const NdIndexing& nd, bool report,
                                DeviceErrorWord* word, uint32_t operand) {
  int bad = 0;
  const int64_t slot = NdSlot(indices, j, nd, &bad);
  if (slot < 0 && report) {
    ReportIndexOutOfRange(word, operand, j * nd.depth + bad, static_cast<int64_t>(indices[j * nd.depth + bad]),
                          nd.dims[bad]);
  }
  return slot;
}

template <typename U, typename Index>
__global__ void GatherNdKernel(const U* __restrict__ params, const Index* __restrict__ indices, U* __restrict__ out,
                               int64_t n, NdIndexing nd, DeviceErrorWord* word) {
  EMBER_GRID_STRIDE(o, n) {
    const int64_t j = o / nd.inner, r = o % nd.inner;
    const int64_t slot = SlotOrReport(indices, j, nd, r == 0, word, 1);
    out[o] = slot < 0 ? U{0} : params[NdRow(j, slot, nd) * nd.inner + r];
  }
}

__device__ void AtomicAdd(float* p, float v) { atomicAdd(p, v); }
__device__ void AtomicAdd(double* p, double v) { atomicAdd(p, v); }
__device__ void AtomicAdd(__half* p, __half v) { atomicAdd(p, v); }
__device__ void AtomicAdd(__nv_bfloat16* p, __nv_bfloat16 v) { atomicAdd(p, v); }
__device__ void AtomicAdd(int32_t* p, int32_t v) { atomicAdd(p, v); }
// Two's complement: the unsigned sum wraps as int64 addition does.
__device__ void AtomicAdd(int64_t* p, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

template <typename T, typename Index>
__global__ void ScatterAddKernel(const Index* __restrict__ indices, const T* __restrict__ updates, T* out, int64_t n,
                                 NdIndexing nd, DeviceErrorWord* word) {
  EMBER_GRID_STRIDE(e, n) {
    const int64_t j = e / nd.inner, r = e % nd.inner;
    const int64_t slot = SlotOrReport(indices, j, nd, r == 0, word, 0);
    if (slot >= 0) AtomicAdd(out + NdRow(j, slot, nd) * nd.inner + r, updates[e]);
  }
}

// Pass 1 of an update: each slot row learns the last index row naming it.
template <typename Index>
__global__ void ScatterWinnersKernel(const Index* __restrict__ indices, int64_t index_rows, NdIndexing nd,
                                     int64_t* winners, DeviceErrorWord* word) {
  EMBER_GRID_STRIDE(j, index_rows) {
    const int64_t slot = SlotOrReport(indices, j, nd, true, word, 1);
    if (slot >= 0) {
      atomicMax(reinterpret_cast<long long*>(winners + NdRow(j, slot, nd)), static_cast<long long>(j));
    }
  }
}

// Pass 2: only the winning row's elements are written.
template <typename U, typename Index>
__global__ void ScatterUpdateKernel(const Index* __restrict__ indices, const U* __restrict__ updates, U* out,
                                    int64_t n, NdIndexing nd, const int64_t* __restrict__ winners) {
  EMBER_GRID_STRIDE(e, n) {
    const int64_t j = e / nd.inner, r = e % nd.inner;
    int bad = 0;
    const int64_t slot = NdSlot(indices, j, nd, &bad);
    if (slot < 0) continue;
    const int64_t row = NdRow(j, slot, nd);
    if (winners[row] == j) out[row * nd.inner + r] = updates[e];
  }
}

unsigned Blocks(const LaunchConfig& c) { return static_cast<unsigned>(c.blocks); }

}  // namespace

template <typename U, typename Index>
cudaError_t LaunchGather(const U* params, const Index* indices, U* out, int64_t n, const GatherIndexing& g,
                         DeviceErrorWord* word, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  GatherKernel<U, Index><<<Blocks(c), c.threads, 0, stream>>>(params, indices, out, n, g, word);
  return cudaGetLastError();
}

template <typename U, typename Index>
cudaError_t LaunchGatherNd(const U* params, const Index* indices, U* out, int64_t n, const NdIndexing& nd,
                           DeviceErrorWord* word, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  GatherNdKernel<U, Index><<<Blocks(c), c.threads, 0, stream>>>(params, indices, out, n, nd, word);
  return cudaGetLastError();
}

template <typename T, typename Index>
cudaError_t LaunchScatterAdd(const Index* indices, const T* updates, T* out, int64_t n, const NdIndexing& nd,
                             DeviceErrorWord* word, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  ScatterAddKernel<T, Index><<<Blocks(c), c.threads, 0, stream>>>(indices, updates, out, n, nd, word);
  return cudaGetLastError();
}

template <typename U, typename Index>
cudaError_t LaunchScatterUpdate(const Index* indices, const U* updates, U* out, int64_t n, int64_t index_rows,
                                const NdIndexing& nd, int64_t* winners, int64_t rows, DeviceErrorWord* word,
                                cudaStream_t stream, int64_t max_blocks) {
  if (index_rows == 0) return cudaSuccess;
  cudaError_t e = cudaMemsetAsync(winners, 0xff, static_cast<size_t>(rows) * sizeof(int64_t), stream);  // all -1
  if (e != cudaSuccess) return e;
  const LaunchConfig rc = ForElements(index_rows, kThreads, 1, max_blocks);
  ScatterWinnersKernel<Index><<<Blocks(rc), rc.threads, 0, stream>>>(indices, index_rows, nd, winners, word);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  ScatterUpdateKernel<U, Index><<<Blocks(c), c.threads, 0, stream>>>(indices, updates, out, n, nd, winners);
  return cudaGetLastError();
}

#define EMBER_INSTANTIATE_BY_SIZE(U, Index)                                                                    \
  template cudaError_t LaunchGather<U, Index>(const U*, const Index*, U*, int64_t, const GatherIndexing&,       \
                                              DeviceErrorWord*, cudaStream_t, int64_t);                       \
  template cudaError_t LaunchGatherNd<U, Index>(const U*, const Index*, U*, int64_t, const NdIndexing&,         \
                                                DeviceErrorWord*, cudaStream_t, int64_t);                     \
  template cudaError_t LaunchScatterUpdate<U, Index>(const Index*, const U*, U*, int64_t, int64_t,             \
                                                     const NdIndexing&, int64_t*, int64_t, DeviceErrorWord*, \
                                                     cudaStream_t, int64_t);
#define EMBER_INSTANTIATE_ADD(T, Index)                                                                     \
  template cudaError_t LaunchScatterAdd<T, Index>(const Index*, const T*, T*, int64_t, const NdIndexing&, \
                                                  DeviceErrorWord*, cudaStream_t, int64_t);

#define EMBER_INSTANTIATE_FOR_INDEX(Index) \
  EMBER_INSTANTIATE_BY_SIZE(uint8_t, Index)  \
  EMBER_INSTANTIATE_BY_SIZE(uint16_t, Index) \
  EMBER_INSTANTIATE_BY_SIZE(uint32_t, Index) \
  EMBER_INSTANTIATE_BY_SIZE(uint64_t, Index) \
  EMBER_INSTANTIATE_ADD(float, Index)        \
  EMBER_INSTANTIATE_ADD(double, Index)       \
  EMBER_INSTANTIATE_ADD(__half, Index)       \
  EMBER_INSTANTIATE_ADD(__nv_bfloat16, Index) \
  EMBER_INSTANTIATE_ADD(int32_t, Index)      \
  EMBER_INSTANTIATE_ADD(int64_t, Index)

EMBER_INSTANTIATE_FOR_INDEX(int32_t)
EMBER_INSTANTIATE_FOR_INDEX(int64_t)

}  // namespace ember::cuda

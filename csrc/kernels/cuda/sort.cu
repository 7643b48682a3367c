// This file defines the CUDA sort, argsort and top_k kernels (sort.h):
// keys made per Note [GPU sort keys], sorted by CUB, outputs gathered.
#include <climits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/sort.h"
#include "kernels/cuda/sort_body.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;
constexpr size_t kAlign = 256;

size_t AlignUp(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// The scratch's parts, in order.
template <typename K>
struct SortBuffers {
  K* keys_in;
  K* keys_out;
  int32_t* order_in;
  int32_t* order_out;
  int32_t* offsets;
  void* temp;
  size_t temp_bytes;
};

template <typename K>
size_t FixedBytes(const SortGeometry& g) {
  const size_t n = static_cast<size_t>(g.columns * g.len);
  return 2 * AlignUp(n * sizeof(K)) + 2 * AlignUp(n * sizeof(int32_t)) +
         AlignUp(static_cast<size_t>(g.columns + 1) * sizeof(int32_t));
}

template <typename K>
SortBuffers<K> Carve(void* scratch, size_t scratch_bytes, const SortGeometry& g) {
  const size_t n = static_cast<size_t>(g.columns * g.len);
  char* at = static_cast<char*>(scratch);
  SortBuffers<K> b;
  b.keys_in = reinterpret_cast<K*>(at), at += AlignUp(n * sizeof(K));
  b.keys_out = reinterpret_cast<K*>(at), at += AlignUp(n * sizeof(K));
  b.order_in = reinterpret_cast<int32_t*>(at), at += AlignUp(n * sizeof(int32_t));
  b.order_out = reinterpret_cast<int32_t*>(at), at += AlignUp(n * sizeof(int32_t));
  b.offsets = reinterpret_cast<int32_t*>(at), at += AlignUp(static_cast<size_t>(g.columns + 1) * sizeof(int32_t));
  b.temp = at;
  b.temp_bytes = scratch_bytes - FixedBytes<K>(g);
  return b;
}

// One CUB call over every column: a single column is a device-wide radix
// sort; many are DeviceSegmentedSort's (small segments merge-sorted by a
// warp or block each, large ones radix-sorted). Both are stable. With a
// null `temp` it only reports the temporary storage it needs.
template <typename K>
cudaError_t SortPairs(void* temp, size_t& temp_bytes, const K* keys_in, K* keys_out, const int32_t* order_in,
                      int32_t* order_out, const SortGeometry& g, const int32_t* offsets, cudaStream_t stream) {
  const int n = static_cast<int>(g.columns * g.len);
  if (g.columns == 1) {
    return cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, order_in, order_out, n, 0,
                                           static_cast<int>(sizeof(K) * 8), stream);
  }
  return cub::DeviceSegmentedSort::StableSortPairs(temp, temp_bytes, keys_in, keys_out, order_in, order_out, n,
                                                   static_cast<int>(g.columns), offsets, offsets + 1, stream);
}

// Keys and starting indices, column after column, and the segments'
// offsets (entries 0..columns).
template <typename T, typename K>
__global__ void PrepareSort(const T* __restrict__ in, K* __restrict__ keys, int32_t* __restrict__ order,
                            int32_t* __restrict__ offsets, SortGeometry g, bool descending) {
  const int64_t n = g.columns * g.len;
  EMBER_GRID_STRIDE(e, (n > g.columns ? n : g.columns + 1)) {
    if (e <= g.columns) offsets[e] = static_cast<int32_t>(e * g.len);
    if (e < n) {
      const int64_t column = e / g.len;
      const int64_t r = e % g.len;
      keys[e] = OrderedKey(static_cast<ComputeType<T>>(in[AxisOffset(column, r, g.len, g.inner)]), descending);
      order[e] = static_cast<int32_t>(r);
    }
  }
}

// The sorted values or indices, put back along the axis.
template <typename T, bool kIndices>
__global__ void FinishSort(const T* __restrict__ in, const int32_t* __restrict__ order, T* __restrict__ values,
                           int32_t* __restrict__ indices, SortGeometry g) {
  EMBER_GRID_STRIDE(e, g.columns * g.len) {
    const int64_t column = e / g.len;
    const int64_t to = AxisOffset(column, e % g.len, g.len, g.inner);
    if constexpr (kIndices) {
      indices[to] = order[e];
    } else {
      values[to] = in[AxisOffset(column, order[e], g.len, g.inner)];
    }
  }
}

// The first k of each row's descending order (the axis is the last).
template <typename T>
__global__ void FinishTopK(const T* __restrict__ in, const int32_t* __restrict__ order, T* __restrict__ values,
                           int32_t* __restrict__ indices, SortGeometry g, int64_t k) {
  EMBER_GRID_STRIDE(e, g.columns * k) {
    const int64_t row = e / k;
    const int32_t index = order[row * g.len + e % k];
    values[e] = in[row * g.len + index];
    indices[e] = index;
  }
}

}  // namespace

bool SortFits(const SortGeometry& g) {
  return g.columns >= 0 && g.len >= 0 && (g.len == 0 || g.columns <= (INT_MAX - 1) / g.len);
}

template <typename T>
cudaError_t SortScratchBytes(const SortGeometry& g, size_t* bytes) {
  using K = SortKey<ComputeType<T>>;
  size_t temp_bytes = 0;
  const cudaError_t r = SortPairs<K>(nullptr, temp_bytes, nullptr, nullptr, nullptr, nullptr, g, nullptr, nullptr);
  *bytes = FixedBytes<K>(g) + temp_bytes;
  return r;
}

template <typename T>
cudaError_t LaunchSort(const T* in, T* values, int32_t* indices, const SortGeometry& g, SortOutput what,
                       bool descending, int64_t k, void* scratch, size_t scratch_bytes, cudaStream_t stream,
                       int64_t max_blocks) {
  using K = SortKey<ComputeType<T>>;
  const int64_t n = g.columns * g.len;
  if (n == 0) return cudaSuccess;
  SortBuffers<K> b = Carve<K>(scratch, scratch_bytes, g);
  const LaunchConfig prepare = ForElements(n + 1, kThreads, 1, max_blocks);
  PrepareSort<T, K><<<static_cast<unsigned>(prepare.blocks), prepare.threads, 0, stream>>>(
      in, b.keys_in, b.order_in, b.offsets, g, descending);
  cudaError_t r = cudaGetLastError();
  if (r != cudaSuccess) return r;
  r = SortPairs<K>(b.temp, b.temp_bytes, b.keys_in, b.keys_out, b.order_in, b.order_out, g, b.offsets, stream);
  if (r != cudaSuccess) return r;
  const int64_t written = what == SortOutput::kTopK ? g.columns * k : n;
  const LaunchConfig finish = ForElements(written, kThreads, 1, max_blocks);
  if (finish.blocks == 0) return cudaSuccess;
  const auto blocks = static_cast<unsigned>(finish.blocks);
  if (what == SortOutput::kTopK) {
    FinishTopK<T><<<blocks, finish.threads, 0, stream>>>(in, b.order_out, values, indices, g, k);
  } else if (what == SortOutput::kIndices) {
    FinishSort<T, true><<<blocks, finish.threads, 0, stream>>>(in, b.order_out, values, indices, g);
  } else {
    FinishSort<T, false><<<blocks, finish.threads, 0, stream>>>(in, b.order_out, values, indices, g);
  }
  return cudaGetLastError();
}

#define EMBER_SORT(T)                                                                                    \
  template cudaError_t SortScratchBytes<T>(const SortGeometry&, size_t*);                               \
  template cudaError_t LaunchSort<T>(const T*, T*, int32_t*, const SortGeometry&, SortOutput, bool, int64_t, \
                                     void*, size_t, cudaStream_t, int64_t);
EMBER_SORT(float)
EMBER_SORT(double)
EMBER_SORT(__half)
EMBER_SORT(__nv_bfloat16)
EMBER_SORT(int8_t)
EMBER_SORT(int16_t)
EMBER_SORT(int32_t)
EMBER_SORT(int64_t)
EMBER_SORT(uint8_t)

}  // namespace ember::cuda

// This file defines the CUDA softmax and log-softmax (Note [GPU softmax]),
// the cross-entropy rows and the attention's masked softmax (Note [GPU
// attention]) and instantiates them for the float types.
#include <type_traits>

#include "core/device_error_word.h"
#include "kernels/common/element_math.h"
#include "kernels/cuda/attention.h"
#include "kernels/cuda/block_combine.cuh"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/softmax.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

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

// logsumexp of row `base` (n values, `inner` apart), on every thread.
template <typename T, typename C>
__device__ C RowLogSumExp(const T* __restrict__ in, int64_t base, int64_t n, int64_t inner, C* partial) {
  C max = -INFINITY;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) max = math::Maximum()(max, static_cast<C>(in[base + i * inner]));
  max = BlockCombine<C, true>(max, partial);
  C sum = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) sum += math::Exp()(static_cast<C>(in[base + i * inner]) - max);
  sum = BlockCombine<C, false>(sum, partial);
  return math::Log()(sum) + max;
}

// loss[r] = logsumexp(logits[r]) - logits[r, labels[r]]; a label outside
// [0, classes) claims the device error word (Note [Device error words])
// and its loss is NaN.
template <typename T, typename I>
__global__ void SparseXentRows(const I* __restrict__ labels, const T* __restrict__ logits, T* __restrict__ loss,
                               int64_t rows, int64_t classes, DeviceErrorWord* word) {
  using C = ComputeType<T>;
  __shared__ C partial[kThreads / 32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const C lse = RowLogSumExp<T, C>(logits, row * classes, classes, 1, partial);
    if (threadIdx.x != 0) continue;
    const int64_t label = static_cast<int64_t>(labels[row]);
    if (label < 0 || label >= classes) {
      const unsigned none = kDeviceErrorNone, code = kDeviceErrorValueOutOfRange;
      if (atomicCAS(&word->code, none, code) == none) {
        word->operand = 0;
        word->position = row;
        word->value = label;
        word->bound = classes;
        __threadfence_system();
      }
      loss[row] = static_cast<T>(C(NAN));
    } else {
      loss[row] = static_cast<T>(lse - static_cast<C>(logits[row * classes + label]));
    }
  }
}

// loss[r] = sum_i labels[r, i] * (logsumexp(logits[r]) - logits[r, i]).
template <typename T>
__global__ void XentRows(const T* __restrict__ labels, const T* __restrict__ logits, T* __restrict__ loss,
                         int64_t outer, int64_t n, int64_t inner) {
  using C = ComputeType<T>;
  __shared__ C partial[kThreads / 32];
  for (int64_t row = blockIdx.x; row < outer * inner; row += gridDim.x) {
    const int64_t base = (row / inner) * n * inner + row % inner;
    const C lse = RowLogSumExp<T, C>(logits, base, n, inner, partial);
    C sum = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      sum += static_cast<C>(labels[base + i * inner]) * (lse - static_cast<C>(logits[base + i * inner]));
    }
    sum = BlockCombine<C, false>(sum, partial);
    if (threadIdx.x == 0) loss[row] = static_cast<T>(sum);
  }
}

// A mask entry as the compute type C (the half types through float).
template <typename C, typename M>
__device__ C MaskValue(M m) {
  if constexpr (std::is_same_v<M, __half> || std::is_same_v<M, __nv_bfloat16>) {
    return static_cast<C>(static_cast<float>(m));
  } else {
    return static_cast<C>(m);
  }
}

// Note [GPU attention] (attention_indexing.h), step 2: a block per score
// row, in place.
template <typename T, typename M>
__global__ void MaskedSoftmaxRows(T* __restrict__ scores, const M* __restrict__ mask, AttentionMaskIndex index,
                                  int64_t rows, int64_t lk, ComputeType<T> scale) {
  using C = ComputeType<T>;
  __shared__ C partial[kThreads / 32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    T* s = scores + row * lk;
    const M* m = mask + MaskRowOffset(index, row);
    auto value = [&](int64_t j) -> C {
      const C x = static_cast<C>(s[j]) * scale;
      if constexpr (std::is_same_v<M, bool>) {
        return m[j * index.stride_k] ? x : C(-INFINITY);
      } else {
        return x + MaskValue<C>(m[j * index.stride_k]);
      }
    };
    C max = -INFINITY;
    for (int64_t j = threadIdx.x; j < lk; j += blockDim.x) max = math::Maximum()(max, value(j));
    max = BlockCombine<C, true>(max, partial);
    C sum = 0;
    for (int64_t j = threadIdx.x; j < lk; j += blockDim.x) sum += math::Exp()(value(j) - max);
    sum = BlockCombine<C, false>(sum, partial);
    for (int64_t j = threadIdx.x; j < lk; j += blockDim.x) s[j] = static_cast<T>(math::Exp()(value(j) - max) / sum);
  }
}

}  // namespace

template <typename T, typename M>
cudaError_t LaunchMaskedSoftmax(T* scores, const M* mask, const AttentionMaskIndex& index, int64_t rows, int64_t lk,
                                double scale, cudaStream_t stream, int64_t max_blocks) {
  if (rows == 0 || lk == 0) return cudaSuccess;
  const int64_t blocks = rows < max_blocks ? rows : max_blocks;
  MaskedSoftmaxRows<T, M><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      scores, mask, index, rows, lk, static_cast<ComputeType<T>>(scale));
  return cudaGetLastError();
}

#define EMBER_MASKED_SOFTMAX(T, M)                                                                               \
  template cudaError_t LaunchMaskedSoftmax<T, M>(T*, const M*, const AttentionMaskIndex&, int64_t, int64_t, double, \
                                                 cudaStream_t, int64_t);
#define EMBER_MASKED_SOFTMAX_ALL_MASKS(T) \
  EMBER_MASKED_SOFTMAX(T, bool)           \
  EMBER_MASKED_SOFTMAX(T, __half)         \
  EMBER_MASKED_SOFTMAX(T, __nv_bfloat16)  \
  EMBER_MASKED_SOFTMAX(T, float)          \
  EMBER_MASKED_SOFTMAX(T, double)
EMBER_MASKED_SOFTMAX_ALL_MASKS(float)
EMBER_MASKED_SOFTMAX_ALL_MASKS(double)
EMBER_MASKED_SOFTMAX_ALL_MASKS(__half)
EMBER_MASKED_SOFTMAX_ALL_MASKS(__nv_bfloat16)

template <typename T, typename I>
cudaError_t LaunchSparseSoftmaxXent(const I* labels, const T* logits, T* loss, int64_t rows, int64_t classes,
                                    DeviceErrorWord* word, cudaStream_t stream, int64_t max_blocks) {
  if (rows == 0) return cudaSuccess;
  const int64_t blocks = rows < max_blocks ? rows : max_blocks;
  SparseXentRows<T, I><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(labels, logits, loss, rows, classes,
                                                                               word);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchSoftmaxXent(const T* labels, const T* logits, T* loss, int64_t outer, int64_t n, int64_t inner,
                              cudaStream_t stream, int64_t max_blocks) {
  const int64_t rows = outer * inner;
  if (rows == 0) return cudaSuccess;
  const int64_t blocks = rows < max_blocks ? rows : max_blocks;
  XentRows<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(labels, logits, loss, outer, n, inner);
  return cudaGetLastError();
}

#define EMBER_XENT(T)                                                                                           \
  template cudaError_t LaunchSparseSoftmaxXent<T, int32_t>(const int32_t*, const T*, T*, int64_t, int64_t,      \
                                                           DeviceErrorWord*, cudaStream_t, int64_t);            \
  template cudaError_t LaunchSparseSoftmaxXent<T, int64_t>(const int64_t*, const T*, T*, int64_t, int64_t,      \
                                                           DeviceErrorWord*, cudaStream_t, int64_t);            \
  template cudaError_t LaunchSoftmaxXent<T>(const T*, const T*, T*, int64_t, int64_t, int64_t, cudaStream_t, int64_t);
EMBER_XENT(float)
EMBER_XENT(double)
EMBER_XENT(__half)
EMBER_XENT(__nv_bfloat16)

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

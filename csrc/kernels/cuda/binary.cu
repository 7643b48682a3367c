// This file defines the CUDA binary element-wise kernels for the flat cases
// of a broadcast plan and instantiates them for each (op, dtype) the op
// definitions declare.
#include "kernels/common/element_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_body.h"
#include "kernels/cuda/launch_config.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

// Note [Grid-stride launches] (launch_config.h). A step of 0 repeats one
// element (a scalar operand). With `packed`, Note [Packed element-wise
// loads] (elementwise_body.h).
template <typename T, typename Out, typename F>
__global__ void BinaryFlatKernel(const T* __restrict__ lhs, int64_t lhs_step, const T* __restrict__ rhs,
                                 int64_t rhs_step, Out* __restrict__ out, int64_t n, bool packed) {
  BinaryFlatThread<T, Out, F>(lhs, lhs_step, rhs, rhs_step, out, n, packed,
                              static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                              static_cast<int64_t>(gridDim.x) * blockDim.x);
}

// The general broadcast: each output index is split into coordinates,
// innermost first, to find both operands' elements (elementwise_body.h).
template <typename T, typename Out, typename F>
__global__ void BinaryBroadcastKernel(const T* __restrict__ lhs, const T* __restrict__ rhs, Out* __restrict__ out,
                                      int64_t n, BroadcastIndexing indexing) {
  using C = ComputeType<T>;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t l, r;
    BroadcastOffsets(i, indexing, &l, &r);
    out[i] = static_cast<Out>(F()(static_cast<C>(lhs[l]), static_cast<C>(rhs[r])));
  }
}

}  // namespace

template <typename T, typename Out, typename F>
cudaError_t LaunchBinaryBroadcast(const T* lhs, const T* rhs, Out* out, int64_t n, const BroadcastIndexing& indexing,
                                  cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig config = ForElements(n, kThreads, 1, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  BinaryBroadcastKernel<T, Out, F>
      <<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(lhs, rhs, out, n, indexing);
  return cudaGetLastError();
}

template <typename T, typename Out, typename F>
cudaError_t LaunchBinaryFlat(const T* lhs, int64_t lhs_step, const T* rhs, int64_t rhs_step, Out* out, int64_t n,
                             cudaStream_t stream, int64_t max_blocks) {
  constexpr int N = kPackOf<T, Out>;
  const bool packed = N > 1 && (lhs_step == 0 || PackAligned(lhs, N)) && (rhs_step == 0 || PackAligned(rhs, N)) &&
                      PackAligned(out, N);
  const LaunchConfig config = ForElements(n, kThreads, packed ? N : 1, max_blocks);
  if (config.blocks == 0) return cudaSuccess;
  BinaryFlatKernel<T, Out, F><<<static_cast<unsigned>(config.blocks), config.threads, 0, stream>>>(
      lhs, lhs_step, rhs, rhs_step, out, n, packed);
  return cudaGetLastError();
}

#define EMBER_BINARY(F, T, Out)                                                                                \
  template cudaError_t LaunchBinaryFlat<T, Out, math::F>(const T*, int64_t, const T*, int64_t, Out*, int64_t, \
                                                         cudaStream_t, int64_t);                              \
  template cudaError_t LaunchBinaryBroadcast<T, Out, math::F>(const T*, const T*, Out*, int64_t,               \
                                                              const BroadcastIndexing&, cudaStream_t, int64_t);
#define EMBER_BINARY_FLOATS(F)       \
  EMBER_BINARY(F, float, float)      \
  EMBER_BINARY(F, double, double)    \
  EMBER_BINARY(F, __half, __half)    \
  EMBER_BINARY(F, __nv_bfloat16, __nv_bfloat16)
#define EMBER_BINARY_INTEGERS(F)     \
  EMBER_BINARY(F, int8_t, int8_t)    \
  EMBER_BINARY(F, int16_t, int16_t)  \
  EMBER_BINARY(F, int32_t, int32_t)  \
  EMBER_BINARY(F, int64_t, int64_t)  \
  EMBER_BINARY(F, uint8_t, uint8_t)
#define EMBER_COMPARISON(F)          \
  EMBER_BINARY(F, float, bool)       \
  EMBER_BINARY(F, double, bool)      \
  EMBER_BINARY(F, __half, bool)      \
  EMBER_BINARY(F, __nv_bfloat16, bool) \
  EMBER_BINARY(F, int32_t, bool)     \
  EMBER_BINARY(F, int64_t, bool)     \
  EMBER_BINARY(F, int8_t, bool)      \
  EMBER_BINARY(F, int16_t, bool)     \
  EMBER_BINARY(F, uint8_t, bool)

EMBER_BINARY_FLOATS(Add)
EMBER_BINARY_INTEGERS(Add)
EMBER_BINARY_FLOATS(Subtract)
EMBER_BINARY_INTEGERS(Subtract)
EMBER_BINARY_FLOATS(Multiply)
EMBER_BINARY_INTEGERS(Multiply)
EMBER_BINARY_FLOATS(Divide)
EMBER_BINARY_FLOATS(Maximum)
EMBER_BINARY_INTEGERS(Maximum)
EMBER_BINARY_FLOATS(Minimum)
EMBER_BINARY_INTEGERS(Minimum)
EMBER_BINARY_FLOATS(SquaredDifference)
EMBER_BINARY(SquaredDifference, int32_t, int32_t)
EMBER_BINARY(SquaredDifference, int64_t, int64_t)
EMBER_BINARY_FLOATS(ReluGrad)
EMBER_BINARY_INTEGERS(ReluGrad)
EMBER_BINARY_FLOATS(Pow)
EMBER_BINARY_FLOATS(Atan2)
EMBER_BINARY_FLOATS(Xlogy)
EMBER_BINARY_FLOATS(FloorDiv)
EMBER_BINARY_FLOATS(FloorMod)
EMBER_BINARY_INTEGERS(BitwiseAnd)
EMBER_BINARY_INTEGERS(BitwiseOr)
EMBER_BINARY_INTEGERS(BitwiseXor)
EMBER_COMPARISON(Equal)
EMBER_COMPARISON(NotEqual)
EMBER_BINARY(Equal, bool, bool)
EMBER_BINARY(NotEqual, bool, bool)
EMBER_COMPARISON(Less)
EMBER_COMPARISON(LessEqual)
EMBER_COMPARISON(Greater)
EMBER_COMPARISON(GreaterEqual)
EMBER_BINARY(LogicalAnd, bool, bool)
EMBER_BINARY(LogicalOr, bool, bool)
EMBER_BINARY(LogicalXor, bool, bool)

}  // namespace ember::cuda

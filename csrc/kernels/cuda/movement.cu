// This file defines the CUDA movement kernels (movement.h) around their
// bodies (movement_body.h), instantiated per element size.
#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/movement.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

template <typename U>
__global__ void PadKernel(const U* __restrict__ in, U* __restrict__ out, int64_t n, PadIndexing p, U fill) {
  EMBER_GRID_STRIDE(i, n) {
    const int64_t from = PadSource(i, p);
    out[i] = from >= 0 ? in[from] : fill;
  }
}

template <typename U>
__global__ void ConcatPartKernel(const U* __restrict__ in, U* __restrict__ out, int64_t n, int64_t width,
                                 int64_t start, int64_t out_width) {
  EMBER_GRID_STRIDE(j, n) { out[ConcatDestination(j, width, start, out_width)] = in[j]; }
}

template <typename U>
__global__ void FillKernel(U* __restrict__ out, int64_t n, U value, const U* __restrict__ value_on_device) {
  const U v = value_on_device != nullptr ? *value_on_device : value;
  EMBER_GRID_STRIDE(i, n) { out[i] = v; }
}

template <typename U>
__global__ void WhereKernel(const bool* __restrict__ condition, const U* __restrict__ x, const U* __restrict__ y,
                            U* __restrict__ out, int64_t n, NaryIndexing ix) {
  EMBER_GRID_STRIDE(i, n) { out[i] = condition[NaryOffset(i, ix, 0)] ? x[NaryOffset(i, ix, 1)] : y[NaryOffset(i, ix, 2)]; }
}

template <typename U, typename Index>
__global__ void OneHotKernel(const Index* __restrict__ indices, const U* __restrict__ on, const U* __restrict__ off,
                             U* __restrict__ out, int64_t n, int64_t depth, int64_t inner) {
  const U on_value = *on, off_value = *off;
  EMBER_GRID_STRIDE(i, n) { out[i] = OneHotIsOn(indices, i, depth, inner) ? on_value : off_value; }
}

template <typename U>
__global__ void StridedCopyKernel(const U* __restrict__ in, U* __restrict__ out, int64_t n, StridedCopyIndexing ix) {
  EMBER_GRID_STRIDE(i, n) {
    int64_t src, dst;
    StridedCopyOffsets(i, ix, &src, &dst);
    out[dst] = in[src];
  }
}

unsigned Blocks(const LaunchConfig& c) { return static_cast<unsigned>(c.blocks); }

}  // namespace

template <typename U>
cudaError_t LaunchStridedCopy(const U* in, U* out, int64_t n, const StridedCopyIndexing& ix, cudaStream_t stream,
                              int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  StridedCopyKernel<U><<<Blocks(c), c.threads, 0, stream>>>(in, out, n, ix);
  return cudaGetLastError();
}

template <typename U>
cudaError_t LaunchPad(const U* in, U* out, int64_t n, const PadIndexing& p, U fill, cudaStream_t stream,
                      int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  PadKernel<U><<<Blocks(c), c.threads, 0, stream>>>(in, out, n, p, fill);
  return cudaGetLastError();
}

template <typename U>
cudaError_t LaunchConcatPart(const U* in, U* out, int64_t n, int64_t width, int64_t start, int64_t out_width,
                             cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  ConcatPartKernel<U><<<Blocks(c), c.threads, 0, stream>>>(in, out, n, width, start, out_width);
  return cudaGetLastError();
}

template <typename U>
cudaError_t LaunchFill(U* out, int64_t n, U value, const U* value_on_device, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  FillKernel<U><<<Blocks(c), c.threads, 0, stream>>>(out, n, value, value_on_device);
  return cudaGetLastError();
}

template <typename U>
cudaError_t LaunchWhere(const bool* condition, const U* x, const U* y, U* out, int64_t n, const NaryIndexing& ix,
                        cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  WhereKernel<U><<<Blocks(c), c.threads, 0, stream>>>(condition, x, y, out, n, ix);
  return cudaGetLastError();
}

template <typename U, typename Index>
cudaError_t LaunchOneHot(const Index* indices, const U* on, const U* off, U* out, int64_t n, int64_t depth,
                         int64_t inner, cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  OneHotKernel<U, Index><<<Blocks(c), c.threads, 0, stream>>>(indices, on, off, out, n, depth, inner);
  return cudaGetLastError();
}

#define EMBER_MOVEMENT(U)                                                                                          \
  template cudaError_t LaunchPad<U>(const U*, U*, int64_t, const PadIndexing&, U, cudaStream_t, int64_t);          \
  template cudaError_t LaunchConcatPart<U>(const U*, U*, int64_t, int64_t, int64_t, int64_t, cudaStream_t, int64_t); \
  template cudaError_t LaunchFill<U>(U*, int64_t, U, const U*, cudaStream_t, int64_t);                         \
  template cudaError_t LaunchStridedCopy<U>(const U*, U*, int64_t, const StridedCopyIndexing&, cudaStream_t, int64_t); \
  template cudaError_t LaunchWhere<U>(const bool*, const U*, const U*, U*, int64_t, const NaryIndexing&,        \
                                      cudaStream_t, int64_t);                                                     \
  template cudaError_t LaunchOneHot<U, int32_t>(const int32_t*, const U*, const U*, U*, int64_t, int64_t,      \
                                                int64_t, cudaStream_t, int64_t);                                  \
  template cudaError_t LaunchOneHot<U, int64_t>(const int64_t*, const U*, const U*, U*, int64_t, int64_t,      \
                                                int64_t, cudaStream_t, int64_t);
EMBER_MOVEMENT(uint8_t)
EMBER_MOVEMENT(uint16_t)
EMBER_MOVEMENT(uint32_t)
EMBER_MOVEMENT(uint64_t)

}  // namespace ember::cuda

// This file defines the CUDA movement kernels (movement.h) around their
// bodies (movement_body.h), instantiated per element size.
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/movement.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

#define EMBER_GRID_STRIDE(i, n)                                                                          \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n);               \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

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

unsigned Blocks(const LaunchConfig& c) { return static_cast<unsigned>(c.blocks); }

}  // namespace

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

#define EMBER_MOVEMENT(U)                                                                                          \
  template cudaError_t LaunchPad<U>(const U*, U*, int64_t, const PadIndexing&, U, cudaStream_t, int64_t);          \
  template cudaError_t LaunchConcatPart<U>(const U*, U*, int64_t, int64_t, int64_t, int64_t, cudaStream_t, int64_t); \
  template cudaError_t LaunchFill<U>(U*, int64_t, U, const U*, cudaStream_t, int64_t);
EMBER_MOVEMENT(uint8_t)
EMBER_MOVEMENT(uint16_t)
EMBER_MOVEMENT(uint32_t)
EMBER_MOVEMENT(uint64_t)

}  // namespace ember::cuda

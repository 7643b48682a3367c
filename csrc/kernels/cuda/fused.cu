// This file defines the CUDA kernel of fused_elementwise around the shared
// interpreter (fused_body.h).
#include "kernels/cuda/fused.h"
#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/launch_config.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

// The program and operands arrive as kernel parameters (about 1 KiB), in
// the constant bank every thread reads without a load of its own.
template <typename T>
__global__ void FusedKernel(const FusedCode code, const FusedOperands<T> operands, int64_t n) {
  EMBER_GRID_STRIDE(i, n) { RunFusedElement(code, operands, i); }
}

}  // namespace

template <typename T>
cudaError_t LaunchFused(const FusedCode& code, const FusedOperands<T>& operands, int64_t n, cudaStream_t stream,
                        int64_t max_blocks) {
  const LaunchConfig c = ForElements(n, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  FusedKernel<T><<<static_cast<unsigned>(c.blocks), c.threads, 0, stream>>>(code, operands, n);
  return cudaGetLastError();
}

template cudaError_t LaunchFused<float>(const FusedCode&, const FusedOperands<float>&, int64_t, cudaStream_t,
                                        int64_t);
template cudaError_t LaunchFused<double>(const FusedCode&, const FusedOperands<double>&, int64_t, cudaStream_t,
                                         int64_t);

}  // namespace ember::cuda

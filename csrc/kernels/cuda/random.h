// This file declares the CUDA stateless random kernels: the CPU's Philox
// streams (Note [Random streams] in kernels/common/philox.h) element for
// element, so uniform floats and integers are bit-identical to the CPU's;
// normals use the GPU's double log, sqrt, cos and sin, which may differ
// from the CPU's libm in the last bit.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace ember::cuda {

// What the host worked out for a uniform float op, as the CPU kernel
// does: the bounds as T and back as double, and the largest T below hi
// for a value that rounds up to it.
template <typename T>
struct UniformBounds {
  double lo = 0;
  double span = 1;
  double hi = 1;
  bool clamp = true;
  T below_hi{};
};

// Seed is int32_t or int64_t: two values in device memory.
template <typename T, typename Seed>
cudaError_t LaunchRandomUniform(const Seed* seed, T* out, int64_t n, const UniformBounds<T>& bounds,
                                cudaStream_t stream, int64_t max_blocks);
// T is int32_t or int64_t; minval + word(s) % range, as the CPU.
template <typename T, typename Seed>
cudaError_t LaunchRandomUniformInt(const Seed* seed, T* out, int64_t n, int64_t minval, uint64_t range,
                                   cudaStream_t stream, int64_t max_blocks);
// truncated: keep normals within 2 standard deviations (Note [Truncated
// normal streams] in the CPU's random_ops.cc).
template <typename T, typename Seed>
cudaError_t LaunchRandomNormal(const Seed* seed, T* out, int64_t n, double mean, double stddev, bool truncated,
                               cudaStream_t stream, int64_t max_blocks);

}  // namespace ember::cuda

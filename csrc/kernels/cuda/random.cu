// This file defines the CUDA stateless random kernels (random.h): a thread
// per Philox block (per group of blocks for the truncated normal), each
// element computed as the CPU kernel computes it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfloat>

#include "kernels/common/philox.h"
#include "kernels/cuda/grid_stride.cuh"
#include "kernels/cuda/launch_config.h"
#include "kernels/cuda/random.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;
constexpr double kTwoPi = 6.283185307179586476925286766559;
constexpr double kTruncateAt = 2.0;
constexpr uint64_t kTruncatedBlocksPerGroup = 256;

// float32's uniforms (one word each) for every float type but float64's
// (two words each), as UnitTraits on the CPU.
template <typename T>
inline constexpr int kPerBlockOf = std::is_same_v<T, double> ? 2 : 4;

template <typename T>
__device__ double Unit(const philox::Counter& w, int j) {
  if constexpr (std::is_same_v<T, double>) {
    return philox::UnitDouble(philox::Join(w[2 * j], w[2 * j + 1]));
  } else {
    return philox::UnitFloat(w[j]);
  }
}

// double -> T as the CPU's ToFloat: float overflows to infinity past
// FLT_MAX, the half types round through float.
template <typename T>
__device__ T FromDouble(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    const float f = v > FLT_MAX ? __int_as_float(0x7f800000) : v < -FLT_MAX ? __int_as_float(0xff800000)
                                                                             : __double2float_rn(v);
    if constexpr (std::is_same_v<T, float>) return f;
    else if constexpr (std::is_same_v<T, __half>) return __float2half_rn(f);
    else return __float2bfloat16_rn(f);
  }
}

template <typename T>
__device__ double ToDouble(T v) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) return static_cast<double>(v);
  else return static_cast<double>(static_cast<float>(v));
}

template <typename Seed>
__device__ philox::Stream StreamOf(const Seed* seed) {
  return philox::Stream(static_cast<int64_t>(seed[0]), static_cast<int64_t>(seed[1]));
}

template <typename T, typename Seed>
__global__ void UniformKernel(const Seed* __restrict__ seed, T* __restrict__ out, int64_t n, UniformBounds<T> b) {
  constexpr int kPer = kPerBlockOf<T>;
  const philox::Stream stream = StreamOf(seed);
  EMBER_GRID_STRIDE(block, (n + kPer - 1) / kPer) {
    const philox::Counter w = stream.Block(static_cast<uint64_t>(block));
    for (int j = 0; j < kPer && block * kPer + j < n; ++j) {
      T v = FromDouble<T>(philox::Affine(b.lo, b.span, Unit<T>(w, j)));
      if (b.clamp && ToDouble(v) >= b.hi) v = b.below_hi;
      out[block * kPer + j] = v;
    }
  }
}

template <typename T, typename Seed>
__global__ void UniformIntKernel(const Seed* __restrict__ seed, T* __restrict__ out, int64_t n, int64_t minval,
                                 uint64_t range) {
  constexpr int kPer = sizeof(T) == 4 ? 4 : 2;
  const philox::Stream stream = StreamOf(seed);
  const uint64_t base = static_cast<uint64_t>(minval);
  EMBER_GRID_STRIDE(block, (n + kPer - 1) / kPer) {
    const philox::Counter w = stream.Block(static_cast<uint64_t>(block));
    for (int j = 0; j < kPer && block * kPer + j < n; ++j) {
      const uint64_t r = sizeof(T) == 4 ? uint64_t{w[j]} : philox::Join(w[2 * j], w[2 * j + 1]);
      out[block * kPer + j] = static_cast<T>(base + r % range);
    }
  }
}

// Box-Muller over the block's pairs of uniforms, in double.
template <typename T>
__device__ void BlockNormals(const philox::Counter& w, double* z) {
  for (int j = 0; j < kPerBlockOf<T>; j += 2) {
    const double r = sqrt(-2.0 * log(1.0 - Unit<T>(w, j)));
    const double theta = kTwoPi * Unit<T>(w, j + 1);
    z[j] = r * cos(theta);
    z[j + 1] = r * sin(theta);
  }
}

template <typename T, typename Seed>
__global__ void NormalKernel(const Seed* __restrict__ seed, T* __restrict__ out, int64_t n, double mean,
                             double stddev) {
  constexpr int kPer = kPerBlockOf<T>;
  const philox::Stream stream = StreamOf(seed);
  EMBER_GRID_STRIDE(block, (n + kPer - 1) / kPer) {
    double z[kPer];
    BlockNormals<T>(stream.Block(static_cast<uint64_t>(block)), z);
    for (int j = 0; j < kPer && block * kPer + j < n; ++j) {
      out[block * kPer + j] = FromDouble<T>(philox::Affine(mean, stddev, z[j]));
    }
  }
}

template <typename T, typename Seed>
__global__ void TruncatedNormalKernel(const Seed* __restrict__ seed, T* __restrict__ out, int64_t n, double mean,
                                      double stddev) {
  constexpr int kPer = kPerBlockOf<T>;
  const philox::Stream stream = StreamOf(seed);
  EMBER_GRID_STRIDE(group, (n + kPer - 1) / kPer) {
    T* group_out = out + group * kPer;
    const int count = static_cast<int>(n - group * kPer < kPer ? n - group * kPer : kPer);
    int filled = 0;
    const uint64_t base = static_cast<uint64_t>(group) * kTruncatedBlocksPerGroup;
    for (uint64_t k = 0; k < kTruncatedBlocksPerGroup && filled < count; ++k) {
      double z[kPer];
      BlockNormals<T>(stream.Block(base + k), z);
      for (int j = 0; j < kPer && filled < count; ++j) {
        if (fabs(z[j]) < kTruncateAt) group_out[filled++] = FromDouble<T>(philox::Affine(mean, stddev, z[j]));
      }
    }
    for (; filled < count; ++filled) group_out[filled] = FromDouble<T>(mean);
  }
}

unsigned Blocks(const LaunchConfig& c) { return static_cast<unsigned>(c.blocks); }

}  // namespace

template <typename T, typename Seed>
cudaError_t LaunchRandomUniform(const Seed* seed, T* out, int64_t n, const UniformBounds<T>& bounds,
                                cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements((n + kPerBlockOf<T> - 1) / kPerBlockOf<T>, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  UniformKernel<T, Seed><<<Blocks(c), c.threads, 0, stream>>>(seed, out, n, bounds);
  return cudaGetLastError();
}

template <typename T, typename Seed>
cudaError_t LaunchRandomUniformInt(const Seed* seed, T* out, int64_t n, int64_t minval, uint64_t range,
                                   cudaStream_t stream, int64_t max_blocks) {
  constexpr int kPer = sizeof(T) == 4 ? 4 : 2;
  const LaunchConfig c = ForElements((n + kPer - 1) / kPer, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  UniformIntKernel<T, Seed><<<Blocks(c), c.threads, 0, stream>>>(seed, out, n, minval, range);
  return cudaGetLastError();
}

template <typename T, typename Seed>
cudaError_t LaunchRandomNormal(const Seed* seed, T* out, int64_t n, double mean, double stddev, bool truncated,
                               cudaStream_t stream, int64_t max_blocks) {
  const LaunchConfig c = ForElements((n + kPerBlockOf<T> - 1) / kPerBlockOf<T>, kThreads, 1, max_blocks);
  if (c.blocks == 0) return cudaSuccess;
  if (truncated) {
    TruncatedNormalKernel<T, Seed><<<Blocks(c), c.threads, 0, stream>>>(seed, out, n, mean, stddev);
  } else {
    NormalKernel<T, Seed><<<Blocks(c), c.threads, 0, stream>>>(seed, out, n, mean, stddev);
  }
  return cudaGetLastError();
}

#define EMBER_RANDOM_FLOAT(T, Seed)                                                                           \
  template cudaError_t LaunchRandomUniform<T, Seed>(const Seed*, T*, int64_t, const UniformBounds<T>&,        \
                                                    cudaStream_t, int64_t);                                   \
  template cudaError_t LaunchRandomNormal<T, Seed>(const Seed*, T*, int64_t, double, double, bool, cudaStream_t, \
                                                   int64_t);
#define EMBER_RANDOM_FOR_SEED(Seed)                                                                             \
  EMBER_RANDOM_FLOAT(float, Seed)                                                                               \
  EMBER_RANDOM_FLOAT(double, Seed)                                                                              \
  EMBER_RANDOM_FLOAT(__half, Seed)                                                                              \
  EMBER_RANDOM_FLOAT(__nv_bfloat16, Seed)                                                                       \
  template cudaError_t LaunchRandomUniformInt<int32_t, Seed>(const Seed*, int32_t*, int64_t, int64_t, uint64_t, \
                                                             cudaStream_t, int64_t);                            \
  template cudaError_t LaunchRandomUniformInt<int64_t, Seed>(const Seed*, int64_t*, int64_t, int64_t, uint64_t, \
                                                             cudaStream_t, int64_t);

EMBER_RANDOM_FOR_SEED(int32_t)
EMBER_RANDOM_FOR_SEED(int64_t)

}  // namespace ember::cuda

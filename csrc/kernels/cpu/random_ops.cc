// This file implements the stateless random CPU kernels (uniform, uniform
// int, normal, truncated normal) and RegisterCpuRandomKernels.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/parallel.h"
#include "kernels/common/philox.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/random.gen.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cpu {
namespace {

// Rough costs per Philox block, for ParallelFor's split.
constexpr double kBlockCycles = 60;            // 10 rounds of two 32x32->64 multiplies
constexpr double kBoxMullerPairCycles = 100;  // log, sqrt, sin, cos in double
constexpr double kTwoPi = 6.283185307179586476925286766559;

// The truncation bound of stateless_truncated_normal, in standard deviations.
constexpr double kTruncateAt = 2.0;
// Philox blocks reserved per output group of stateless_truncated_normal
// (Note [Truncated normal streams]).
constexpr uint64_t kTruncatedBlocksPerGroup = 256;

// The seed input's two values (Note [Random streams]); int32 seeds are
// sign-extended, so an int32 and an int64 seed of equal values agree. The
// shape function already checked the shape; the count check keeps a bad
// direct call from reading out of bounds.
Status SeedStream(const KernelContext& ctx, philox::Stream* stream) {
  const Tensor& seed = ctx.input(0);
  if (seed.NumElements() != 2) {
    return InvalidArgument("seed must have shape [2], got " + seed.shape().ToString());
  }
  if (seed.dtype() == DType::kInt32) {
    const int32_t* s = seed.data<int32_t>();
    *stream = philox::Stream(s[0], s[1]);
  } else {
    const int64_t* s = seed.data<int64_t>();
    *stream = philox::Stream(s[0], s[1]);
  }
  return Status::OK();
}

// double -> T without undefined behaviour for values outside float's range.
// float16 and bfloat16 round through float32 (Note [Half compute]), whose
// conversions overflow to infinity.
template <typename T>
T ToFloat(double v) {
  if constexpr (kIsWidened<T>) {
    return static_cast<T>(ToFloat<float>(v));
  } else {
    if constexpr (std::is_same_v<T, float>) {
      constexpr double kMax = std::numeric_limits<float>::max();
      if (v > kMax) return std::numeric_limits<float>::infinity();
      if (v < -kMax) return -std::numeric_limits<float>::infinity();
    }
    return static_cast<T>(v);
  }
}

// x exactly as a double (float16 and bfloat16 by way of float32).
template <typename T>
double ToDouble(T x) {
  return static_cast<double>(static_cast<ComputeType<T>>(x));
}

// std::nextafter(x, y) for every float dtype: float16 and bfloat16 step
// their 16-bit pattern by one toward y (sign and magnitude: up moves away
// from zero).
template <typename T>
T NextAfter(T x, T y) {
  if constexpr (kIsWidened<T>) {
    const float xf = static_cast<float>(x), yf = static_cast<float>(y);
    if (xf == yf) return y;
    if (std::isnan(xf) || std::isnan(yf)) return static_cast<T>(xf + yf);
    uint16_t bits = Eigen::numext::bit_cast<uint16_t>(x);
    if (xf == 0) {
      bits = yf < 0 ? 0x8001 : 0x0001;  // the smallest subnormal toward y
    } else if ((xf < yf) == (xf > 0)) {
      ++bits;
    } else {
      --bits;
    }
    return Eigen::numext::bit_cast<T>(bits);
  } else {
    return std::nextafter(x, y);
  }
}

// How one float dtype consumes a block of 4 words: float32 takes one word
// per uniform, float64 two (first word low). float16 and bfloat16 use
// float32's (UnitTraits<ComputeType<T>>) and round the result once.
template <typename T>
struct UnitTraits;

template <>
struct UnitTraits<float> {
  static constexpr int kPerBlock = 4;
  static double Unit(const philox::Counter& w, int j) { return philox::UnitFloat(w[j]); }
};

template <>
struct UnitTraits<double> {
  static constexpr int kPerBlock = 2;
  static double Unit(const philox::Counter& w, int j) {
    return philox::UnitDouble(philox::Join(w[2 * j], w[2 * j + 1]));
  }
};

// Box-Muller: two standard normals from uniforms u1, u2 in [0, 1) per pair
// of slots. 1 - u1 is in (0, 1], so the log is finite.
template <typename T>
void BlockNormals(const philox::Counter& w, double* z) {
  using U = UnitTraits<ComputeType<T>>;
  for (int j = 0; j < U::kPerBlock; j += 2) {
    const double r = std::sqrt(-2.0 * std::log(1.0 - U::Unit(w, j)));
    const double theta = kTwoPi * U::Unit(w, j + 1);
    z[j] = r * std::cos(theta);
    z[j + 1] = r * std::sin(theta);
  }
}

// Calls fill(words, first, count) for each block of the stream; block b
// covers output elements [b * kPerBlock, b * kPerBlock + count).
template <int kPerBlock, typename Fill>
void ForEachBlock(KernelContext& ctx, const philox::Stream& stream, int64_t n,
                  double cycles_per_block, const Fill& fill) {
  const int64_t blocks = (n + kPerBlock - 1) / kPerBlock;
  ParallelFor(ctx, blocks, cycles_per_block, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      const int64_t start = b * kPerBlock;
      fill(stream.Block(static_cast<uint64_t>(b)), start,
           static_cast<int>(std::min<int64_t>(kPerBlock, n - start)));
    }
  });
}

template <typename T>
class UniformKernel final : public OpKernel {
 public:
  explicit UniformKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    philox::Stream stream(0, 0);
    EMBER_RETURN_IF_ERROR(SeedStream(ctx, &stream));
    using U = UnitTraits<ComputeType<T>>;
    // The bounds as T, then exactly as double.
    const T lo = ToFloat<T>(attrs_.minval);
    const T hi = ToFloat<T>(attrs_.maxval);
    const double lo_d = ToDouble(lo), hi_d = ToDouble(hi);
    const double span = hi_d - lo_d;
    // lo + span * u can round up to hi; keep the result in [lo, hi).
    const bool clamp = lo_d < hi_d;
    const T below_hi = NextAfter(hi, lo);
    T* out = ctx.output(0).data<T>();
    ForEachBlock<U::kPerBlock>(ctx, stream, ctx.output(0).NumElements(), kBlockCycles + 8,
                               [&](const philox::Counter& w, int64_t first, int count) {
      for (int j = 0; j < count; ++j) {
        T v = ToFloat<T>(philox::Affine(lo_d, span, U::Unit(w, j)));
        if (clamp && ToDouble(v) >= hi_d) v = below_hi;
        out[first + j] = v;
      }
    });
    return Status::OK();
  }

 private:
  StatelessRandomUniformAttrs attrs_;
};

template <typename T>
class UniformIntKernel final : public OpKernel {
 public:
  explicit UniformIntKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    philox::Stream stream(0, 0);
    EMBER_RETURN_IF_ERROR(SeedStream(ctx, &stream));
    const int64_t minval = attrs_.minval, maxval = attrs_.maxval;
    if (minval < std::numeric_limits<T>::min() || maxval > std::numeric_limits<T>::max()) {
      return InvalidArgument("minval and maxval must be within the range of " +
                             std::string(DTypeName(DTypeOf<T>::value)) + ", got minval = " +
                             std::to_string(minval) + " and maxval = " + std::to_string(maxval));
    }
    if (minval >= maxval) {
      return InvalidArgument("Need minval < maxval, got minval = " + std::to_string(minval) +
                             " and maxval = " + std::to_string(maxval));
    }
    // Unsigned arithmetic: maxval - minval may exceed int64's range.
    const uint64_t base = static_cast<uint64_t>(minval);
    const uint64_t range = static_cast<uint64_t>(maxval) - base;
    T* out = ctx.output(0).data<T>();
    const int64_t n = ctx.output(0).NumElements();
    if constexpr (sizeof(T) == 4) {
      // range < 2^32: one word per value.
      ForEachBlock<4>(ctx, stream, n, kBlockCycles + 40,
                      [&](const philox::Counter& w, int64_t first, int count) {
        for (int j = 0; j < count; ++j) out[first + j] = static_cast<T>(base + w[j] % range);
      });
    } else {
      ForEachBlock<2>(ctx, stream, n, kBlockCycles + 80,
                      [&](const philox::Counter& w, int64_t first, int count) {
        for (int j = 0; j < count; ++j) {
          out[first + j] =
              static_cast<T>(base + philox::Join(w[2 * j], w[2 * j + 1]) % range);
        }
      });
    }
    return Status::OK();
  }

 private:
  StatelessRandomUniformIntAttrs attrs_;
};

template <typename T>
class NormalKernel final : public OpKernel {
 public:
  explicit NormalKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    philox::Stream stream(0, 0);
    EMBER_RETURN_IF_ERROR(SeedStream(ctx, &stream));
    constexpr int kPerBlock = UnitTraits<ComputeType<T>>::kPerBlock;
    const double mean = attrs_.mean, stddev = attrs_.stddev;
    T* out = ctx.output(0).data<T>();
    ForEachBlock<kPerBlock>(ctx, stream, ctx.output(0).NumElements(),
                            kBlockCycles + kBoxMullerPairCycles * kPerBlock / 2,
                            [&](const philox::Counter& w, int64_t first, int count) {
      double z[kPerBlock];
      BlockNormals<T>(w, z);
      for (int j = 0; j < count; ++j) out[first + j] = ToFloat<T>(philox::Affine(mean, stddev, z[j]));
    });
    return Status::OK();
  }

 private:
  StatelessRandomNormalAttrs attrs_;
};

// Note [Truncated normal streams]: output group g (the kPerBlock elements
// starting at g * kPerBlock) draws from blocks g * 256, g * 256 + 1, ...
// and keeps, in order, the normals within 2 standard deviations. A group
// needs about 1.05 blocks on average, so running out of its 256 blocks has
// probability below 0.05^1000; the remaining values would then be the mean.
// Each value thus depends only on (seed, element index), whatever the thread
// count, and no group reads another group's blocks.
template <typename T>
class TruncatedNormalKernel final : public OpKernel {
 public:
  explicit TruncatedNormalKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    philox::Stream stream(0, 0);
    EMBER_RETURN_IF_ERROR(SeedStream(ctx, &stream));
    constexpr int kPerBlock = UnitTraits<ComputeType<T>>::kPerBlock;
    const double mean = attrs_.mean, stddev = attrs_.stddev;
    T* out = ctx.output(0).data<T>();
    const int64_t n = ctx.output(0).NumElements();
    const int64_t groups = (n + kPerBlock - 1) / kPerBlock;
    const double cycles = 1.1 * (kBlockCycles + kBoxMullerPairCycles * kPerBlock / 2);
    ParallelFor(ctx, groups, cycles, [&](int64_t first, int64_t last) {
      for (int64_t g = first; g < last; ++g) {
        T* group_out = out + g * kPerBlock;
        const int count = static_cast<int>(std::min<int64_t>(kPerBlock, n - g * kPerBlock));
        int filled = 0;
        const uint64_t base = static_cast<uint64_t>(g) * kTruncatedBlocksPerGroup;
        for (uint64_t k = 0; k < kTruncatedBlocksPerGroup && filled < count; ++k) {
          double z[kPerBlock];
          BlockNormals<T>(stream.Block(base + k), z);
          for (int j = 0; j < kPerBlock && filled < count; ++j) {
            if (std::abs(z[j]) < kTruncateAt) group_out[filled++] = ToFloat<T>(philox::Affine(mean, stddev, z[j]));
          }
        }
        for (; filled < count; ++filled) group_out[filled] = ToFloat<T>(mean);
      }
    });
    return Status::OK();
  }

 private:
  StatelessTruncatedNormalAttrs attrs_;
};

// Registers K<T> for each output dtype T, with either seed dtype (the
// kernel reads the seed by its dtype, so one class serves both).
template <template <typename> class K, typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterWithSeedTypes(KernelRegistry& r, const char* op, type_sets::TypeList<Ts...>) {
  for (DType seed : {DType::kInt32, DType::kInt64}) {
    (r.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value, seed}, &MakeKernel<K<Ts>>), ...);
  }
}

}  // namespace
}  // namespace ember::cpu

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuRandomKernels(KernelRegistry& r) {
  using cpu::RegisterWithSeedTypes;
  RegisterWithSeedTypes<cpu::UniformKernel>(r, "stateless_random_uniform", type_sets::Floating{});
  RegisterWithSeedTypes<cpu::UniformIntKernel>(r, "stateless_random_uniform_int",
                                               type_sets::TypeList<int32_t, int64_t>{});
  RegisterWithSeedTypes<cpu::NormalKernel>(r, "stateless_random_normal", type_sets::Floating{});
  RegisterWithSeedTypes<cpu::TruncatedNormalKernel>(r, "stateless_truncated_normal",
                                                    type_sets::Floating{});
  cpu::RegisterRandomSamplingKernels(r);
}

}  // namespace ember

// This file defines the GPU stateless random kernels' host side (random.h)
// and registers them: the bounds are worked out here exactly as the CPU
// kernel works them out, so both devices draw the same values.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/random.h"
#include "ops/attrs/random.gen.h"

namespace ember::cuda {
namespace {

// double -> T as the CPU's ToFloat (float overflows to infinity; the half
// types round through float) and back, exactly.
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    constexpr double kMax = std::numeric_limits<float>::max();
    const float f = v > kMax    ? std::numeric_limits<float>::infinity()
                    : v < -kMax ? -std::numeric_limits<float>::infinity()
                                : static_cast<float>(v);
    if constexpr (std::is_same_v<T, float>) return f;
    else if constexpr (std::is_same_v<T, __half>) return __float2half_rn(f);
    else return __float2bfloat16_rn(f);
  }
}

template <typename T>
double ToDouble(T v) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) return static_cast<double>(v);
  else if constexpr (std::is_same_v<T, __half>) return static_cast<double>(__half2float(v));
  else return static_cast<double>(__bfloat162float(v));
}

// std::nextafter(x, y); the half types step their 16-bit pattern by one
// toward y, as the CPU kernel does.
template <typename T>
T NextAfter(T x, T y) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    return std::nextafter(x, y);
  } else {
    const double xd = ToDouble(x), yd = ToDouble(y);
    if (xd == yd) return y;
    if (std::isnan(xd) || std::isnan(yd)) return FromDouble<T>(xd + yd);
    uint16_t bits;
    std::memcpy(&bits, &x, sizeof(bits));
    if (xd == 0) {
      bits = yd < 0 ? 0x8001 : 0x0001;
    } else if ((xd < yd) == (xd > 0)) {
      ++bits;
    } else {
      --bits;
    }
    T out;
    std::memcpy(&out, &bits, sizeof(bits));
    return out;
  }
}

// Reads the seed on the device: a launch never waits for it on the host.
template <typename Seed>
const Seed* SeedOf(const KernelContext& ctx) {
  return static_cast<const Seed*>(ctx.input(0).raw_data());
}

Status CheckSeed(const KernelContext& ctx) {
  if (ctx.input(0).NumElements() != 2) {
    return InvalidArgument("seed must have shape [2], got " + ctx.input(0).shape().ToString());
  }
  return Status::OK();
}

template <typename T, typename Seed>
class UniformKernel final : public OpKernel {
 public:
  explicit UniformKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    EMBER_RETURN_IF_ERROR(CheckSeed(ctx));
    const CudaKernelEnv& env = EnvOf(ctx);
    const T lo = FromDouble<T>(attrs_.minval), hi = FromDouble<T>(attrs_.maxval);
    UniformBounds<T> b;
    b.lo = ToDouble(lo);
    b.hi = ToDouble(hi);
    b.span = b.hi - b.lo;
    b.clamp = b.lo < b.hi;
    b.below_hi = NextAfter(hi, lo);
    Tensor& out = ctx.output(0);
    return env.CheckLaunch(LaunchRandomUniform<T, Seed>(SeedOf<Seed>(ctx), static_cast<T*>(out.raw_data()),
                                                        out.NumElements(), b, StreamOf(env), env.max_blocks),
                           "launching stateless_random_uniform");
  }

 private:
  StatelessRandomUniformAttrs attrs_;
};

template <typename T, typename Seed>
class UniformIntKernel final : public OpKernel {
 public:
  explicit UniformIntKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    EMBER_RETURN_IF_ERROR(CheckSeed(ctx));
    const CudaKernelEnv& env = EnvOf(ctx);
    const int64_t minval = attrs_.minval, maxval = attrs_.maxval;
    if (minval < std::numeric_limits<T>::min() || maxval > std::numeric_limits<T>::max()) {
      return InvalidArgument("minval and maxval must be within the range of " + std::string(DTypeName(TypeOf<T>())) +
                             ", got minval = " + std::to_string(minval) + " and maxval = " + std::to_string(maxval));
    }
    if (minval >= maxval) {
      return InvalidArgument("Need minval < maxval, got minval = " + std::to_string(minval) +
                             " and maxval = " + std::to_string(maxval));
    }
    const uint64_t range = static_cast<uint64_t>(maxval) - static_cast<uint64_t>(minval);
    Tensor& out = ctx.output(0);
    return env.CheckLaunch(LaunchRandomUniformInt<T, Seed>(SeedOf<Seed>(ctx), static_cast<T*>(out.raw_data()),
                                                           out.NumElements(), minval, range, StreamOf(env),
                                                           env.max_blocks),
                           "launching stateless_random_uniform_int");
  }

 private:
  StatelessRandomUniformIntAttrs attrs_;
};

template <typename Attrs, bool kTruncated>
struct NormalOp {
  using AttrsType = Attrs;
  static constexpr bool truncated = kTruncated;
};

template <typename Op, typename T, typename Seed>
class NormalKernel final : public OpKernel {
 public:
  explicit NormalKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    EMBER_RETURN_IF_ERROR(CheckSeed(ctx));
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& out = ctx.output(0);
    return env.CheckLaunch(LaunchRandomNormal<T, Seed>(SeedOf<Seed>(ctx), static_cast<T*>(out.raw_data()),
                                                       out.NumElements(), attrs_.mean, attrs_.stddev, Op::truncated,
                                                       StreamOf(env), env.max_blocks),
                           "launching a normal sampler");
  }

 private:
  typename Op::AttrsType attrs_;
};

using Normal = NormalOp<StatelessRandomNormalAttrs, false>;
using TruncatedNormal = NormalOp<StatelessTruncatedNormalAttrs, true>;

template <typename T, typename Seed>
EMBER_STARTUP_TEMPLATE void RegisterFloat(KernelRegistry& r, DeviceTypeId gpu) {
  const DType t = TypeOf<T>(), seed = TypeOf<Seed>();
  r.Register("stateless_random_uniform", gpu, {t, seed}, &MakeKernel<UniformKernel<T, Seed>>);
  r.Register("stateless_random_normal", gpu, {t, seed}, &MakeKernel<NormalKernel<Normal, T, Seed>>);
  r.Register("stateless_truncated_normal", gpu, {t, seed}, &MakeKernel<NormalKernel<TruncatedNormal, T, Seed>>);
}

template <typename Seed>
EMBER_STARTUP_TEMPLATE void RegisterForSeed(KernelRegistry& r, DeviceTypeId gpu) {
  RegisterFloat<float, Seed>(r, gpu);
  RegisterFloat<double, Seed>(r, gpu);
  RegisterFloat<__half, Seed>(r, gpu);
  RegisterFloat<__nv_bfloat16, Seed>(r, gpu);
  const DType seed = TypeOf<Seed>();
  r.Register("stateless_random_uniform_int", gpu, {DType::kInt32, seed}, &MakeKernel<UniformIntKernel<int32_t, Seed>>);
  r.Register("stateless_random_uniform_int", gpu, {DType::kInt64, seed}, &MakeKernel<UniformIntKernel<int64_t, Seed>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaRandomKernels(KernelRegistry& r, DeviceTypeId gpu) {
  RegisterForSeed<int32_t>(r, gpu);
  RegisterForSeed<int64_t>(r, gpu);
}

}  // namespace ember::cuda

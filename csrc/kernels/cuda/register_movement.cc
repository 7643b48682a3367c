// This file defines the GPU pad, concat and fill-family kernels' host side
// (movement.h) and registers them for every dtype: they move elements by
// size, so one instantiation per size serves all dtypes.
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/movement.h"
#include "ops/attrs/creation.gen.h"
#include "ops/attrs/indexing.gen.h"
#include "ops/attrs/movement.gen.h"
#include "ops/shape_fns/movement.h"

namespace ember::cuda {
namespace {

// `value` as one element of `dtype`, in the low bytes of the result (the
// CPU's rule: bool is value != 0, complex gets a zero imaginary part).
uint64_t ElementBits(DType dtype, double value) {
  uint64_t bits = 0;
  auto put = [&bits](const auto& v) { std::memcpy(&bits, &v, sizeof(v)); };
  switch (dtype) {
    case DType::kBool: put(static_cast<uint8_t>(value != 0)); break;
    case DType::kFloat32: put(static_cast<float>(value)); break;
    case DType::kFloat64: put(value); break;
    case DType::kFloat16: put(__float2half_rn(static_cast<float>(value))); break;
    case DType::kBFloat16: put(__float2bfloat16_rn(static_cast<float>(value))); break;
    case DType::kInt8: put(math::CastTo<int8_t>()(value)); break;
    case DType::kInt16: put(math::CastTo<int16_t>()(value)); break;
    case DType::kInt32: put(math::CastTo<int32_t>()(value)); break;
    case DType::kInt64: put(math::CastTo<int64_t>()(value)); break;
    case DType::kUInt8: put(math::CastTo<uint8_t>()(value)); break;
    case DType::kComplex64: {
      const float parts[2] = {static_cast<float>(value), 0.0f};
      put(parts);
      break;
    }
  }
  return bits;
}

// Fills output 0 with `value` (zeros, ones and their _like forms).
Status FillOutput(KernelContext& ctx, double value) {
  const CudaKernelEnv& env = EnvOf(ctx);
  Tensor& out = ctx.output(0);
  if (value == 0 && out.dtype() != DType::kComplex64) {
    return env.CheckLaunch(env.api->MemsetAsync(out.raw_data(), 0, out.NumBytes(), env.stream), "clearing");
  }
  const uint64_t bits = ElementBits(out.dtype(), value);
  return BySize(out.dtype(), [&](auto u) {
    using U = decltype(u);
    return env.CheckLaunch(LaunchFill<U>(static_cast<U*>(out.raw_data()), out.NumElements(), static_cast<U>(bits),
                                         nullptr, StreamOf(env), env.max_blocks),
                           "launching the fill");
  });
}

template <int kValue>
class ConstantKernel final : public OpKernel {
 public:
  explicit ConstantKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override { return FillOutput(ctx, kValue); }
};

// fill: every element is the value input (one element, on the GPU).
class FillKernel final : public OpKernel {
 public:
  explicit FillKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& out = ctx.output(0);
    const Tensor& value = ctx.input(0);
    return BySize(out.dtype(), [&](auto u) {
      using U = decltype(u);
      return env.CheckLaunch(LaunchFill<U>(static_cast<U*>(out.raw_data()), out.NumElements(), U{0},
                                           static_cast<const U*>(value.raw_data()), StreamOf(env), env.max_blocks),
                             "launching the fill");
    });
  }
};

class PadKernel final : public OpKernel {
 public:
  explicit PadKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& in = ctx.input(0);
    Tensor& out = ctx.output(0);
    shape_fns::PadMode mode;
    Shape out_shape;
    EMBER_RETURN_IF_ERROR(shape_fns::ParsePad(in.shape(), attrs_.paddings, attrs_.mode, &mode, &out_shape));
    if (in.rank() > kMaxMovementDims) return Unimplemented("pad on the GPU takes at most 8 dims");
    PadIndexing p;
    p.rank = in.rank();
    p.mode = mode == shape_fns::PadMode::kConstant ? 0 : mode == shape_fns::PadMode::kReflect ? 1 : 2;
    int64_t stride = 1;
    for (int d = p.rank - 1; d >= 0; --d) {
      p.out_dims[d] = out.dim(d);
      p.in_dims[d] = in.dim(d);
      p.before[d] = attrs_.paddings[2 * d];
      p.in_strides[d] = stride;
      stride *= in.dim(d);
    }
    const uint64_t fill = ElementBits(in.dtype(), attrs_.constant_values);
    return BySize(in.dtype(), [&](auto u) {
      using U = decltype(u);
      return env.CheckLaunch(LaunchPad<U>(static_cast<const U*>(in.raw_data()), static_cast<U*>(out.raw_data()),
                                          out.NumElements(), p, static_cast<U>(fill), StreamOf(env), env.max_blocks),
                             "launching the pad");
    });
  }

 private:
  PadAttrs attrs_;
};

// One copy kernel per input into its columns of the output's rows.
class ConcatKernel final : public OpKernel {
 public:
  explicit ConcatKernel(const KernelInit& init) : axis_(ConcatAttrs(init.attrs).axis) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& out = ctx.output(0);
    const int rank = out.rank();
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);  // checked by the shape function
    int64_t inner = 1;
    for (int d = axis + 1; d < rank; ++d) inner *= out.dim(d);
    const int64_t out_width = out.dim(axis) * inner;
    int64_t start = 0;
    for (int k = 0; k < ctx.num_inputs(); ++k) {
      const Tensor& in = ctx.input(k);
      const int64_t width = in.dim(axis) * inner;
      if (in.NumElements() > 0) {
        EMBER_RETURN_IF_ERROR(BySize(out.dtype(), [&](auto u) {
          using U = decltype(u);
          return env.CheckLaunch(LaunchConcatPart<U>(static_cast<const U*>(in.raw_data()),
                                                     static_cast<U*>(out.raw_data()), in.NumElements(), width, start,
                                                     out_width, StreamOf(env), env.max_blocks),
                                 "launching the concat");
        }));
      }
      start += width;
    }
    return Status::OK();
  }

 private:
  int64_t axis_;
};

// where(condition, x, y) with NumPy broadcasting over all three.
class WhereKernel final : public OpKernel {
 public:
  explicit WhereKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& out = ctx.output(0);
    const Shape shapes[3] = {ctx.input(0).shape(), ctx.input(1).shape(), ctx.input(2).shape()};
    const int64_t* dims[3] = {shapes[0].data(), shapes[1].data(), shapes[2].data()};
    const int ranks[3] = {shapes[0].rank(), shapes[1].rank(), shapes[2].rank()};
    NaryIndexing ix;
    if (!MakeNaryIndexing(out.shape().data(), out.rank(), dims, ranks, 3, &ix)) {
      return Unimplemented("where on the GPU takes at most 8 dims");
    }
    return BySize(out.dtype(), [&](auto u) {
      using U = decltype(u);
      return env.CheckLaunch(
          LaunchWhere<U>(static_cast<const bool*>(ctx.input(0).raw_data()), static_cast<const U*>(ctx.input(1).raw_data()),
                         static_cast<const U*>(ctx.input(2).raw_data()), static_cast<U*>(out.raw_data()),
                         out.NumElements(), ix, StreamOf(env), env.max_blocks),
          "launching where");
    });
  }
};

template <typename Index>
class OneHotKernel final : public OpKernel {
 public:
  explicit OneHotKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& indices = ctx.input(0);
    Tensor& out = ctx.output(0);
    const int rank = indices.rank();
    const int axis = static_cast<int>(!attrs_.axis || *attrs_.axis == -1 ? rank : *attrs_.axis);
    int64_t inner = 1;
    for (int d = axis; d < rank; ++d) inner *= indices.dim(d);
    return BySize(out.dtype(), [&](auto u) {
      using U = decltype(u);
      return env.CheckLaunch(
          LaunchOneHot<U, Index>(static_cast<const Index*>(indices.raw_data()),
                                 static_cast<const U*>(ctx.input(1).raw_data()),
                                 static_cast<const U*>(ctx.input(2).raw_data()), static_cast<U*>(out.raw_data()),
                                 out.NumElements(), attrs_.depth, inner, StreamOf(env), env.max_blocks),
          "launching one_hot");
    });
  }

 private:
  OneHotAttrs attrs_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaMovementKernels(KernelRegistry& r, DeviceTypeId gpu) {
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType t = static_cast<DType>(d);
    r.Register("pad", gpu, {t}, &MakeKernel<PadKernel>);
    r.Register("concat", gpu, {t}, &MakeKernel<ConcatKernel>);
    r.Register("fill", gpu, {t}, &MakeKernel<FillKernel>);
    r.Register("zeros", gpu, {t}, &MakeKernel<ConstantKernel<0>>);
    r.Register("ones", gpu, {t}, &MakeKernel<ConstantKernel<1>>);
    r.Register("zeros_like", gpu, {t}, &MakeKernel<ConstantKernel<0>>);
    r.Register("ones_like", gpu, {t}, &MakeKernel<ConstantKernel<1>>);
    r.Register("where", gpu, {t}, &MakeKernel<WhereKernel>);
    r.Register("one_hot", gpu, {t, DType::kInt32}, &MakeKernel<OneHotKernel<int32_t>>);
    r.Register("one_hot", gpu, {t, DType::kInt64}, &MakeKernel<OneHotKernel<int64_t>>);
  }
}

}  // namespace ember::cuda

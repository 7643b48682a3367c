// This file defines the GPU's element-wise OpKernels (the host side of a
// launch: pointers, the broadcast plan, the grid) and registers them for
// the dtypes whose device code unary.cu and binary.cu instantiate.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/common/element_math.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_body.h"
#include "ops/op_kernel.h"
#include "ops/attrs/nn.gen.h"
#include "ops/plans/broadcast_plan.h"

namespace ember::cuda {
namespace {

template <typename T, typename Out, typename F>
class UnaryKernel final : public OpKernel {
 public:
  explicit UnaryKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    return env.CheckLaunch(LaunchUnary<T, Out, F>(static_cast<const T*>(x.raw_data()), static_cast<Out*>(y.raw_data()),
                                                  x.NumElements(), StreamOf(env), env.max_blocks),
                           "launching the kernel");
  }
};

// Launches out = F(lhs, rhs) over `plan`: flat plans as one run, general
// ones indexed per element with the plan's collapsed dims (Note
// [Broadcast plan]).
template <typename T, typename Out, typename F>
Status LaunchOverPlan(const CudaKernelEnv& env, const BroadcastPlan& plan, const Tensor& lhs, const Tensor& rhs,
                      Tensor& out) {
  const T* l = static_cast<const T*>(lhs.raw_data());
  const T* r = static_cast<const T*>(rhs.raw_data());
  Out* o = static_cast<Out*>(out.raw_data());
  const int64_t n = plan.num_elements;
  cudaError_t result = cudaSuccess;
  switch (plan.kind) {
    case BroadcastPlan::Kind::kEmpty:
      return Status::OK();
    case BroadcastPlan::Kind::kSameShape:
      result = LaunchBinaryFlat<T, Out, F>(l, 1, r, 1, o, n, StreamOf(env), env.max_blocks);
      break;
    case BroadcastPlan::Kind::kLhsScalar:
      result = LaunchBinaryFlat<T, Out, F>(l, 0, r, 1, o, n, StreamOf(env), env.max_blocks);
      break;
    case BroadcastPlan::Kind::kRhsScalar:
      result = LaunchBinaryFlat<T, Out, F>(l, 1, r, 0, o, n, StreamOf(env), env.max_blocks);
      break;
    case BroadcastPlan::Kind::kGeneral: {
      BroadcastIndexing indexing;
      if (!MakeBroadcastIndexing(plan, &indexing)) {
        return Unimplemented("broadcasting " + lhs.shape().ToString() + " with " + rhs.shape().ToString() +
                             " needs " + std::to_string(plan.rank()) + " dims after collapsing; the GPU kernel takes " +
                             std::to_string(kMaxBroadcastRank));
      }
      result = LaunchBinaryBroadcast<T, Out, F>(l, r, o, n, indexing, StreamOf(env), env.max_blocks);
      break;
    }
  }
  return env.CheckLaunch(result, "launching the kernel");
}

template <typename T, typename Out, typename F>
class BinaryKernel final : public OpKernel {
 public:
  explicit BinaryKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& lhs = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    Tensor& out = ctx.output(0);
    if (const BroadcastPlan* plan = ctx.plan<BroadcastPlan>()) {  // Note [Kernel plans]
      return LaunchOverPlan<T, Out, F>(EnvOf(ctx), *plan, lhs, rhs, out);
    }
    return LaunchOverPlan<T, Out, F>(EnvOf(ctx), MakeBroadcastPlan(lhs.shape(), rhs.shape(), out.shape()), lhs, rhs,
                                     out);
  }
};

// bias_add is an add whose bias broadcasts along the channel dim: the last
// one, or dim 1 for 'NC...' formats, where the bias is seen as [C, 1, ...].
template <typename T>
class BiasAddKernel final : public OpKernel {
 public:
  explicit BiasAddKernel(const KernelInit& init) {
    const BiasAddAttrs attrs(init.attrs);
    channels_first_ = attrs.data_format && attrs.data_format->size() > 1 && (*attrs.data_format)[1] == 'C';
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& value = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    Tensor& out = ctx.output(0);
    Shape bias_shape({bias.NumElements()});
    if (channels_first_) {
      for (int d = 2; d < value.rank(); ++d) bias_shape.AddDim(1);
    }
    return LaunchOverPlan<T, T, math::Add>(EnvOf(ctx), MakeBroadcastPlan(value.shape(), bias_shape, out.shape()),
                                           value, bias, out);
  }

 private:
  bool channels_first_ = false;
};

// A view: the output is the input's buffer in the output's shape; no
// device work (for transfer, the runtime already moved the value).
class ViewKernel final : public OpKernel {
 public:
  explicit ViewKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    ctx.set_output(0, Tensor(in.dtype(), ctx.output(0).shape(), in.buffer()));
    return Status::OK();
  }
};

template <typename T, typename Out, typename F>
EMBER_STARTUP_TEMPLATE void Unary(KernelRegistry& registry, const char* op, DeviceTypeId gpu) {
  registry.Register(op, gpu, {TypeOf<T>()}, &MakeKernel<UnaryKernel<T, Out, F>>);
}
template <typename T, typename Out, typename F>
EMBER_STARTUP_TEMPLATE void Binary(KernelRegistry& registry, const char* op, DeviceTypeId gpu) {
  registry.Register(op, gpu, {TypeOf<T>()}, &MakeKernel<BinaryKernel<T, Out, F>>);
}

// The dtype lists mirror the instantiations in unary.cu and binary.cu.
template <typename F>
EMBER_STARTUP_TEMPLATE void UnaryFloats(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  Unary<float, float, F>(r, op, gpu);
  Unary<double, double, F>(r, op, gpu);
  Unary<__half, __half, F>(r, op, gpu);
  Unary<__nv_bfloat16, __nv_bfloat16, F>(r, op, gpu);
}
template <typename F>
EMBER_STARTUP_TEMPLATE void UnarySigned(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  UnaryFloats<F>(r, op, gpu);
  Unary<int8_t, int8_t, F>(r, op, gpu);
  Unary<int16_t, int16_t, F>(r, op, gpu);
  Unary<int32_t, int32_t, F>(r, op, gpu);
  Unary<int64_t, int64_t, F>(r, op, gpu);
}
template <typename F>
EMBER_STARTUP_TEMPLATE void Predicate(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  Unary<float, bool, F>(r, op, gpu);
  Unary<double, bool, F>(r, op, gpu);
  Unary<__half, bool, F>(r, op, gpu);
  Unary<__nv_bfloat16, bool, F>(r, op, gpu);
}
template <typename F>
EMBER_STARTUP_TEMPLATE void BinaryFloats(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  Binary<float, float, F>(r, op, gpu);
  Binary<double, double, F>(r, op, gpu);
  Binary<__half, __half, F>(r, op, gpu);
  Binary<__nv_bfloat16, __nv_bfloat16, F>(r, op, gpu);
}
template <typename F>
EMBER_STARTUP_TEMPLATE void BinaryIntegers(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  Binary<int8_t, int8_t, F>(r, op, gpu);
  Binary<int16_t, int16_t, F>(r, op, gpu);
  Binary<int32_t, int32_t, F>(r, op, gpu);
  Binary<int64_t, int64_t, F>(r, op, gpu);
  Binary<uint8_t, uint8_t, F>(r, op, gpu);
}
template <typename F>
EMBER_STARTUP_TEMPLATE void Comparison(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  Binary<float, bool, F>(r, op, gpu);
  Binary<double, bool, F>(r, op, gpu);
  Binary<__half, bool, F>(r, op, gpu);
  Binary<__nv_bfloat16, bool, F>(r, op, gpu);
  Binary<int32_t, bool, F>(r, op, gpu);
  Binary<int64_t, bool, F>(r, op, gpu);
  Binary<int8_t, bool, F>(r, op, gpu);
  Binary<int16_t, bool, F>(r, op, gpu);
  Binary<uint8_t, bool, F>(r, op, gpu);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaElementwiseKernels(KernelRegistry& r, DeviceTypeId gpu) {
  UnarySigned<math::Negative>(r, "negative", gpu);
  UnarySigned<math::Abs>(r, "abs", gpu);
  UnarySigned<math::Sign>(r, "sign", gpu);
  UnarySigned<math::Square>(r, "square", gpu);
  Unary<uint8_t, uint8_t, math::Square>(r, "square", gpu);
  UnarySigned<math::Relu>(r, "relu", gpu);  // uint8's relu is the identity: on the CPU
  UnaryFloats<math::Exp>(r, "exp", gpu);
  UnaryFloats<math::Log>(r, "log", gpu);
  UnaryFloats<math::Sqrt>(r, "sqrt", gpu);
  UnaryFloats<math::Rsqrt>(r, "rsqrt", gpu);
  UnaryFloats<math::Reciprocal>(r, "reciprocal", gpu);
  UnaryFloats<math::Tanh>(r, "tanh", gpu);
  UnaryFloats<math::Sigmoid>(r, "sigmoid", gpu);
  UnaryFloats<math::Softplus>(r, "softplus", gpu);
  UnaryFloats<math::Floor>(r, "floor", gpu);
  UnaryFloats<math::Ceil>(r, "ceil", gpu);
  UnaryFloats<math::Round>(r, "round", gpu);
  UnaryFloats<math::Expm1>(r, "expm1", gpu);
  UnaryFloats<math::Log1p>(r, "log1p", gpu);
  UnaryFloats<math::Sin>(r, "sin", gpu);
  UnaryFloats<math::Cos>(r, "cos", gpu);
  UnaryFloats<math::Tan>(r, "tan", gpu);
  UnaryFloats<math::Asin>(r, "asin", gpu);
  UnaryFloats<math::Acos>(r, "acos", gpu);
  UnaryFloats<math::Atan>(r, "atan", gpu);
  UnaryFloats<math::Sinh>(r, "sinh", gpu);
  UnaryFloats<math::Cosh>(r, "cosh", gpu);
  UnaryFloats<math::Asinh>(r, "asinh", gpu);
  UnaryFloats<math::Acosh>(r, "acosh", gpu);
  UnaryFloats<math::Atanh>(r, "atanh", gpu);
  UnaryFloats<math::Erf>(r, "erf", gpu);
  UnaryFloats<math::Erfc>(r, "erfc", gpu);
  Predicate<math::IsNanOf>(r, "is_nan", gpu);
  Predicate<math::IsInf>(r, "is_inf", gpu);
  Predicate<math::IsFinite>(r, "is_finite", gpu);
  Unary<bool, bool, math::LogicalNot>(r, "logical_not", gpu);

  BinaryFloats<math::Add>(r, "add", gpu);
  BinaryIntegers<math::Add>(r, "add", gpu);
  BinaryFloats<math::Subtract>(r, "subtract", gpu);
  BinaryIntegers<math::Subtract>(r, "subtract", gpu);
  BinaryFloats<math::Multiply>(r, "multiply", gpu);
  BinaryIntegers<math::Multiply>(r, "multiply", gpu);
  BinaryFloats<math::Divide>(r, "divide", gpu);
  BinaryFloats<math::Divide>(r, "truediv", gpu);  // integers were converted to floats before the op
  BinaryFloats<math::Maximum>(r, "maximum", gpu);
  BinaryIntegers<math::Maximum>(r, "maximum", gpu);
  BinaryFloats<math::Minimum>(r, "minimum", gpu);
  BinaryIntegers<math::Minimum>(r, "minimum", gpu);
  BinaryFloats<math::SquaredDifference>(r, "squared_difference", gpu);
  Binary<int32_t, int32_t, math::SquaredDifference>(r, "squared_difference", gpu);
  Binary<int64_t, int64_t, math::SquaredDifference>(r, "squared_difference", gpu);
  BinaryFloats<math::ReluGrad>(r, "relu_grad", gpu);
  BinaryIntegers<math::ReluGrad>(r, "relu_grad", gpu);
  BinaryFloats<math::Pow>(r, "pow", gpu);
  BinaryFloats<math::Atan2>(r, "atan2", gpu);
  BinaryFloats<math::Xlogy>(r, "xlogy", gpu);
  BinaryFloats<math::FloorDiv>(r, "floordiv", gpu);  // integers: the CPU's checked kernels
  BinaryFloats<math::FloorMod>(r, "floormod", gpu);
  BinaryIntegers<math::BitwiseAnd>(r, "bitwise_and", gpu);
  BinaryIntegers<math::BitwiseOr>(r, "bitwise_or", gpu);
  BinaryIntegers<math::BitwiseXor>(r, "bitwise_xor", gpu);
  Comparison<math::Equal>(r, "equal", gpu);
  Comparison<math::NotEqual>(r, "not_equal", gpu);
  Binary<bool, bool, math::Equal>(r, "equal", gpu);
  Binary<bool, bool, math::NotEqual>(r, "not_equal", gpu);
  Comparison<math::Less>(r, "less", gpu);
  Comparison<math::LessEqual>(r, "less_equal", gpu);
  Comparison<math::Greater>(r, "greater", gpu);
  Comparison<math::GreaterEqual>(r, "greater_equal", gpu);
  r.Register("bias_add", gpu, {DType::kFloat32}, &MakeKernel<BiasAddKernel<float>>);
  r.Register("bias_add", gpu, {DType::kFloat64}, &MakeKernel<BiasAddKernel<double>>);
  r.Register("bias_add", gpu, {DType::kFloat16}, &MakeKernel<BiasAddKernel<__half>>);
  r.Register("bias_add", gpu, {DType::kBFloat16}, &MakeKernel<BiasAddKernel<__nv_bfloat16>>);
  r.Register("bias_add", gpu, {DType::kInt8}, &MakeKernel<BiasAddKernel<int8_t>>);
  r.Register("bias_add", gpu, {DType::kInt16}, &MakeKernel<BiasAddKernel<int16_t>>);
  r.Register("bias_add", gpu, {DType::kInt32}, &MakeKernel<BiasAddKernel<int32_t>>);
  r.Register("bias_add", gpu, {DType::kInt64}, &MakeKernel<BiasAddKernel<int64_t>>);
  r.Register("bias_add", gpu, {DType::kUInt8}, &MakeKernel<BiasAddKernel<uint8_t>>);
  Binary<bool, bool, math::LogicalAnd>(r, "logical_and", gpu);
  Binary<bool, bool, math::LogicalOr>(r, "logical_or", gpu);
  Binary<bool, bool, math::LogicalXor>(r, "logical_xor", gpu);

  for (int d = 0; d < kNumDTypes; ++d) {
    for (const char* view : {"transfer", "reshape", "identity", "stop_gradient", "expand_dims", "squeeze"}) {
      r.Register(view, gpu, {static_cast<DType>(d)}, &MakeKernel<ViewKernel>);
    }
  }
}

}  // namespace ember::cuda

// This file defines the GPU reduction kernels' host side (the axes, the
// plan, the indexing of Note [GPU reductions]) and registers them.
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/reduce.h"
#include "ops/attrs/reduction.gen.h"
#include "ops/plans/reduce_plan.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cuda {
namespace {

// The indexing of a reduction of input 0 over `axis` (the shape
// function's plan, Note [Kernel plans], else worked out here).
Status IndexingFor(const KernelContext& ctx, const std::optional<std::vector<int64_t>>& axis, ReduceIndexing* ix) {
  const Tensor& input = ctx.input(0);
  ReducePlan made;
  const ReducePlan* plan = ctx.plan<ReducePlan>();
  if (plan == nullptr) {
    std::vector<bool> reduced_axes;
    EMBER_RETURN_IF_ERROR(shape_fns::NormalizeAxes(axis, input.rank(), &reduced_axes));
    made = MakeReducePlan(input.shape(), reduced_axes);
    plan = &made;
  }
  EMBER_RETURN_IF_ERROR(MakeReduceIndexing(input.shape(), *plan, ix));
  return Status::OK();
}

template <typename T, typename Attrs, ReduceOp kOp>
class ReduceKernel final : public OpKernel {
 public:
  explicit ReduceKernel(const KernelInit& init) : axis_(Attrs(init.attrs).axis) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    ReduceIndexing ix;
    EMBER_RETURN_IF_ERROR(IndexingFor(ctx, axis_, &ix));
    ix.num_outputs = output.NumElements();
    return env.CheckLaunch(LaunchReduce<T>(kOp, static_cast<const T*>(input.raw_data()),
                                           static_cast<T*>(output.raw_data()), ix,
                                           StreamOf(env), env.max_blocks),
                           "launching the reduction");
  }

 private:
  std::optional<std::vector<int64_t>> axis_;
};

// reduce_logsumexp, _variance, _std (Note [GPU two-pass reductions]).
template <typename T, typename Attrs, TwoPassOp kOp>
class TwoPassReduceKernel final : public OpKernel {
 public:
  explicit TwoPassReduceKernel(const KernelInit& init) : axis_(Attrs(init.attrs).axis) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& output = ctx.output(0);
    ReduceIndexing ix;
    EMBER_RETURN_IF_ERROR(IndexingFor(ctx, axis_, &ix));
    ix.num_outputs = output.NumElements();
    return env.CheckLaunch(LaunchTwoPassReduce<T>(kOp, static_cast<const T*>(ctx.input(0).raw_data()),
                                                  static_cast<T*>(output.raw_data()), ix, StreamOf(env),
                                                  env.max_blocks),
                           "launching the reduction");
  }

 private:
  std::optional<std::vector<int64_t>> axis_;
};

template <typename Attrs, TwoPassOp kOp>
EMBER_STARTUP_TEMPLATE void RegisterTwoPass(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  r.Register(op, gpu, {DType::kFloat32}, &MakeKernel<TwoPassReduceKernel<float, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kFloat64}, &MakeKernel<TwoPassReduceKernel<double, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kFloat16}, &MakeKernel<TwoPassReduceKernel<__half, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kBFloat16}, &MakeKernel<TwoPassReduceKernel<__nv_bfloat16, Attrs, kOp>>);
}

// reduce_all and reduce_any: the minimum and maximum of bool's bytes (0
// or 1); a reduction of nothing is true for all, false for any.
template <typename Attrs, bool kAll>
class BoolReduceKernel final : public OpKernel {
 public:
  explicit BoolReduceKernel(const KernelInit& init) : axis_(Attrs(init.attrs).axis) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    ReduceIndexing ix;
    EMBER_RETURN_IF_ERROR(IndexingFor(ctx, axis_, &ix));
    ix.num_outputs = output.NumElements();
    if (ix.num_reduced == 0) {
      return env.CheckLaunch(env.api->MemsetAsync(output.raw_data(), kAll ? 1 : 0, output.NumBytes(), env.stream),
                             "filling the empty reduction");
    }
    return env.CheckLaunch(LaunchReduce<uint8_t>(kAll ? ReduceOp::kMin : ReduceOp::kMax,
                                                 static_cast<const uint8_t*>(ctx.input(0).raw_data()),
                                                 static_cast<uint8_t*>(output.raw_data()), ix, StreamOf(env),
                                                 env.max_blocks),
                           "launching the reduction");
  }

 private:
  std::optional<std::vector<int64_t>> axis_;
};

template <typename Attrs, ReduceOp kOp>
EMBER_STARTUP_TEMPLATE void Register(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  r.Register(op, gpu, {DType::kFloat32}, &MakeKernel<ReduceKernel<float, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kFloat64}, &MakeKernel<ReduceKernel<double, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kFloat16}, &MakeKernel<ReduceKernel<__half, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kBFloat16}, &MakeKernel<ReduceKernel<__nv_bfloat16, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kInt32}, &MakeKernel<ReduceKernel<int32_t, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kInt64}, &MakeKernel<ReduceKernel<int64_t, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kInt8}, &MakeKernel<ReduceKernel<int8_t, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kInt16}, &MakeKernel<ReduceKernel<int16_t, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kUInt8}, &MakeKernel<ReduceKernel<uint8_t, Attrs, kOp>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaReduceKernels(KernelRegistry& r, DeviceTypeId gpu) {
  Register<ReduceSumAttrs, ReduceOp::kSum>(r, "reduce_sum", gpu);
  Register<ReduceMeanAttrs, ReduceOp::kMean>(r, "reduce_mean", gpu);
  Register<ReduceProdAttrs, ReduceOp::kProd>(r, "reduce_prod", gpu);
  Register<ReduceMaxAttrs, ReduceOp::kMax>(r, "reduce_max", gpu);
  Register<ReduceMinAttrs, ReduceOp::kMin>(r, "reduce_min", gpu);
  RegisterTwoPass<ReduceLogsumexpAttrs, TwoPassOp::kLogSumExp>(r, "reduce_logsumexp", gpu);
  RegisterTwoPass<ReduceVarianceAttrs, TwoPassOp::kVariance>(r, "reduce_variance", gpu);
  RegisterTwoPass<ReduceStdAttrs, TwoPassOp::kStd>(r, "reduce_std", gpu);
  r.Register("reduce_all", gpu, {DType::kBool}, &MakeKernel<BoolReduceKernel<ReduceAllAttrs, true>>);
  r.Register("reduce_any", gpu, {DType::kBool}, &MakeKernel<BoolReduceKernel<ReduceAnyAttrs, false>>);
}

}  // namespace ember::cuda

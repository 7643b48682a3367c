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

// The launcher of each kind of reduction: one pass (ReduceOp) or two
// (TwoPassOp, Note [GPU two-pass reductions]).
template <typename T>
cudaError_t LaunchFor(ReduceOp op, const T* in, T* out, const ReduceIndexing& ix, cudaStream_t stream,
                      int64_t max_blocks) {
  return LaunchReduce<T>(op, in, out, ix, stream, max_blocks);
}
template <typename T>
cudaError_t LaunchFor(TwoPassOp op, const T* in, T* out, const ReduceIndexing& ix, cudaStream_t stream,
                      int64_t max_blocks) {
  return LaunchTwoPassReduce<T>(op, in, out, ix, stream, max_blocks);
}

template <typename T, typename Attrs, auto kOp>
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
    return env.CheckLaunch(LaunchFor<T>(kOp, static_cast<const T*>(input.raw_data()),
                                        static_cast<T*>(output.raw_data()), ix, StreamOf(env), env.max_blocks),
                           "launching the reduction");
  }

 private:
  std::optional<std::vector<int64_t>> axis_;
};

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

template <typename Attrs, auto kOp, typename... Ts>
EMBER_STARTUP_TEMPLATE void Register(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  (r.Register(op, gpu, {TypeOf<Ts>()}, &MakeKernel<ReduceKernel<Ts, Attrs, kOp>>), ...);
}

// The dtype lists mirror the instantiations in reduce.cu.
template <typename Attrs, ReduceOp kOp>
EMBER_STARTUP_TEMPLATE void RegisterOnePass(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  Register<Attrs, kOp, float, double, __half, __nv_bfloat16, int32_t, int64_t, int8_t, int16_t, uint8_t>(r, op, gpu);
}
template <typename Attrs, TwoPassOp kOp>
EMBER_STARTUP_TEMPLATE void RegisterTwoPass(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  Register<Attrs, kOp, float, double, __half, __nv_bfloat16>(r, op, gpu);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaReduceKernels(KernelRegistry& r, DeviceTypeId gpu) {
  RegisterOnePass<ReduceSumAttrs, ReduceOp::kSum>(r, "reduce_sum", gpu);
  RegisterOnePass<ReduceMeanAttrs, ReduceOp::kMean>(r, "reduce_mean", gpu);
  RegisterOnePass<ReduceProdAttrs, ReduceOp::kProd>(r, "reduce_prod", gpu);
  RegisterOnePass<ReduceMaxAttrs, ReduceOp::kMax>(r, "reduce_max", gpu);
  RegisterOnePass<ReduceMinAttrs, ReduceOp::kMin>(r, "reduce_min", gpu);
  RegisterTwoPass<ReduceLogsumexpAttrs, TwoPassOp::kLogSumExp>(r, "reduce_logsumexp", gpu);
  RegisterTwoPass<ReduceVarianceAttrs, TwoPassOp::kVariance>(r, "reduce_variance", gpu);
  RegisterTwoPass<ReduceStdAttrs, TwoPassOp::kStd>(r, "reduce_std", gpu);
  r.Register("reduce_all", gpu, {DType::kBool}, &MakeKernel<BoolReduceKernel<ReduceAllAttrs, true>>);
  r.Register("reduce_any", gpu, {DType::kBool}, &MakeKernel<BoolReduceKernel<ReduceAnyAttrs, false>>);
}

}  // namespace ember::cuda

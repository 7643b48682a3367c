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

template <typename T, typename Attrs, ReduceOp kOp>
class ReduceKernel final : public OpKernel {
 public:
  explicit ReduceKernel(const KernelInit& init) : axis_(Attrs(init.attrs).axis) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    ReducePlan made;
    const ReducePlan* plan = ctx.plan<ReducePlan>();
    if (plan == nullptr) {
      std::vector<bool> reduced_axes;
      EMBER_RETURN_IF_ERROR(shape_fns::NormalizeAxes(axis_, input.rank(), &reduced_axes));
      made = MakeReducePlan(input.shape(), reduced_axes);
      plan = &made;
    }
    ReduceIndexing ix;
    EMBER_RETURN_IF_ERROR(MakeReduceIndexing(input.shape(), *plan, &ix));
    ix.num_outputs = output.NumElements();
    return env.CheckLaunch(LaunchReduce<T>(kOp, static_cast<const T*>(input.raw_data()),
                                           static_cast<T*>(output.raw_data()), ix,
                                           StreamOf(env), env.max_blocks),
                           "launching the reduction");
  }

 private:
  std::optional<std::vector<int64_t>> axis_;
};

template <typename Attrs, ReduceOp kOp>
void Register(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  r.Register(op, gpu, {DType::kFloat32}, &MakeKernel<ReduceKernel<float, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kFloat64}, &MakeKernel<ReduceKernel<double, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kFloat16}, &MakeKernel<ReduceKernel<__half, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kBFloat16}, &MakeKernel<ReduceKernel<__nv_bfloat16, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kInt32}, &MakeKernel<ReduceKernel<int32_t, Attrs, kOp>>);
  r.Register(op, gpu, {DType::kInt64}, &MakeKernel<ReduceKernel<int64_t, Attrs, kOp>>);
}

}  // namespace

void RegisterCudaReduceKernels(KernelRegistry& r, DeviceTypeId gpu) {
  Register<ReduceSumAttrs, ReduceOp::kSum>(r, "reduce_sum", gpu);
  Register<ReduceMeanAttrs, ReduceOp::kMean>(r, "reduce_mean", gpu);
  Register<ReduceProdAttrs, ReduceOp::kProd>(r, "reduce_prod", gpu);
  Register<ReduceMaxAttrs, ReduceOp::kMax>(r, "reduce_max", gpu);
  Register<ReduceMinAttrs, ReduceOp::kMin>(r, "reduce_min", gpu);
}

}  // namespace ember::cuda

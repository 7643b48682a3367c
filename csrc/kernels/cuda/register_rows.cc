// This file defines the GPU layer_normalization, argmax and argmin
// kernels' host side (Note [GPU row kernels]) and registers them.
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/rows.h"
#include "ops/attrs/nn.gen.h"
#include "ops/plans/reduce_plan.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cuda {
namespace {

template <typename T>
class LayerNormKernel final : public OpKernel {
 public:
  explicit LayerNormKernel(const KernelInit& init) {
    const LayerNormalizationAttrs attrs(init.attrs);
    axis_ = attrs.axis;
    epsilon_ = attrs.epsilon;
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<bool> normalized;
    EMBER_RETURN_IF_ERROR(shape_fns::NormalizeAxes(std::optional<std::vector<int64_t>>(axis_), x.rank(), &normalized));
    ReduceIndexing ix;
    EMBER_RETURN_IF_ERROR(MakeReduceIndexing(x.shape(), MakeReducePlan(x.shape(), normalized), &ix));
    const CudaKernelEnv& env = EnvOf(ctx);
    return env.CheckLaunch(
        LaunchLayerNorm<T>(static_cast<const T*>(x.raw_data()), static_cast<const T*>(ctx.input(1).raw_data()),
                           static_cast<const T*>(ctx.input(2).raw_data()), static_cast<T*>(ctx.output(0).raw_data()),
                           ix, epsilon_, StreamOf(env), env.max_blocks),
        "launching layer normalization");
  }

 private:
  std::vector<int64_t> axis_;
  double epsilon_ = 0;
};

// Attrs by index: 0 axis (optional int, None = 0), 1 output_type.
template <typename T, bool kMax>
class ArgReduceKernel final : public OpKernel {
 public:
  explicit ArgReduceKernel(const KernelInit& init) : axis_(init.attrs[0].is_none() ? 0 : init.attrs[0].as_int()) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& out = ctx.output(0);
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + x.rank() : axis_);  // checked by the shape function
    std::vector<bool> reduced(x.rank(), false);
    reduced[axis] = true;
    ReduceIndexing ix;
    EMBER_RETURN_IF_ERROR(MakeReduceIndexing(x.shape(), MakeReducePlan(x.shape(), reduced), &ix));
    ix.num_outputs = out.NumElements();
    const CudaKernelEnv& env = EnvOf(ctx);
    const auto* in = static_cast<const T*>(x.raw_data());
    const auto stream = StreamOf(env);
    const cudaError_t r =
        out.dtype() == DType::kInt32
            ? LaunchArgReduce<T, int32_t>(in, static_cast<int32_t*>(out.raw_data()), ix, kMax, stream, env.max_blocks)
            : LaunchArgReduce<T, int64_t>(in, static_cast<int64_t*>(out.raw_data()), ix, kMax, stream, env.max_blocks);
    return env.CheckLaunch(r, "launching the arg-reduction");
  }

 private:
  int64_t axis_;
};

template <typename T>
EMBER_STARTUP_TEMPLATE void RegisterArg(KernelRegistry& r, DeviceTypeId gpu) {
  for (DType index : {DType::kInt32, DType::kInt64}) {
    r.Register("argmax", gpu, {TypeOf<T>(), index}, &MakeKernel<ArgReduceKernel<T, true>>);
    r.Register("argmin", gpu, {TypeOf<T>(), index}, &MakeKernel<ArgReduceKernel<T, false>>);
  }
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaRowKernels(KernelRegistry& r, DeviceTypeId gpu) {
  r.Register("layer_normalization", gpu, {DType::kFloat32}, &MakeKernel<LayerNormKernel<float>>);
  r.Register("layer_normalization", gpu, {DType::kFloat64}, &MakeKernel<LayerNormKernel<double>>);
  r.Register("layer_normalization", gpu, {DType::kFloat16}, &MakeKernel<LayerNormKernel<__half>>);
  r.Register("layer_normalization", gpu, {DType::kBFloat16}, &MakeKernel<LayerNormKernel<__nv_bfloat16>>);
  RegisterArg<float>(r, gpu);
  RegisterArg<double>(r, gpu);
  RegisterArg<__half>(r, gpu);
  RegisterArg<__nv_bfloat16>(r, gpu);
  RegisterArg<int32_t>(r, gpu);
  RegisterArg<int64_t>(r, gpu);
  RegisterArg<int8_t>(r, gpu);
  RegisterArg<int16_t>(r, gpu);
  RegisterArg<uint8_t>(r, gpu);
}

}  // namespace ember::cuda

// This file defines the GPU gather, gather_nd, scatter_nd and
// tensor_scatter_nd_update kernels' host side (indexing.h) and registers
// them. Each launch takes a device error word for its out-of-range
// indices (Note [Device error words] in core/device_error.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/indexing.h"
#include "ops/attrs/indexing.gen.h"
#include "ops/shape_fns/movement.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cuda {
namespace {

// The word for a launch reading `indices` (input `operand`), whose message
// names the bad index as the CPU's does.
Status IndexErrorWord(KernelContext& ctx, const Tensor& indices, DeviceErrorWord** word) {
  *word = ctx.NewErrorWord([dims = indices.shape().ToVector()](const DeviceErrorWord& w) {
    return "indices[" + shape_fns::IndexToString(dims, w.position) + "] = " + std::to_string(w.value) +
           " is not in [0, " + std::to_string(w.bound) + ")";
  });
  if (*word == nullptr) return ResourceExhausted("no device error word could be allocated for the index check");
  return Status::OK();
}

Status MakeNdIndexing(const shape_fns::GatherNdPlan& plan, NdIndexing* nd) {
  if (plan.index_depth > kMaxIndexDepth) {
    return Unimplemented("the GPU kernel takes indices of depth at most " + std::to_string(kMaxIndexDepth) + ", got " +
                         std::to_string(plan.index_depth));
  }
  nd->depth = static_cast<int>(plan.index_depth);
  nd->slots_per_batch = 1;
  for (int m = 0; m < nd->depth; ++m) {
    nd->dims[m] = plan.indexed_dims[m];
    nd->slots_per_batch *= plan.indexed_dims[m];
  }
  nd->num_indices = plan.num_indices;
  nd->inner = plan.inner;
  return Status::OK();
}

template <typename Index>
class GatherKernel final : public OpKernel {
 public:
  explicit GatherKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    Tensor& out = ctx.output(0);
    shape_fns::GatherPlan plan;
    EMBER_RETURN_IF_ERROR(
        shape_fns::MakeGatherPlan(params.shape(), indices.shape(), attrs_.axis, attrs_.batch_dims, &plan));
    if (out.NumElements() == 0) return Status::OK();
    DeviceErrorWord* word;
    EMBER_RETURN_IF_ERROR(IndexErrorWord(ctx, indices, &word));
    GatherIndexing g{plan.outer, plan.axis_dim, plan.num_indices, plan.inner};
    return BySize(params.dtype(), [&](auto u) {
      using U = decltype(u);
      return env.CheckLaunch(LaunchGather<U, Index>(static_cast<const U*>(params.raw_data()),
                                                    static_cast<const Index*>(indices.raw_data()),
                                                    static_cast<U*>(out.raw_data()), out.NumElements(), g, word,
                                                    StreamOf(env), env.max_blocks),
                             "launching gather");
    });
  }

 private:
  GatherAttrs attrs_;
};

template <typename Index>
class GatherNdKernel final : public OpKernel {
 public:
  explicit GatherNdKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    Tensor& out = ctx.output(0);
    shape_fns::GatherNdPlan plan;
    EMBER_RETURN_IF_ERROR(shape_fns::MakeGatherNdPlan(params.shape(), indices.shape(), attrs_.batch_dims, &plan));
    NdIndexing nd;
    EMBER_RETURN_IF_ERROR(MakeNdIndexing(plan, &nd));
    if (out.NumElements() == 0) return Status::OK();
    DeviceErrorWord* word;
    EMBER_RETURN_IF_ERROR(IndexErrorWord(ctx, indices, &word));
    return BySize(params.dtype(), [&](auto u) {
      using U = decltype(u);
      return env.CheckLaunch(LaunchGatherNd<U, Index>(static_cast<const U*>(params.raw_data()),
                                                      static_cast<const Index*>(indices.raw_data()),
                                                      static_cast<U*>(out.raw_data()), out.NumElements(), nd, word,
                                                      StreamOf(env), env.max_blocks),
                             "launching gather_nd");
    });
  }

 private:
  GatherNdAttrs attrs_;
};

// scatter_nd: zeros, then every update added in with atomics (so sums of
// floats may round in another order than the CPU's sequential sum).
template <typename T, typename Index>
class ScatterNdKernel final : public OpKernel {
 public:
  explicit ScatterNdKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& indices = ctx.input(0);
    const Tensor& updates = ctx.input(1);
    Tensor& out = ctx.output(0);
    shape_fns::GatherNdPlan plan;
    EMBER_RETURN_IF_ERROR(shape_fns::MakeScatterNdPlan(out.shape(), indices.shape(), updates.shape(), &plan));
    NdIndexing nd;
    EMBER_RETURN_IF_ERROR(MakeNdIndexing(plan, &nd));
    if (out.NumBytes() > 0) {
      EMBER_RETURN_IF_ERROR(
          env.CheckLaunch(env.api->MemsetAsync(out.raw_data(), 0, out.NumBytes(), env.stream), "clearing"));
    }
    if (updates.NumElements() == 0) return Status::OK();
    DeviceErrorWord* word;
    EMBER_RETURN_IF_ERROR(IndexErrorWord(ctx, indices, &word));
    return env.CheckLaunch(LaunchScatterAdd<T, Index>(static_cast<const Index*>(indices.raw_data()),
                                                      static_cast<const T*>(updates.raw_data()),
                                                      static_cast<T*>(out.raw_data()), updates.NumElements(), nd,
                                                      word, StreamOf(env), env.max_blocks),
                           "launching scatter_nd");
  }
};

template <typename Index>
class TensorScatterNdUpdateKernel final : public OpKernel {
 public:
  explicit TensorScatterNdUpdateKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& tensor = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    Tensor& out = ctx.output(0);
    shape_fns::GatherNdPlan plan;
    EMBER_RETURN_IF_ERROR(shape_fns::MakeScatterNdPlan(tensor.shape(), indices.shape(), updates.shape(), &plan));
    NdIndexing nd;
    EMBER_RETURN_IF_ERROR(MakeNdIndexing(plan, &nd));
    if (out.NumBytes() > 0) {
      EMBER_RETURN_IF_ERROR(env.CheckLaunch(
          env.api->MemcpyAsync(out.raw_data(), tensor.raw_data(), out.NumBytes(), env.stream), "copying the tensor"));
    }
    const int64_t index_rows = plan.batch * plan.num_indices;
    if (index_rows == 0 || out.NumElements() == 0) return Status::OK();
    const int64_t rows = plan.batch * nd.slots_per_batch;
    Scratch winners(ctx, static_cast<size_t>(rows) * sizeof(int64_t));
    if (winners.failed()) return ResourceExhausted("out of GPU memory for tensor_scatter_nd_update's scratch");
    DeviceErrorWord* word;
    EMBER_RETURN_IF_ERROR(IndexErrorWord(ctx, indices, &word));
    return BySize(out.dtype(), [&](auto u) {
      using U = decltype(u);
      return env.CheckLaunch(
          LaunchScatterUpdate<U, Index>(static_cast<const Index*>(indices.raw_data()),
                                        static_cast<const U*>(updates.raw_data()), static_cast<U*>(out.raw_data()),
                                        updates.NumElements(), index_rows, nd, static_cast<int64_t*>(winners.get()),
                                        rows, word, StreamOf(env), env.max_blocks),
          "launching tensor_scatter_nd_update");
    });
  }
};

template <typename T>
EMBER_STARTUP_TEMPLATE void RegisterScatterAdd(KernelRegistry& r, DeviceTypeId gpu, DType t) {
  r.Register("scatter_nd", gpu, {t, DType::kInt32}, &MakeKernel<ScatterNdKernel<T, int32_t>>);
  r.Register("scatter_nd", gpu, {t, DType::kInt64}, &MakeKernel<ScatterNdKernel<T, int64_t>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaIndexingKernels(KernelRegistry& r, DeviceTypeId gpu) {
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType t = static_cast<DType>(d);
    r.Register("gather", gpu, {t, DType::kInt32}, &MakeKernel<GatherKernel<int32_t>>);
    r.Register("gather", gpu, {t, DType::kInt64}, &MakeKernel<GatherKernel<int64_t>>);
    r.Register("gather_nd", gpu, {t, DType::kInt32}, &MakeKernel<GatherNdKernel<int32_t>>);
    r.Register("gather_nd", gpu, {t, DType::kInt64}, &MakeKernel<GatherNdKernel<int64_t>>);
    r.Register("tensor_scatter_nd_update", gpu, {t, DType::kInt32}, &MakeKernel<TensorScatterNdUpdateKernel<int32_t>>);
    r.Register("tensor_scatter_nd_update", gpu, {t, DType::kInt64}, &MakeKernel<TensorScatterNdUpdateKernel<int64_t>>);
  }
  // The dtypes CUDA has an atomic add for; the others run on the CPU.
  RegisterScatterAdd<float>(r, gpu, DType::kFloat32);
  RegisterScatterAdd<double>(r, gpu, DType::kFloat64);
  RegisterScatterAdd<__half>(r, gpu, DType::kFloat16);
  RegisterScatterAdd<__nv_bfloat16>(r, gpu, DType::kBFloat16);
  RegisterScatterAdd<int32_t>(r, gpu, DType::kInt32);
  RegisterScatterAdd<int64_t>(r, gpu, DType::kInt64);
}

}  // namespace ember::cuda

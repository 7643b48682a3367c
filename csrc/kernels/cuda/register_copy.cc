// This file defines the GPU kernels of the movement ops that are one
// strided copy per tensor (slice, strided_slice, reverse, broadcast_to,
// tile, stack, unstack, split) over the plans the CPU kernels use
// (ops/plans/copy_plan.h), and registers them for every dtype.
#include "kernels/cuda/copy_indexing.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/movement.h"
#include "ops/attrs/movement.gen.h"
#include "ops/plans/copy_plan.h"

namespace ember::cuda {
namespace {

// Launches `plan` from src to dst, elements moved by size.
Status LaunchCopy(const KernelContext& ctx, const Tensor& src, Tensor& dst, const CopyPlan& plan) {
  StridedCopyIndexing ix;
  int64_t n = 0;
  if (!StridedCopyIndexingFor(plan, &ix, &n)) {
    return Unimplemented("a strided copy of more than " + std::to_string(kMaxMovementDims) +
                         " dims that cannot be merged runs on the CPU only");
  }
  if (n == 0) return Status::OK();
  const CudaKernelEnv& env = EnvOf(ctx);
  return BySize(src.dtype(), [&](auto u) {
    using U = decltype(u);
    return env.CheckLaunch(LaunchStridedCopy<U>(static_cast<const U*>(src.raw_data()), static_cast<U*>(dst.raw_data()),
                                                n, ix, StreamOf(env), env.max_blocks),
                           "launching a strided copy");
  });
}

template <typename Attrs>
class ViewCopyKernel final : public OpKernel {
 public:
  explicit ViewCopyKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    shape_fns::StridedView view;
    EMBER_RETURN_IF_ERROR(ViewOf(attrs_, in.shape(), &view));
    return LaunchCopy(ctx, in, ctx.output(0), CopyPlanForView(view));
  }

 private:
  Attrs attrs_;
};

int Normalized(int64_t axis, int rank) { return static_cast<int>(axis < 0 ? axis + rank : axis); }

class StackKernel final : public OpKernel {
 public:
  explicit StackKernel(const KernelInit& init) : axis_(StackAttrs(init.attrs).axis) {}
  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    const int axis = Normalized(axis_, out.rank());
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      EMBER_RETURN_IF_ERROR(LaunchCopy(ctx, ctx.input(i), out, StackPartPlan(ctx.input(i).shape(), out.shape(), axis, i)));
    }
    return Status::OK();
  }

 private:
  int64_t axis_;
};

class UnstackKernel final : public OpKernel {
 public:
  explicit UnstackKernel(const KernelInit& init) : axis_(UnstackAttrs(init.attrs).axis) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const int axis = Normalized(axis_, in.rank());
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      EMBER_RETURN_IF_ERROR(
          LaunchCopy(ctx, in, ctx.output(i), UnstackPartPlan(in.shape(), ctx.output(i).shape(), axis, i)));
    }
    return Status::OK();
  }

 private:
  int64_t axis_;
};

class SplitKernel final : public OpKernel {
 public:
  explicit SplitKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    int axis;
    std::vector<int64_t> sizes;
    EMBER_RETURN_IF_ERROR(shape_fns::SplitSizes(in.shape(), attrs_.size_splits, attrs_.axis, &axis, &sizes));
    int64_t at = 0;
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      EMBER_RETURN_IF_ERROR(
          LaunchCopy(ctx, in, ctx.output(i), SplitPartPlan(in.shape(), ctx.output(i).shape(), axis, at)));
      at += sizes[i];
    }
    return Status::OK();
  }

 private:
  SplitAttrs attrs_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaCopyKernels(KernelRegistry& r, DeviceTypeId gpu) {
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType t = static_cast<DType>(d);
    r.Register("broadcast_to", gpu, {t}, &MakeKernel<ViewCopyKernel<BroadcastToAttrs>>);
    r.Register("tile", gpu, {t}, &MakeKernel<ViewCopyKernel<TileAttrs>>);
    r.Register("slice", gpu, {t}, &MakeKernel<ViewCopyKernel<SliceAttrs>>);
    r.Register("strided_slice", gpu, {t}, &MakeKernel<ViewCopyKernel<StridedSliceKernelAttrs>>);
    r.Register("reverse", gpu, {t}, &MakeKernel<ViewCopyKernel<ReverseAttrs>>);
    r.Register("stack", gpu, {t}, &MakeKernel<StackKernel>);
    r.Register("unstack", gpu, {t}, &MakeKernel<UnstackKernel>);
    r.Register("split", gpu, {t}, &MakeKernel<SplitKernel>);
  }
}

}  // namespace ember::cuda

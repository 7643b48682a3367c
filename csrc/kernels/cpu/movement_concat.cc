// This file implements the CPU kernels of the movement ops over lists of
// tensors: concat, stack, unstack, split. Each list element is one strided
// copy into (or out of) its block of the single tensor.
#include "kernels/cpu/movement_copy.h"
#include "ops/attrs/movement.gen.h"

namespace ember::cpu {
namespace {

class ConcatKernel final : public OpKernel {
 public:
  explicit ConcatKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    const int rank = out.rank();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + rank : attrs_.axis);
    int64_t at = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      StridedCopy(&ctx.device_context(), in.raw_data(), out.raw_data(), DTypeSize(in.dtype()),
                  ConcatPartPlan(in.shape(), out.shape(), axis, at));
      at += in.dim(axis);
    }
    return Status::OK();
  }

 private:
  ConcatAttrs attrs_;
};

class StackKernel final : public OpKernel {
 public:
  explicit StackKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    const int rank = out.rank();
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + rank : attrs_.axis);
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      StridedCopy(&ctx.device_context(), in.raw_data(), out.raw_data(), DTypeSize(in.dtype()),
                  StackPartPlan(in.shape(), out.shape(), axis, i));
    }
    return Status::OK();
  }

 private:
  StackAttrs attrs_;
};

class UnstackKernel final : public OpKernel {
 public:
  explicit UnstackKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const int axis = static_cast<int>(attrs_.axis < 0 ? attrs_.axis + in.rank() : attrs_.axis);
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      Tensor& out = ctx.output(i);
      StridedCopy(&ctx.device_context(), in.raw_data(), out.raw_data(), DTypeSize(in.dtype()),
                  UnstackPartPlan(in.shape(), out.shape(), axis, i));
    }
    return Status::OK();
  }

 private:
  UnstackAttrs attrs_;
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
      Tensor& out = ctx.output(i);
      StridedCopy(&ctx.device_context(), in.raw_data(), out.raw_data(), DTypeSize(in.dtype()),
                  SplitPartPlan(in.shape(), out.shape(), axis, at));
      at += sizes[i];
    }
    return Status::OK();
  }

 private:
  SplitAttrs attrs_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterMovementConcatKernels(KernelRegistry& r) {
  const type_sets::Every every;
  RegisterForEachDType(r, "concat", &MakeKernel<ConcatKernel>, every);
  RegisterForEachDType(r, "stack", &MakeKernel<StackKernel>, every);
  RegisterForEachDType(r, "unstack", &MakeKernel<UnstackKernel>, every);
  RegisterForEachDType(r, "split", &MakeKernel<SplitKernel>, every);
}

}  // namespace ember::cpu

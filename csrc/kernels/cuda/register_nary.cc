// This file defines the GPU clip_by_value and add_n kernels' host side
// (nary.h) and registers them for the real dtypes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/nary.h"

namespace ember::cuda {
namespace {

template <typename T>
class ClipKernel final : public OpKernel {
 public:
  explicit ClipKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& out = ctx.output(0);
    const Shape shapes[3] = {ctx.input(0).shape(), ctx.input(1).shape(), ctx.input(2).shape()};
    const int64_t* dims[3] = {shapes[0].data(), shapes[1].data(), shapes[2].data()};
    const int ranks[3] = {shapes[0].rank(), shapes[1].rank(), shapes[2].rank()};
    NaryIndexing ix;
    if (!MakeNaryIndexing(out.shape().data(), out.rank(), dims, ranks, 3, &ix)) {
      return Unimplemented("clip_by_value on the GPU takes at most 8 dims");
    }
    return env.CheckLaunch(LaunchClip<T>(static_cast<const T*>(ctx.input(0).raw_data()),
                                         static_cast<const T*>(ctx.input(1).raw_data()),
                                         static_cast<const T*>(ctx.input(2).raw_data()), static_cast<T*>(out.raw_data()),
                                         out.NumElements(), ix, StreamOf(env), env.max_blocks),
                           "launching clip_by_value");
  }
};

// Up to kMaxAddNInputs inputs per launch; later launches add to the output.
template <typename T>
class AddNKernel final : public OpKernel {
 public:
  explicit AddNKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& out = ctx.output(0);
    for (int first = 0; first < ctx.num_inputs(); first += kMaxAddNInputs) {
      AddNInputs<T> inputs{};
      inputs.count = std::min(kMaxAddNInputs, ctx.num_inputs() - first);
      inputs.accumulate = first > 0;
      for (int k = 0; k < inputs.count; ++k) inputs.in[k] = static_cast<const T*>(ctx.input(first + k).raw_data());
      EMBER_RETURN_IF_ERROR(env.CheckLaunch(
          LaunchAddN<T>(inputs, static_cast<T*>(out.raw_data()), out.NumElements(), StreamOf(env), env.max_blocks),
          "launching add_n"));
    }
    return Status::OK();
  }
};

template <typename T>
EMBER_STARTUP_TEMPLATE void RegisterFor(KernelRegistry& r, DeviceTypeId gpu) {
  r.Register("clip_by_value", gpu, {TypeOf<T>()}, &MakeKernel<ClipKernel<T>>);
  r.Register("add_n", gpu, {TypeOf<T>()}, &MakeKernel<AddNKernel<T>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaNaryKernels(KernelRegistry& r, DeviceTypeId gpu) {
  ForEachRealType([&](auto type) { RegisterFor<decltype(type)>(r, gpu); });
}

}  // namespace ember::cuda

// This file defines the GPU transpose kernel's host side and registers it
// for every dtype (Note [GPU transpose]).
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/transpose.h"
#include "ops/attrs/shape.gen.h"

namespace ember::cuda {
namespace {

class TransposeKernel final : public OpKernel {
 public:
  explicit TransposeKernel(const KernelInit& init) {
    const TransposeAttrs attrs(init.attrs);
    if (attrs.perm) perm_ = *attrs.perm;
  }
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& x = ctx.input(0);
    TransposeIndexing ix;
    EMBER_RETURN_IF_ERROR(MakeTransposeIndexing(x.shape(), perm_, &ix));
    const void* in = x.raw_data();
    void* out = ctx.output(0).raw_data();
    const auto stream = StreamOf(env);
    cudaError_t r;
    switch (DTypeSize(x.dtype())) {
      case 1: r = LaunchTranspose(static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), ix, stream, env.max_blocks); break;
      case 2: r = LaunchTranspose(static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out), ix, stream, env.max_blocks); break;
      case 4: r = LaunchTranspose(static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out), ix, stream, env.max_blocks); break;
      case 8: r = LaunchTranspose(static_cast<const uint64_t*>(in), static_cast<uint64_t*>(out), ix, stream, env.max_blocks); break;
      default: return Internal("no transpose for elements of " + std::to_string(DTypeSize(x.dtype())) + " bytes");
    }
    return env.CheckLaunch(r, "launching the transpose");
  }

 private:
  std::vector<int64_t> perm_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaTransposeKernels(KernelRegistry& r, DeviceTypeId gpu) {
  for (int d = 0; d < kNumDTypes; ++d) r.Register("transpose", gpu, {static_cast<DType>(d)}, &MakeKernel<TransposeKernel>);
}

}  // namespace ember::cuda

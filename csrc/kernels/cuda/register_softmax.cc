// This file defines the GPU softmax and log_softmax kernels' host side
// (the [outer, n, inner] view around the axis) and registers them.
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/softmax.h"
#include "ops/attrs/nn.gen.h"

namespace ember::cuda {
namespace {

template <typename T, typename Attrs, bool kLog>
class SoftmaxKernel final : public OpKernel {
 public:
  explicit SoftmaxKernel(const KernelInit& init) : axis_(Attrs(init.attrs).axis) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& x = ctx.input(0);
    const int rank = x.rank();
    // The shape function checked the axis; scalars have none to normalize.
    const int axis = rank == 0 ? 0 : static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    int64_t outer = 1, n = 1, inner = 1;
    for (int d = 0; d < rank; ++d) (d < axis ? outer : d == axis ? n : inner) *= x.dim(d);
    return env.CheckLaunch(LaunchSoftmax<T>(static_cast<const T*>(x.raw_data()), static_cast<T*>(ctx.output(0).raw_data()),
                                            outer, n, inner, kLog, StreamOf(env),
                                            env.max_blocks),
                           "launching softmax");
  }

 private:
  int64_t axis_;
};

template <typename Attrs, bool kLog>
void Register(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  r.Register(op, gpu, {DType::kFloat32}, &MakeKernel<SoftmaxKernel<float, Attrs, kLog>>);
  r.Register(op, gpu, {DType::kFloat64}, &MakeKernel<SoftmaxKernel<double, Attrs, kLog>>);
  r.Register(op, gpu, {DType::kFloat16}, &MakeKernel<SoftmaxKernel<__half, Attrs, kLog>>);
  r.Register(op, gpu, {DType::kBFloat16}, &MakeKernel<SoftmaxKernel<__nv_bfloat16, Attrs, kLog>>);
}

}  // namespace

void RegisterCudaSoftmaxKernels(KernelRegistry& r, DeviceTypeId gpu) {
  Register<SoftmaxAttrs, false>(r, "softmax", gpu);
  Register<LogSoftmaxAttrs, true>(r, "log_softmax", gpu);
}

}  // namespace ember::cuda

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
EMBER_STARTUP_TEMPLATE void Register(KernelRegistry& r, const char* op, DeviceTypeId gpu) {
  r.Register(op, gpu, {DType::kFloat32}, &MakeKernel<SoftmaxKernel<float, Attrs, kLog>>);
  r.Register(op, gpu, {DType::kFloat64}, &MakeKernel<SoftmaxKernel<double, Attrs, kLog>>);
  r.Register(op, gpu, {DType::kFloat16}, &MakeKernel<SoftmaxKernel<__half, Attrs, kLog>>);
  r.Register(op, gpu, {DType::kBFloat16}, &MakeKernel<SoftmaxKernel<__nv_bfloat16, Attrs, kLog>>);
}

template <typename T, typename I>
class SparseXentKernel final : public OpKernel {
 public:
  explicit SparseXentKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& labels = ctx.input(0);
    const Tensor& logits = ctx.input(1);
    const int64_t rows = labels.NumElements();
    if (rows == 0) return Status::OK();
    const int64_t classes = logits.dim(logits.rank() - 1);
    DeviceErrorWord* word = ctx.NewErrorWord([](const DeviceErrorWord& w) {
      return "Received a label value of " + std::to_string(w.value) + " which is outside the valid range of [0, " +
             std::to_string(w.bound) + ")";
    });
    if (word == nullptr) return ResourceExhausted("no device error word could be allocated for the label check");
    return env.CheckLaunch(
        LaunchSparseSoftmaxXent<T, I>(static_cast<const I*>(labels.raw_data()), static_cast<const T*>(logits.raw_data()),
                                      static_cast<T*>(ctx.output(0).raw_data()), rows, classes, word, StreamOf(env),
                                      env.max_blocks),
        "launching sparse_softmax_cross_entropy_with_logits");
  }
};

template <typename T>
class XentKernel final : public OpKernel {
 public:
  explicit XentKernel(const KernelInit& init) : axis_(SoftmaxCrossEntropyWithLogitsAttrs(init.attrs).axis) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& logits = ctx.input(1);
    Tensor& loss = ctx.output(0);
    if (loss.NumElements() == 0) return Status::OK();
    const int rank = logits.rank();
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    int64_t outer = 1, n = 1, inner = 1;
    for (int d = 0; d < rank; ++d) (d < axis ? outer : d == axis ? n : inner) *= logits.dim(d);
    if (n == 0) return env.CheckLaunch(env.api->MemsetAsync(loss.raw_data(), 0, loss.NumBytes(), env.stream), "clearing");
    return env.CheckLaunch(LaunchSoftmaxXent<T>(static_cast<const T*>(ctx.input(0).raw_data()),
                                                static_cast<const T*>(logits.raw_data()), static_cast<T*>(loss.raw_data()),
                                                outer, n, inner, StreamOf(env), env.max_blocks),
                           "launching softmax_cross_entropy_with_logits");
  }

 private:
  int64_t axis_;
};

template <typename T>
EMBER_STARTUP_TEMPLATE void RegisterXent(KernelRegistry& r, DeviceTypeId gpu) {
  const DType t = TypeOf<T>();
  r.Register("softmax_cross_entropy_with_logits", gpu, {t}, &MakeKernel<XentKernel<T>>);
  r.Register("sparse_softmax_cross_entropy_with_logits", gpu, {t, DType::kInt32}, &MakeKernel<SparseXentKernel<T, int32_t>>);
  r.Register("sparse_softmax_cross_entropy_with_logits", gpu, {t, DType::kInt64}, &MakeKernel<SparseXentKernel<T, int64_t>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaSoftmaxKernels(KernelRegistry& r, DeviceTypeId gpu) {
  Register<SoftmaxAttrs, false>(r, "softmax", gpu);
  Register<LogSoftmaxAttrs, true>(r, "log_softmax", gpu);
  RegisterXent<float>(r, gpu);
  RegisterXent<double>(r, gpu);
  RegisterXent<__half>(r, gpu);
  RegisterXent<__nv_bfloat16>(r, gpu);
}

}  // namespace ember::cuda

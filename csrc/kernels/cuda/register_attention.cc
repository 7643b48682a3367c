// This file defines the GPU scaled_dot_product_attention kernel's host
// side (Note [GPU attention] in attention_indexing.h) and registers it.
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "kernels/cuda/attention.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/gemm_run.h"
#include "ops/attrs/nn.gen.h"

namespace ember::cuda {
namespace {

template <typename T, typename M>
class AttentionKernel final : public OpKernel {
 public:
  explicit AttentionKernel(const KernelInit& init) : scale_(ScaledDotProductAttentionAttrs(init.attrs).scale) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const Tensor& mask = ctx.input(3);
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    const int lead = out.rank() - 2;
    const int64_t lq = q.dim(q.rank() - 2), d = q.dim(q.rank() - 1), lk = k.dim(k.rank() - 2);
    if (lk == 0) {  // attention over no keys: a sum of nothing
      return env.CheckLaunch(env.api->MemsetAsync(out.raw_data(), 0, out.NumBytes(), env.stream), "clearing the output");
    }
    Shape scores_shape(out.shape().data(), lead);
    scores_shape.AddDim(lq);
    scores_shape.AddDim(lk);
    // Larger than q, k, v and the output together can be (Note [Shape limits]).
    EMBER_RETURN_IF_ERROR(ValidateShape(scores_shape, sizeof(T)));
    const int64_t rows = scores_shape.NumElements() / lk;
    const size_t item = sizeof(T);
    Scratch scores(ctx, static_cast<size_t>(scores_shape.NumElements()) * item);
    if (scores.failed()) {
      return ResourceExhausted("scaled_dot_product_attention: out of memory for the " + scores_shape.ToString() +
                               " scores on " + ctx.device()->name());
    }
    // 1. scores = q k^T (a zero-length inner dim: zeros).
    GemmPlan qk;
    EMBER_RETURN_IF_ERROR(MakeGemmPlan(q.shape(), k.shape(), scores_shape, false, true, &qk));
    if (d == 0) {
      EMBER_RETURN_IF_ERROR(env.CheckLaunch(
          env.api->MemsetAsync(scores.get(), 0, scores_shape.NumElements() * item, env.stream), "clearing the scores"));
    } else {
      std::shared_ptr<const CublasLtGemm> gemm;
      EMBER_RETURN_IF_ERROR(scores_gemms_.Get(qk, out.dtype(), &gemm));  // Note [GEMM descriptor cache]
      EMBER_RETURN_IF_ERROR(RunGemm(ctx, *gemm, GemmProducts(qk, q.raw_data(), k.raw_data(), scores.get(), item), nullptr));
    }
    // 2. scaled, masked, softmaxed in place.
    AttentionMaskIndex index;
    EMBER_RETURN_IF_ERROR(MakeAttentionMaskIndex(mask.shape(), scores_shape, &index));
    const double scale = scale_ ? *scale_ : 1.0 / std::sqrt(static_cast<double>(d));
    EMBER_RETURN_IF_ERROR(env.CheckLaunch(
        LaunchMaskedSoftmax<T, M>(static_cast<T*>(scores.get()), static_cast<const M*>(mask.raw_data()), index, rows, lk,
                                  scale, StreamOf(env), env.max_blocks),
        "launching the attention softmax"));
    // 3. out = scores v.
    GemmPlan sv;
    EMBER_RETURN_IF_ERROR(MakeGemmPlan(scores_shape, v.shape(), out.shape(), false, false, &sv));
    std::shared_ptr<const CublasLtGemm> gemm;
    EMBER_RETURN_IF_ERROR(output_gemms_.Get(sv, out.dtype(), &gemm));
    return RunGemm(ctx, *gemm, GemmProducts(sv, scores.get(), v.raw_data(), out.raw_data(), item), nullptr);
  }

 private:
  std::optional<double> scale_;
  mutable CublasLtGemmCache scores_gemms_;
  mutable CublasLtGemmCache output_gemms_;
};

template <typename T>
EMBER_STARTUP_TEMPLATE void RegisterForMasks(KernelRegistry& r, DeviceTypeId gpu, DType t) {
  constexpr const char* kOp = "scaled_dot_product_attention";
  r.Register(kOp, gpu, {t, DType::kBool}, &MakeKernel<AttentionKernel<T, bool>>);
  r.Register(kOp, gpu, {t, DType::kFloat16}, &MakeKernel<AttentionKernel<T, __half>>);
  r.Register(kOp, gpu, {t, DType::kBFloat16}, &MakeKernel<AttentionKernel<T, __nv_bfloat16>>);
  r.Register(kOp, gpu, {t, DType::kFloat32}, &MakeKernel<AttentionKernel<T, float>>);
  r.Register(kOp, gpu, {t, DType::kFloat64}, &MakeKernel<AttentionKernel<T, double>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaAttentionKernels(KernelRegistry& r, DeviceTypeId gpu) {
  RegisterForMasks<float>(r, gpu, DType::kFloat32);
  RegisterForMasks<double>(r, gpu, DType::kFloat64);
  RegisterForMasks<__half>(r, gpu, DType::kFloat16);
  RegisterForMasks<__nv_bfloat16>(r, gpu, DType::kBFloat16);
}

}  // namespace ember::cuda

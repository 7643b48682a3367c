// This file defines the GPU matmul and fused_matmul kernels over cuBLASLt
// (Note [Row-major GEMM on cuBLAS], Note [Matmul precision on GPUs], Note
// [Matmul epilogues]) and registers them.
#include <string>
#include <vector>

#include "devices/cuda/cublaslt_matmul.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/gemm_plan.h"
#include "kernels/cuda/gemm_run.h"
#include "ops/attrs/linalg.gen.h"

namespace ember::cuda {

std::vector<GemmOperands> GemmProducts(const GemmPlan& plan, const void* a, const void* b, void* d, size_t item) {
  const auto* ember_a = static_cast<const char*>(a);
  const auto* ember_b = static_cast<const char*>(b);
  auto* out = static_cast<char*>(d);
  // cuBLAS's A is Ember's b (Note [Row-major GEMM on cuBLAS]).
  if (plan.offsets_a.empty()) return {{ember_b, ember_a, out}};
  std::vector<GemmOperands> products;
  for (size_t i = 0; i < plan.offsets_a.size(); ++i) {
    products.push_back(
        {ember_b + plan.offsets_a[i] * item, ember_a + plan.offsets_b[i] * item, out + plan.offsets_d[i] * item});
  }
  return products;
}

// The workspace returns to the cache at once: later work on this stream
// may reuse it, and it runs after these GEMMs (Note [Stream-ordered
// memory]).
Status RunGemm(KernelContext& ctx, const CublasLtGemm& gemm, const std::vector<GemmOperands>& products,
               const void* bias) {
  const CudaKernelEnv& env = EnvOf(ctx);
  void* handle = nullptr;
  EMBER_RETURN_IF_ERROR(env.CublasLtHandle(&handle));
  Allocator* scratch = ctx.device_context().scratch;
  void* workspace = scratch->Allocate(CublasLtGemm::kWorkspaceBytes, ctx.device_context().stream);
  const size_t workspace_bytes = workspace != nullptr ? CublasLtGemm::kWorkspaceBytes : 0;
  Status s;
  for (size_t i = 0; i < products.size() && s.ok(); ++i) {
    s = gemm.Run(handle, products[i].a, products[i].b, products[i].d, workspace, workspace_bytes, env.stream, bias);
  }
  if (workspace != nullptr) scratch->Deallocate(workspace, CublasLtGemm::kWorkspaceBytes);
  return s;
}

namespace {

class MatmulKernel final : public OpKernel {
 public:
  explicit MatmulKernel(const KernelInit& init) {
    const MatmulAttrs attrs(init.attrs);
    transpose_a_ = attrs.transpose_a;
    transpose_b_ = attrs.transpose_b;
  }

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    Tensor& c = ctx.output(0);
    GemmPlan plan;
    EMBER_RETURN_IF_ERROR(MakeGemmPlan(a.shape(), b.shape(), c.shape(), transpose_a_, transpose_b_, &plan));
    if (plan.empty) return Status::OK();
    if (plan.k == 0) {  // a sum of nothing: zeros
      return env.CheckLaunch(env.api->MemsetAsync(c.raw_data(), 0, c.NumBytes(), env.stream), "clearing the output");
    }
    std::shared_ptr<const CublasLtGemm> gemm;
    EMBER_RETURN_IF_ERROR(gemms_.Get(plan, c.dtype(), &gemm));  // Note [GEMM descriptor cache]
    return RunGemm(ctx, *gemm, GemmProducts(plan, a.raw_data(), b.raw_data(), c.raw_data(), DTypeSize(c.dtype())),
                   nullptr);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  mutable CublasLtGemmCache gemms_;
};

// activation(a @ b + bias): one cuBLASLt call with an epilogue (Note
// [Matmul epilogues]).
class FusedMatmulKernel final : public OpKernel {
 public:
  explicit FusedMatmulKernel(const KernelInit& init)
      : transpose_a_(init.attrs[0].as_bool()), transpose_b_(init.attrs[1].as_bool()) {
    const std::string& activation = init.attrs[2].as_string();
    epilogue_ = activation == "relu"               ? GemmEpilogue::kReluBias
                : activation == "gelu_approximate" ? GemmEpilogue::kGeluBias
                                                   : GemmEpilogue::kBias;
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    Tensor& c = ctx.output(0);
    // A batch of a's (untransposed) is one matrix of all their rows: one
    // GEMM with a larger m.
    const int64_t n = c.dim(c.rank() - 1);
    const int64_t rows = n == 0 ? 0 : c.NumElements() / n;
    const Shape a_rows = transpose_a_ ? a.shape() : Shape({rows, a.dim(a.rank() - 1)});
    GemmPlan plan;
    EMBER_RETURN_IF_ERROR(MakeGemmPlan(a_rows, b.shape(), Shape({rows, n}), transpose_a_, transpose_b_, &plan));
    if (plan.empty) return Status::OK();
    if (plan.k == 0) return Unimplemented("fused_matmul on a GPU needs a nonzero inner dimension");
    std::shared_ptr<const CublasLtGemm> gemm;
    EMBER_RETURN_IF_ERROR(gemms_.Get(plan, c.dtype(), epilogue_, &gemm));
    return RunGemm(ctx, *gemm, {{b.raw_data(), a.raw_data(), c.raw_data()}}, ctx.input(2).raw_data());
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  GemmEpilogue epilogue_ = GemmEpilogue::kBias;
  mutable CublasLtGemmCache gemms_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaMatmulKernels(KernelRegistry& r, DeviceTypeId gpu) {
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
    r.Register("matmul", gpu, {t}, &MakeKernel<MatmulKernel>);
    r.Register("fused_matmul", gpu, {t}, &MakeKernel<FusedMatmulKernel>);
  }
}

}  // namespace ember::cuda

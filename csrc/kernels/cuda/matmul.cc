// This file defines the GPU matmul kernel over cuBLASLt (Note [Row-major
// GEMM on cuBLAS], Note [Matmul precision on GPUs]) and registers it.
#include "devices/cuda/cublaslt_matmul.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/gemm_plan.h"
#include "ops/attrs/linalg.gen.h"

namespace ember::cuda {
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
    void* handle = nullptr;
    EMBER_RETURN_IF_ERROR(env.CublasLtHandle(&handle));
    // The workspace returns to the cache at once: later work on this
    // stream may reuse it, and it runs after this GEMM (Note
    // [Stream-ordered memory]).
    Allocator* scratch = ctx.device_context().scratch;
    void* workspace = scratch->Allocate(CublasLtGemm::kWorkspaceBytes, ctx.device_context().stream);
    const size_t workspace_bytes = workspace != nullptr ? CublasLtGemm::kWorkspaceBytes : 0;
    const size_t item = DTypeSize(c.dtype());
    const auto* ember_a = static_cast<const char*>(a.raw_data());
    const auto* ember_b = static_cast<const char*>(b.raw_data());
    auto* out = static_cast<char*>(c.raw_data());
    Status s;
    if (plan.offsets_a.empty()) {
      // cuBLAS's A is Ember's b (Note [Row-major GEMM on cuBLAS]).
      s = gemm->Run(handle, ember_b, ember_a, out, workspace, workspace_bytes, env.stream);
    } else {
      for (size_t i = 0; i < plan.offsets_a.size() && s.ok(); ++i) {
        s = gemm->Run(handle, ember_b + plan.offsets_a[i] * item, ember_a + plan.offsets_b[i] * item,
                      out + plan.offsets_d[i] * item, workspace, workspace_bytes, env.stream);
      }
    }
    if (workspace != nullptr) scratch->Deallocate(workspace, CublasLtGemm::kWorkspaceBytes);
    return s;
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  mutable CublasLtGemmCache gemms_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaMatmulKernels(KernelRegistry& r, DeviceTypeId gpu) {
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
    r.Register("matmul", gpu, {t}, &MakeKernel<MatmulKernel>);
  }
}

}  // namespace ember::cuda

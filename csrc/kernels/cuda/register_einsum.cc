// This file defines the GPU einsum kernel's host side, which runs an
// EinsumGpuPlan (Note [GPU einsum] in einsum_plan.h), and registers it.
#include <memory>
#include <string>
#include <vector>

#include "core/checked_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/einsum_plan.h"
#include "kernels/cuda/gemm_run.h"
#include "kernels/cuda/reduce.h"

namespace ember::cuda {
namespace {

// Attr 0: the equation.
template <typename T>
class EinsumKernel final : public OpKernel {
 public:
  explicit EinsumKernel(const KernelInit& init) : equation_(init.attrs[0].as_string()) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const int n = ctx.num_inputs();
    std::vector<Shape> shapes;
    for (int i = 0; i < n; ++i) shapes.push_back(ctx.input(i).shape());
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    shape_fns::EinsumSpec spec;
    EMBER_RETURN_IF_ERROR(shape_fns::ParseEinsum(equation_, shapes.data(), n, &spec));
    EinsumGpuPlan plan;
    EMBER_RETURN_IF_ERROR(MakeEinsumGpuPlan(spec, shapes, &plan));
    // One scratch block holds every intermediate.
    std::vector<size_t> offsets;
    int64_t total = 0;
    for (int64_t elements : plan.scratch_elements) {
      offsets.push_back(static_cast<size_t>(total));
      int64_t bytes;
      if (!CheckedMul(elements, static_cast<int64_t>(sizeof(T)), &bytes) || !CheckedAdd(bytes, 255, &bytes) ||
          !CheckedAdd(total, bytes / 256 * 256, &total)) {  // each aligned for cuBLASLt
        return ResourceExhausted("einsum: the intermediates' size does not fit in int64");
      }
    }
    Scratch scratch(ctx, static_cast<size_t>(total));
    if (scratch.failed()) {
      return ResourceExhausted("einsum: out of memory for " + std::to_string(total) + " bytes of intermediates on " +
                               ctx.device()->name());
    }
    auto buffer = [&](int id) -> void* {
      if (id == EinsumGpuPlan::kOutput) return out.raw_data();
      if (id < plan.num_inputs) return ctx.input(id).raw_data();
      return static_cast<char*>(scratch.get()) + offsets[id - plan.num_inputs];
    };
    for (const EinsumStep& step : plan.steps) {
      switch (step.kind) {
        case EinsumStep::Kind::kArrange:
          EMBER_RETURN_IF_ERROR(env.CheckLaunch(
              LaunchReduce<T>(ReduceOp::kSum, static_cast<const T*>(buffer(step.src)), static_cast<T*>(buffer(step.dst)),
                              step.arrange, StreamOf(env), env.max_blocks),
              "launching an einsum rearrangement"));
          break;
        case EinsumStep::Kind::kZero:
          EMBER_RETURN_IF_ERROR(env.CheckLaunch(
              env.api->MemsetAsync(buffer(step.dst), 0, static_cast<size_t>(step.elements) * sizeof(T), env.stream),
              "clearing an einsum product"));
          break;
        case EinsumStep::Kind::kGemm: {
          GemmPlan gemm_plan;
          EMBER_RETURN_IF_ERROR(MakeGemmPlan(Shape({step.batch, step.m, step.k}), Shape({step.batch, step.k, step.n}),
                                             Shape({step.batch, step.m, step.n}), false, false, &gemm_plan));
          std::shared_ptr<const CublasLtGemm> gemm;
          EMBER_RETURN_IF_ERROR(gemms_.Get(gemm_plan, out.dtype(), &gemm));  // Note [GEMM descriptor cache]
          EMBER_RETURN_IF_ERROR(RunGemm(
              ctx, *gemm, GemmProducts(gemm_plan, buffer(step.src), buffer(step.src2), buffer(step.dst), sizeof(T)),
              nullptr));
          break;
        }
      }
    }
    return Status::OK();
  }

 private:
  std::string equation_;
  mutable CublasLtGemmCache gemms_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaEinsumKernels(KernelRegistry& r, DeviceTypeId gpu) {
  r.Register("einsum", gpu, {DType::kFloat32}, &MakeKernel<EinsumKernel<float>>);
  r.Register("einsum", gpu, {DType::kFloat64}, &MakeKernel<EinsumKernel<double>>);
  r.Register("einsum", gpu, {DType::kFloat16}, &MakeKernel<EinsumKernel<__half>>);
  r.Register("einsum", gpu, {DType::kBFloat16}, &MakeKernel<EinsumKernel<__nv_bfloat16>>);
}

}  // namespace ember::cuda

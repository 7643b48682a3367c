// This file implements the batched, broadcasting matmul CPU kernel and
// RegisterCpuMatmulKernels (which also registers tensordot.cc's kernel).
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/matmul_gemm.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/linalg.gen.h"

namespace ember::cpu {
namespace {

Shape BatchShape(const Shape& s) { return Shape(s.data(), s.rank() - 2); }

template <typename T>
class MatmulKernel final : public OpKernel {
 public:
  explicit MatmulKernel(const KernelInit& init) {
    const MatmulAttrs attrs(init.attrs);
    transpose_a_ = attrs.transpose_a;
    transpose_b_ = attrs.transpose_b;
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    Tensor& c = ctx.output(0);
    const int rank = c.rank();
    MatmulDims dims;
    dims.m = c.dim(rank - 2);
    dims.n = c.dim(rank - 1);
    dims.k = a.dim(a.rank() - (transpose_a_ ? 2 : 1));
    dims.transpose_a = transpose_a_;
    dims.transpose_b = transpose_b_;
    if (c.NumElements() == 0) return Status::OK();

    // Note [Matmul tiles]: one large product and many small ones both
    // spread over the pool.
    const BroadcastPlan batches = MakeBroadcastPlan(BatchShape(a.shape()), BatchShape(b.shape()),
                                                    BatchShape(c.shape()));
    // Note [Half compute]: float16 and bfloat16 operands are widened whole
    // and multiplied by the float32 GEMM; c_scratch holds its result.
    std::vector<ComputeType<T>> a_wide, b_wide, c_scratch(kIsWidened<T> ? c.NumElements() : 0);
    ParallelMatmul<T>(
        &ctx.device_context(), dims, batches.num_elements,
        [&](int64_t first, int64_t last, auto&& fn) { ForEachBroadcastElement(batches, first, last, fn); },
        AsComputeType(a.data<T>(), a.NumElements(), &a_wide), AsComputeType(b.data<T>(), b.NumElements(), &b_wide),
        c.data<T>(), c_scratch.data());
    return Status::OK();
  }

 private:
  bool transpose_a_;
  bool transpose_b_;
};

}  // namespace

void RegisterTensordotKernels(KernelRegistry& r);  // tensordot.cc

}  // namespace ember::cpu

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuMatmulKernels(KernelRegistry& r) {
  cpu::RegisterForTypeSet<cpu::MatmulKernel>(r, "matmul", type_sets::Matmul{});
  // Note [Pending op definitions] in sort.cc.
  const OpDef* tensordot;
  if (FindOpDef("tensordot", &tensordot).ok()) cpu::RegisterTensordotKernels(r);
}

}  // namespace ember

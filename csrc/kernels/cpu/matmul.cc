// This file implements the batched, broadcasting matmul CPU kernel, the
// fused_matmul kernel (Note [Matmul epilogues]) and
// RegisterCpuMatmulKernels (which also registers tensordot.cc's kernel).
#include <string>
#include <vector>

#include "kernels/common/element_math.h"
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

// activation(a @ b + bias): the GEMM, then the bias and the
// activation over each row while the pool still has it (the same
// functors as the unfused ops, in the compute type).
template <typename T>
class FusedMatmulKernel final : public OpKernel {
 public:
  explicit FusedMatmulKernel(const KernelInit& init)
      : transpose_a_(init.attrs[0].as_bool()), transpose_b_(init.attrs[1].as_bool()) {
    const std::string& activation = init.attrs[2].as_string();
    activation_ = activation == "relu" ? kRelu : activation == "gelu_approximate" ? kGelu : kNone;
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    Tensor& c = ctx.output(0);
    // A batch of a's (untransposed, checked by the shape function) is one
    // matrix of all their rows.
    MatmulDims dims;
    dims.n = c.dim(c.rank() - 1);
    dims.m = dims.n == 0 ? 0 : c.NumElements() / dims.n;
    dims.k = a.dim(transpose_a_ ? 0 : a.rank() - 1);
    dims.transpose_a = transpose_a_;
    dims.transpose_b = transpose_b_;
    if (c.NumElements() == 0) return Status::OK();
    std::vector<ComputeType<T>> a_wide, b_wide, c_scratch(kIsWidened<T> ? c.NumElements() : 0);
    ParallelMatmul<T>(&ctx.device_context(), dims, AsComputeType(a.data<T>(), a.NumElements(), &a_wide),
                      AsComputeType(b.data<T>(), b.NumElements(), &b_wide), c.data<T>(), c_scratch.data());
    using C = ComputeType<T>;
    const T* bias = ctx.input(2).data<T>();
    T* out = c.data<T>();
    const int64_t n = dims.n;
    const int activation = activation_;
    ParallelFor(ctx, dims.m, 8.0 * static_cast<double>(n), [=](int64_t first, int64_t last) {
      for (int64_t row = first; row < last; ++row) {
        T* y = out + row * n;
        for (int64_t j = 0; j < n; ++j) {
          C v = static_cast<C>(y[j]) + static_cast<C>(bias[j]);
          if (activation == kRelu) v = math::Relu()(v);
          if (activation == kGelu) v = math::Gelu{true}(v);
          y[j] = static_cast<T>(v);
        }
      }
    });
    return Status::OK();
  }

 private:
  enum { kNone, kRelu, kGelu };
  bool transpose_a_;
  bool transpose_b_;
  int activation_;
};

}  // namespace

void RegisterTensordotKernels(KernelRegistry& r);  // tensordot.cc

}  // namespace ember::cpu

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuMatmulKernels(KernelRegistry& r) {
  cpu::RegisterForTypeSet<cpu::MatmulKernel>(r, "matmul", type_sets::Matmul{});
  cpu::RegisterForTypeSet<cpu::FusedMatmulKernel>(r, "fused_matmul", type_sets::Floating{});
  // Note [Pending op definitions] in sort.cc.
  const OpDef* tensordot;
  if (FindOpDef("tensordot", &tensordot).ok()) cpu::RegisterTensordotKernels(r);
}

}  // namespace ember

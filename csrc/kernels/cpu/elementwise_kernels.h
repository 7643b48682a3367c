// This file defines UnaryKernel, BinaryKernel and CheckedBinaryKernel, the
// templates behind every element-wise CPU kernel. Include it only from the
// .cc files that instantiate them (unary.cc, arithmetic.cc, ...).
#pragma once

#include <type_traits>

#include "kernels/cpu/eigen.h"

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/parallel.h"
#include "ops/op_kernel.h"

namespace ember::cpu {

template <typename T>
using ConstVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using MutVec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
auto Splat(T value, int64_t n) {
  return Eigen::Array<T, Eigen::Dynamic, 1>::Constant(n, value);
}

// out[0, n) = F(in[0, n)). float16 and bfloat16 run F in float32 block by
// block (Note [Half compute]). `out` may be `in`: each block is read whole
// before it is written.
template <typename T, typename Out, typename F>
void ApplyUnarySpan(const T* in, Out* out, int64_t n) {
  if constexpr (!kIsWidened<T>) {
    MutVec<Out>(out, n) = F()(ConstVec<T>(in, n));
  } else {
    using C = ComputeType<T>;
    using COut = ComputeType<Out>;
    C widened[kWidenBlock];
    COut result[kWidenBlock];
    ForEachWidenBlock(n, [&](int64_t first, int64_t count) {
      ConvertSpan(in + first, widened, count);
      MutVec<COut>(result, count) = F()(ConstVec<C>(widened, count));
      ConvertSpan(result, out + first, count);
    });
  }
}

// Out is T except for predicates (is_nan: float -> bool). Output may be
// input 0's buffer: every element is read before it is written at the same
// index, so exact aliasing is safe.
template <typename T, typename F, typename Out = T>
class UnaryKernel final : public OpKernel {
 public:
  explicit UnaryKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const T* in = ctx.input(0).data<T>();
    Out* out = ctx.output(0).data<Out>();
    ParallelFor(ctx, ctx.output(0).NumElements(), F::kCycles, [in, out](int64_t first, int64_t last) {
      ApplyUnarySpan<T, Out, F>(in + first, out + first, last - first);
    });
    return Status::OK();
  }
};

// Fills out[0, n) = F(lhs, rhs) where each operand is either a run of n
// elements or (when its `*_run` is false) one element repeated. The one
// place each (T, F) instantiates Eigen expressions.
template <typename T, typename Out, typename F>
void ApplySpanAs(Out* out, const T* lhs, bool lhs_run, const T* rhs, bool rhs_run, int64_t n) {
  MutVec<Out> dst(out, n);
  if (lhs_run && rhs_run) {
    dst = F()(ConstVec<T>(lhs, n), ConstVec<T>(rhs, n));
  } else if (lhs_run) {
    dst = F()(ConstVec<T>(lhs, n), Splat(*rhs, n));
  } else {
    dst = F()(Splat(*lhs, n), ConstVec<T>(rhs, n));
  }
}

// ApplySpanAs for any T: float16 and bfloat16 operands are widened block by
// block and F runs in float32 (Note [Half compute]). `out` may alias an
// operand run: each block is read whole before it is written.
template <typename T, typename Out, typename F>
void ApplySpan(Out* out, const T* lhs, bool lhs_run, const T* rhs, bool rhs_run, int64_t n) {
  if constexpr (!kIsWidened<T>) {
    ApplySpanAs<T, Out, F>(out, lhs, lhs_run, rhs, rhs_run, n);
  } else {
    using C = ComputeType<T>;
    using COut = ComputeType<Out>;
    C lhs_block[kWidenBlock];
    C rhs_block[kWidenBlock];
    COut result[kWidenBlock];
    if (!lhs_run) lhs_block[0] = static_cast<C>(*lhs);
    if (!rhs_run) rhs_block[0] = static_cast<C>(*rhs);
    ForEachWidenBlock(n, [&](int64_t first, int64_t count) {
      if (lhs_run) ConvertSpan(lhs + first, lhs_block, count);
      if (rhs_run) ConvertSpan(rhs + first, rhs_block, count);
      ApplySpanAs<C, COut, F>(result, lhs_block, lhs_run, rhs_block, rhs_run, count);
      ConvertSpan(result, out + first, count);
    });
  }
}

// Fills out = F(lhs, rhs) with NumPy broadcasting as `plan` lays it out
// (Note [Broadcast plan]). `out` may alias `lhs` when they have the same
// shape.
template <typename T, typename Out, typename F>
void RunBroadcastPlan(const DeviceContext* device, const T* lhs, const T* rhs, Out* out, const BroadcastPlan& plan) {
  using Kind = BroadcastPlan::Kind;
  if (plan.kind == Kind::kEmpty) return;
  if (plan.kind != Kind::kGeneral) {
    const bool lhs_run = plan.kind != Kind::kLhsScalar;
    const bool rhs_run = plan.kind != Kind::kRhsScalar;
    ParallelFor(device, plan.num_elements, F::kCycles, [=](int64_t first, int64_t last) {
      ApplySpan<T, Out, F>(out + first, lhs_run ? lhs + first : lhs, lhs_run,
                           rhs_run ? rhs + first : rhs, rhs_run, last - first);
    });
    return;
  }
  const int64_t inner = plan.inner_size();
  const bool lhs_run = plan.lhs_inner_stride() != 0;
  const bool rhs_run = plan.rhs_inner_stride() != 0;
  ParallelFor(device, plan.num_rows(), inner * F::kCycles, [&](int64_t first, int64_t last) {
    ForEachBroadcastRow(plan, first, last, [&](int64_t o, int64_t l, int64_t r) {
      ApplySpan<T, Out, F>(out + o, lhs + l, lhs_run, rhs + r, rhs_run, inner);
    });
  });
}

// The same by the plan the shape function made (`given`, Note [Kernel
// plans]), or by one made here from the shapes.
template <typename T, typename Out, typename F>
void RunBroadcastBinary(const DeviceContext* device, const T* lhs, const Shape& lhs_shape, const T* rhs,
                        const Shape& rhs_shape, Out* out, const Shape& out_shape,
                        const BroadcastPlan* given = nullptr) {
  if (given != nullptr) return RunBroadcastPlan<T, Out, F>(device, lhs, rhs, out, *given);
  if (lhs_shape == rhs_shape) {  // kSameShape, without building a plan (small eager ops)
    const int64_t n = out_shape.NumElements();
    ParallelFor(device, n, F::kCycles, [=](int64_t first, int64_t last) {
      ApplySpan<T, Out, F>(out + first, lhs + first, true, rhs + first, true, last - first);
    });
    return;
  }
  RunBroadcastPlan<T, Out, F>(device, lhs, rhs, out, MakeBroadcastPlan(lhs_shape, rhs_shape, out_shape));
}

// Out is T for arithmetic and bool for comparisons.
template <typename T, typename Out, typename F>
class BinaryKernel final : public OpKernel {
 public:
  explicit BinaryKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& lhs = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    Tensor& out = ctx.output(0);
    RunBroadcastBinary<T, Out, F>(&ctx.device_context(), lhs.data<T>(), lhs.shape(), rhs.data<T>(),
                                  rhs.shape(), out.data<Out>(), out.shape(), ctx.plan<BroadcastPlan>());
    return Status::OK();
  }
};

// A BinaryKernel<T, T, F> whose right operand may hold values the op
// rejects for some T (integer division by zero, negative integer
// exponents): F::Invalid<T>(y) returns the error message or null. The whole
// right operand is checked before any output is written, and the functor
// may then assume valid values. Data-dependent, so the error is the
// kernel's, not the shape function's.
template <typename T, typename F>
class CheckedBinaryKernel final : public OpKernel {
 public:
  explicit CheckedBinaryKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& lhs = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    // With a non-empty output every rhs element is used somewhere.
    const T* y = rhs.data<T>();
    if constexpr (std::is_integral_v<T>) {  // only integer forms reject values
      for (int64_t i = 0, n = rhs.NumElements(); i < n; ++i) {
        if (const char* error = F::template Invalid<T>(y[i])) return InvalidArgument(error);
      }
    }
    RunBroadcastBinary<T, T, F>(&ctx.device_context(), lhs.data<T>(), lhs.shape(), y, rhs.shape(),
                                out.data<T>(), out.shape(), ctx.plan<BroadcastPlan>());
    return Status::OK();
  }
};

}  // namespace ember::cpu

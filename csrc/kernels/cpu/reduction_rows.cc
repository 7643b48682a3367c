// This file implements the two-pass reduction CPU kernels
// (reduce_logsumexp, _variance, _std) and linalg.norm.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/reduction.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/reduction.gen.h"

namespace ember::cpu {
namespace {

// Note [Row reductions]
// logsumexp and the variance need two passes over each reduced group (the
// max or the mean first), which does not fit the one-pass accumulators of
// ReduceKernel. These kernels make every group a contiguous row instead:
// the input is transpose-copied to [outer * inner, reduced] when the
// reduced dims are not already last, then each row is reduced on its own.
// Half types are widened to float32 as a whole, after that copy (Note [Half
// compute]); each row function sees ComputeType<T> values.

template <typename T>
struct LogSumExpRow {
  using Attrs = ReduceLogsumexpAttrs;
  static constexpr double kCycles = 20;
  static T Empty() { return -std::numeric_limits<T>::infinity(); }
  template <typename C>
  static C Row(const ConstVec<C>& row) {
    const C max = row.template maxCoeff<Eigen::PropagateNaN>();
    // An infinite max (all -inf, or some +inf) must not be subtracted: that
    // would give NaN for inputs whose result is well defined.
    const C shift = std::isfinite(max) ? max : C(0);
    return std::log((row - shift).exp().sum()) + shift;
  }
};

template <typename C>
C Variance(const ConstVec<C>& row) {
  const C n = static_cast<C>(row.size());
  const C mean = row.sum() / n;
  return (row - mean).square().sum() / n;
}

template <typename T>
struct VarianceRow {
  using Attrs = ReduceVarianceAttrs;
  static constexpr double kCycles = 4;
  static T Empty() { return std::numeric_limits<T>::quiet_NaN(); }
  template <typename C>
  static C Row(const ConstVec<C>& row) {
    return Variance(row);
  }
};

template <typename T>
struct StdRow {
  using Attrs = ReduceStdAttrs;
  static constexpr double kCycles = 4;
  static T Empty() { return std::numeric_limits<T>::quiet_NaN(); }
  template <typename C>
  static C Row(const ConstVec<C>& row) {
    return std::sqrt(Variance(row));
  }
};

// Calls out[o] = row_fn(row o) for every reduced group, each a contiguous
// row of `len` values (Note [Row reductions]); `input` is not empty.
template <typename T, typename RowFn>
void ReduceRows(KernelContext& ctx, const Tensor& input, const std::vector<bool>& reduced_axes,
                double cycles_per_value, T* out, int64_t out_n, RowFn row_fn) {
  using C = ComputeType<T>;
  const ReducePlan* given = ctx.plan<ReducePlan>();  // Note [Kernel plans]
  const ReducePlan plan = given != nullptr ? *given : MakeReducePlan(input.shape(), reduced_axes);
  const T* in = input.data<T>();
  std::vector<T> scratch;
  if (plan.transpose) {
    scratch.resize(input.NumElements());
    PermuteCopy(&ctx.device_context(), in, scratch.data(), sizeof(T), plan.collapsed, plan.perm);
    in = scratch.data();
  } else if (plan.inner > 1) {
    scratch.resize(input.NumElements());
    PermuteCopy(&ctx.device_context(), in, scratch.data(), sizeof(T),
                Shape{plan.outer, plan.reduced, plan.inner}, {0, 2, 1});
    in = scratch.data();
  }
  std::vector<C> widened;
  const C* rows = AsComputeType(in, input.NumElements(), &widened);
  // Output order is [outer, inner] either way, so rows map to outputs 1:1.
  const int64_t len = plan.reduced;
  ParallelFor(ctx, out_n, cycles_per_value * static_cast<double>(len), [=](int64_t first, int64_t last) {
    for (int64_t o = first; o < last; ++o) out[o] = static_cast<T>(row_fn(ConstVec<C>(rows + o * len, len)));
  });
}

template <typename T, template <typename> class R>
class RowReduceKernel final : public OpKernel {
 public:
  using Reducer = R<T>;
  explicit RowReduceKernel(const KernelInit& init) : axis_(typename Reducer::Attrs(init.attrs).axis) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    std::vector<bool> reduced_axes;
    bool done;
    EMBER_RETURN_IF_ERROR(BeginReduce<T>(axis_, input, output, Reducer::Empty(), &reduced_axes, &done));
    if (done) return Status::OK();
    T* out = output.data<T>();
    const int64_t out_n = output.NumElements();
    ReduceRows(ctx, input, reduced_axes, Reducer::kCycles, out, out_n,
               &Reducer::template Row<ComputeType<T>>);
    return Status::OK();
  }

 private:
  std::optional<std::vector<int64_t>> axis_;
};

template <template <typename> class R>
struct RowReduction {
  template <typename T>
  using Kernel = RowReduceKernel<T, R>;
};

// linalg.norm: a vector norm over one axis or all of them, or the Frobenius
// norm over two axes (the 2-norm of their values). Attrs, by index (Note
// [Pending op definitions] in sort.cc): 0 ord (string, validated by the shape
// function), 1 axis (optional list(int)), 2 keepdims.
template <typename T>
class NormKernel final : public OpKernel {
 public:
  using C = ComputeType<T>;
  explicit NormKernel(const KernelInit& init) {
    const std::string& ord = init.attrs[0].as_string();
    kind_ = ord == "1" ? Kind::kL1 : ord == "inf" ? Kind::kMaxAbs : Kind::kL2;
    if (!init.attrs[1].is_none()) axis_ = init.attrs[1].as_int_list();
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    std::vector<bool> reduced_axes;
    bool done;  // every norm of nothing is 0
    EMBER_RETURN_IF_ERROR(BeginReduce<T>(axis_, input, output, T(0), &reduced_axes, &done));
    if (done) return Status::OK();
    T* out = output.data<T>();
    const int64_t out_n = output.NumElements();
    switch (kind_) {
      case Kind::kL1:
        ReduceRows(ctx, input, reduced_axes, 2, out, out_n, [](const ConstVec<C>& r) { return r.abs().sum(); });
        break;
      case Kind::kL2:
        ReduceRows(ctx, input, reduced_axes, 2, out, out_n,
                   [](const ConstVec<C>& r) { return std::sqrt(r.square().sum()); });
        break;
      case Kind::kMaxAbs:
        ReduceRows(ctx, input, reduced_axes, 2, out, out_n,
                   [](const ConstVec<C>& r) { return r.abs().template maxCoeff<Eigen::PropagateNaN>(); });
        break;
    }
    return Status::OK();
  }

 private:
  enum class Kind { kL1, kL2, kMaxAbs };
  Kind kind_;
  std::optional<std::vector<int64_t>> axis_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterRowReductionKernels(KernelRegistry& r) {
  RegisterForTypeSet<RowReduction<LogSumExpRow>::Kernel>(r, "reduce_logsumexp", type_sets::Floating{});
  RegisterForTypeSet<RowReduction<VarianceRow>::Kernel>(r, "reduce_variance", type_sets::Floating{});
  RegisterForTypeSet<RowReduction<StdRow>::Kernel>(r, "reduce_std", type_sets::Floating{});
  // Note [Pending op definitions] in sort.cc. Norm's dtypes follow its op
  // definition in op_defs/linalg.yaml.
  const OpDef* norm;
  if (FindOpDef("norm", &norm).ok()) RegisterForTypeSet<NormKernel>(r, "norm", type_sets::Floating{});
}

}  // namespace ember::cpu

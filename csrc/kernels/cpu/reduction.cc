// This file implements the reduction CPU kernels (reduce_sum, _mean, _max,
// _min, _prod, _any, _all, _logsumexp, _variance, _std), linalg.norm and
// RegisterCpuReductionKernels.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/transpose.h"
#include "ops/attrs/reduction.gen.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cpu {
namespace {

template <typename T>
using ConstVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using MutVec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

// Note [Reduction plan]
// The input is viewed as [outer, reduced, inner] row-major. Size-1 dims are
// dropped and adjacent dims with the same reduced/kept flag merged, so any
// contiguous set of reduced axes fits; otherwise (e.g. axes 0 and 2 of
// [a, b, c]) the input is first transpose-copied so the kept dims lead and
// the reduced dims trail: [kept..., reduced...] = [outer, reduced, 1].
struct ReducePlan {
  int64_t outer = 1;
  int64_t reduced = 1;
  int64_t inner = 1;
  bool transpose = false;
  Shape collapsed;        // when transpose: the merged input dims...
  std::vector<int> perm;  // ...and the permutation putting kept dims first
};

ReducePlan MakeReducePlan(const Shape& in, const std::vector<bool>& reduced_axes) {
  Shape dims;
  std::vector<bool> flags;
  for (int i = 0; i < in.rank(); ++i) {
    if (in.dim(i) == 1) continue;
    if (!flags.empty() && flags.back() == reduced_axes[i]) {
      dims.set_dim(dims.rank() - 1, dims.dim(dims.rank() - 1) * in.dim(i));
    } else {
      dims.AddDim(in.dim(i));
      flags.push_back(reduced_axes[i]);
    }
  }
  ReducePlan plan;
  const int n = dims.rank();
  // Groups alternate, so the first flag and the count fix the pattern.
  if (n == 0) return plan;
  const bool starts_reduced = flags[0];
  if (n == 1) {
    (starts_reduced ? plan.reduced : plan.outer) = dims.dim(0);
  } else if (n == 2 || (n == 3 && !starts_reduced)) {
    int i = 0;
    if (!starts_reduced) plan.outer = dims.dim(i++);
    plan.reduced = dims.dim(i++);
    if (i < n) plan.inner = dims.dim(i);
  } else {
    plan.transpose = true;
    plan.collapsed = dims;
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < n; ++i) {
        if (flags[i] != (pass == 1)) continue;
        plan.perm.push_back(i);
        (pass == 0 ? plan.outer : plan.reduced) *= dims.dim(i);
      }
    }
  }
  return plan;
}

template <typename T>
struct SumReducer {
  using Attrs = ReduceSumAttrs;
  static T Empty() { return T(0); }
  static T Reduce(const ConstVec<T>& v) { return v.sum(); }
  static void Accumulate(MutVec<T>& acc, const ConstVec<T>& v) { acc += v; }
  static T Finalize(T sum, int64_t) { return sum; }
  static void FinalizeVec(MutVec<T>&, int64_t) {}
};

template <typename T>
struct MeanReducer : SumReducer<T> {
  using Attrs = ReduceMeanAttrs;
  // The mean of nothing: NaN for floats; 0 for ints rather than a
  // division by zero.
  static T Empty() {
    return std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0);
  }
  // Integer means truncate toward zero, like TensorFlow's.
  static T Finalize(T sum, int64_t count) { return sum / static_cast<T>(count); }
  static void FinalizeVec(MutVec<T>& acc, int64_t count) { acc /= static_cast<T>(count); }
};

template <typename T>
struct MaxReducer {
  using Attrs = ReduceMaxAttrs;
  static T Empty() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
  static T Reduce(const ConstVec<T>& v) { return v.template maxCoeff<Eigen::PropagateNaN>(); }
  static void Accumulate(MutVec<T>& acc, const ConstVec<T>& v) {
    acc = acc.template max<Eigen::PropagateNaN>(v);
  }
  static T Finalize(T value, int64_t) { return value; }
  static void FinalizeVec(MutVec<T>&, int64_t) {}
};

template <typename T>
struct MinReducer {
  using Attrs = ReduceMinAttrs;
  static T Empty() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  }
  static T Reduce(const ConstVec<T>& v) { return v.template minCoeff<Eigen::PropagateNaN>(); }
  static void Accumulate(MutVec<T>& acc, const ConstVec<T>& v) {
    acc = acc.template min<Eigen::PropagateNaN>(v);
  }
  static T Finalize(T value, int64_t) { return value; }
  static void FinalizeVec(MutVec<T>&, int64_t) {}
};

template <typename T>
struct ProdReducer {
  using Attrs = ReduceProdAttrs;
  static T Empty() { return T(1); }
  static T Reduce(const ConstVec<T>& v) { return v.prod(); }
  static void Accumulate(MutVec<T>& acc, const ConstVec<T>& v) { acc *= v; }
  static T Finalize(T value, int64_t) { return value; }
  static void FinalizeVec(MutVec<T>&, int64_t) {}
};

// Logical reductions over bool (T is always bool).
template <typename T>
struct AnyReducer {
  using Attrs = ReduceAnyAttrs;
  static T Empty() { return false; }
  static T Reduce(const ConstVec<T>& v) { return v.any(); }
  static void Accumulate(MutVec<T>& acc, const ConstVec<T>& v) { acc = acc || v; }
  static T Finalize(T value, int64_t) { return value; }
  static void FinalizeVec(MutVec<T>&, int64_t) {}
};

template <typename T>
struct AllReducer {
  using Attrs = ReduceAllAttrs;
  static T Empty() { return true; }
  static T Reduce(const ConstVec<T>& v) { return v.all(); }
  static void Accumulate(MutVec<T>& acc, const ConstVec<T>& v) { acc = acc && v; }
  static T Finalize(T value, int64_t) { return value; }
  static void FinalizeVec(MutVec<T>&, int64_t) {}
};

// Values reduced per partial result when one row is split across threads.
constexpr int64_t kChunk = 1 << 15;

template <typename T, template <typename> class R>
class ReduceKernel final : public OpKernel {
 public:
  using Reducer = R<T>;
  explicit ReduceKernel(const KernelInit& init) : axis_(typename Reducer::Attrs(init.attrs).axis) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    std::vector<bool> reduced_axes;
    EMBER_RETURN_IF_ERROR(shape_fns::NormalizeAxes(axis_, input.rank(), &reduced_axes));
    T* out = output.data<T>();
    const int64_t out_n = output.NumElements();
    if (input.NumElements() == 0) {
      std::fill(out, out + out_n, Reducer::Empty());
      return Status::OK();
    }
    const ReducePlan plan = MakeReducePlan(input.shape(), reduced_axes);
    const T* in = input.data<T>();
    if (plan.reduced == 1) {
      if (out != in) std::memcpy(out, in, out_n * sizeof(T));
      return Status::OK();
    }
    std::unique_ptr<T[]> scratch;  // not std::vector: vector<bool> has no data()
    if (plan.transpose) {
      scratch.reset(new T[input.NumElements()]);
      PermuteCopy(ctx.device(), in, scratch.get(), sizeof(T), plan.collapsed, plan.perm);
      in = scratch.get();
    }
    Device* device = ctx.device();
    if (plan.inner == 1 && plan.outer == 1) {
      ReduceAll(device, in, plan.reduced, out);
    } else if (plan.inner == 1) {
      const int64_t len = plan.reduced;
      ParallelFor(device, plan.outer, static_cast<double>(len), [=](int64_t first, int64_t last) {
        for (int64_t o = first; o < last; ++o) {
          out[o] = Reducer::Finalize(Reducer::Reduce(ConstVec<T>(in + o * len, len)), len);
        }
      });
    } else {
      ReduceMiddle(device, in, plan, out);
    }
    return Status::OK();
  }

 private:
  // One output; long inputs are reduced in chunks, then the partials.
  static void ReduceAll(Device* device, const T* in, int64_t n, T* out) {
    const int64_t chunks = (n + kChunk - 1) / kChunk;
    if (chunks == 1) {
      *out = Reducer::Finalize(Reducer::Reduce(ConstVec<T>(in, n)), n);
      return;
    }
    std::unique_ptr<T[]> partial(new T[chunks]);
    ParallelFor(device, chunks, static_cast<double>(kChunk), [&](int64_t first, int64_t last) {
      for (int64_t c = first; c < last; ++c) {
        const int64_t begin = c * kChunk;
        partial[c] = Reducer::Reduce(ConstVec<T>(in + begin, std::min(kChunk, n - begin)));
      }
    });
    *out = Reducer::Finalize(Reducer::Reduce(ConstVec<T>(partial.get(), chunks)), n);
  }

  // [outer, reduced, inner] with inner > 1: rows of `inner` values are
  // accumulated into the output, vectorized along inner. Work is split over
  // the outer * inner output columns.
  static void ReduceMiddle(Device* device, const T* in, const ReducePlan& plan, T* out) {
    const int64_t inner = plan.inner;
    const int64_t reduced = plan.reduced;
    ParallelFor(device, plan.outer * inner, static_cast<double>(reduced), [=](int64_t first, int64_t last) {
      while (first < last) {
        const int64_t o = first / inner;
        const int64_t c0 = first % inner;
        const int64_t len = std::min(last - first, inner - c0);
        const T* slab = in + o * reduced * inner + c0;
        MutVec<T> acc(out + first, len);
        acc = ConstVec<T>(slab, len);
        for (int64_t r = 1; r < reduced; ++r) Reducer::Accumulate(acc, ConstVec<T>(slab + r * inner, len));
        Reducer::FinalizeVec(acc, reduced);
        first += len;
      }
    });
  }

  std::optional<std::vector<int64_t>> axis_;
};

template <template <typename> class R>
struct Reduction {
  template <typename T>
  using Kernel = ReduceKernel<T, R>;
};

// Note [Row reductions]
// logsumexp and the variance need two passes over each reduced group (the
// max or the mean first), which does not fit the one-pass accumulators
// above. These kernels make every group a contiguous row instead: the input
// is transpose-copied to [outer * inner, reduced] when the reduced dims are
// not already last, then each row is reduced on its own.

template <typename T>
struct LogSumExpRow {
  using Attrs = ReduceLogsumexpAttrs;
  static constexpr double kCycles = 20;
  static T Empty() { return -std::numeric_limits<T>::infinity(); }
  static T Row(const ConstVec<T>& row) {
    const T max = row.template maxCoeff<Eigen::PropagateNaN>();
    // An infinite max (all -inf, or some +inf) must not be subtracted: that
    // would give NaN for inputs whose result is well defined.
    const T shift = std::isfinite(max) ? max : T(0);
    return std::log((row - shift).exp().sum()) + shift;
  }
};

template <typename T>
T Variance(const ConstVec<T>& row) {
  const T n = static_cast<T>(row.size());
  const T mean = row.sum() / n;
  return (row - mean).square().sum() / n;
}

template <typename T>
struct VarianceRow {
  using Attrs = ReduceVarianceAttrs;
  static constexpr double kCycles = 4;
  static T Empty() { return std::numeric_limits<T>::quiet_NaN(); }
  static T Row(const ConstVec<T>& row) { return Variance(row); }
};

template <typename T>
struct StdRow {
  using Attrs = ReduceStdAttrs;
  static constexpr double kCycles = 4;
  static T Empty() { return std::numeric_limits<T>::quiet_NaN(); }
  static T Row(const ConstVec<T>& row) { return std::sqrt(Variance(row)); }
};

// Calls out[o] = row_fn(row o) for every reduced group, each a contiguous
// row of `len` values (Note [Row reductions]); `input` is not empty.
template <typename T, typename RowFn>
void ReduceRows(KernelContext& ctx, const Tensor& input, const std::vector<bool>& reduced_axes,
                double cycles_per_value, T* out, int64_t out_n, RowFn row_fn) {
  const ReducePlan plan = MakeReducePlan(input.shape(), reduced_axes);
  const T* in = input.data<T>();
  std::vector<T> scratch;
  if (plan.transpose) {
    scratch.resize(input.NumElements());
    PermuteCopy(ctx.device(), in, scratch.data(), sizeof(T), plan.collapsed, plan.perm);
    in = scratch.data();
  } else if (plan.inner > 1) {
    scratch.resize(input.NumElements());
    PermuteCopy(ctx.device(), in, scratch.data(), sizeof(T),
                Shape{plan.outer, plan.reduced, plan.inner}, {0, 2, 1});
    in = scratch.data();
  }
  // Output order is [outer, inner] either way, so rows map to outputs 1:1.
  const int64_t len = plan.reduced;
  ParallelFor(ctx, out_n, cycles_per_value * static_cast<double>(len), [=](int64_t first, int64_t last) {
    for (int64_t o = first; o < last; ++o) out[o] = row_fn(ConstVec<T>(in + o * len, len));
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
    EMBER_RETURN_IF_ERROR(shape_fns::NormalizeAxes(axis_, input.rank(), &reduced_axes));
    T* out = output.data<T>();
    const int64_t out_n = output.NumElements();
    if (input.NumElements() == 0) {
      std::fill(out, out + out_n, Reducer::Empty());
      return Status::OK();
    }
    ReduceRows(ctx, input, reduced_axes, Reducer::kCycles, out, out_n, &Reducer::Row);
    return Status::OK();
  }

 private:
  std::optional<std::vector<int64_t>> axis_;
};

// linalg.norm: a vector norm over one axis or all of them, or the Frobenius
// norm over two axes (the 2-norm of their values). Attrs, by index (Note
// [Pending op definitions] in sort.cc): 0 ord (string, validated by the shape
// function), 1 axis (optional list(int)), 2 keepdims.
template <typename T>
class NormKernel final : public OpKernel {
 public:
  explicit NormKernel(const KernelInit& init) {
    const std::string& ord = init.attrs[0].as_string();
    kind_ = ord == "1" ? Kind::kL1 : ord == "inf" ? Kind::kMaxAbs : Kind::kL2;
    if (!init.attrs[1].is_none()) axis_ = init.attrs[1].as_int_list();
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    std::vector<bool> reduced_axes;
    EMBER_RETURN_IF_ERROR(shape_fns::NormalizeAxes(axis_, input.rank(), &reduced_axes));
    T* out = output.data<T>();
    const int64_t out_n = output.NumElements();
    if (input.NumElements() == 0) {  // every norm of nothing is 0
      std::fill(out, out + out_n, T(0));
      return Status::OK();
    }
    switch (kind_) {
      case Kind::kL1:
        ReduceRows(ctx, input, reduced_axes, 2, out, out_n, [](const ConstVec<T>& r) { return r.abs().sum(); });
        break;
      case Kind::kL2:
        ReduceRows(ctx, input, reduced_axes, 2, out, out_n,
                   [](const ConstVec<T>& r) { return std::sqrt(r.square().sum()); });
        break;
      case Kind::kMaxAbs:
        ReduceRows(ctx, input, reduced_axes, 2, out, out_n,
                   [](const ConstVec<T>& r) { return r.abs().template maxCoeff<Eigen::PropagateNaN>(); });
        break;
    }
    return Status::OK();
  }

 private:
  enum class Kind { kL1, kL2, kMaxAbs };
  Kind kind_;
  std::optional<std::vector<int64_t>> axis_;
};

template <template <typename> class R>
struct RowReduction {
  template <typename T>
  using Kernel = RowReduceKernel<T, R>;
};

}  // namespace
}  // namespace ember::cpu

namespace ember {

void RegisterCpuReductionKernels(KernelRegistry& r) {
  using cpu::Reduction;
  cpu::RegisterForTypeSet<Reduction<cpu::SumReducer>::Kernel>(r, "reduce_sum", type_sets::Numeric{});
  cpu::RegisterForTypeSet<Reduction<cpu::MeanReducer>::Kernel>(r, "reduce_mean", type_sets::Numeric{});
  using cpu::RowReduction;
  cpu::RegisterForTypeSet<Reduction<cpu::MaxReducer>::Kernel>(r, "reduce_max", type_sets::Numeric{});
  cpu::RegisterForTypeSet<Reduction<cpu::MinReducer>::Kernel>(r, "reduce_min", type_sets::Numeric{});
  cpu::RegisterForTypeSet<Reduction<cpu::ProdReducer>::Kernel>(r, "reduce_prod", type_sets::Numeric{});
  cpu::RegisterForTypes<Reduction<cpu::AnyReducer>::Kernel, bool>(r, "reduce_any");
  cpu::RegisterForTypes<Reduction<cpu::AllReducer>::Kernel, bool>(r, "reduce_all");
  cpu::RegisterForTypeSet<RowReduction<cpu::LogSumExpRow>::Kernel>(r, "reduce_logsumexp", type_sets::Float{});
  cpu::RegisterForTypeSet<RowReduction<cpu::VarianceRow>::Kernel>(r, "reduce_variance", type_sets::Float{});
  cpu::RegisterForTypeSet<RowReduction<cpu::StdRow>::Kernel>(r, "reduce_std", type_sets::Float{});
  // Note [Pending op definitions] in sort.cc.
  const OpDef* norm;
  if (FindOpDef("norm", &norm).ok()) cpu::RegisterForTypeSet<cpu::NormKernel>(r, "norm", type_sets::Float{});
}

}  // namespace ember

// This file implements the softmax CPU kernels: softmax, log_softmax and
// the two softmax cross-entropy losses.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/nn_kernels.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/transpose.h"
#include "ops/attrs/nn.gen.h"

namespace ember::cpu {
namespace {

// Note [Softmax axis]
// Every kernel here works on contiguous rows along the softmax axis. An
// input [outer, n, inner] with inner > 1 is first transpose-copied to
// [outer, inner, n] (and a same-shaped result back), so only one row
// routine exists per op.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};

AxisSplit SplitAt(const Shape& s, int64_t axis) {
  AxisSplit a;
  const int rank = s.rank();
  const int ax = static_cast<int>(axis < 0 ? axis + rank : axis);
  for (int i = 0; i < rank; ++i) {
    (i < ax ? a.outer : i == ax ? a.n : a.inner) *= s.dim(i);
  }
  return a;
}

// Moves the middle dim of [outer, n, inner] last: returns the rows.
template <typename T>
const T* AxisLast(Device* device, const T* in, const AxisSplit& a, std::vector<T>* scratch) {
  if (a.inner == 1) return in;
  scratch->resize(a.outer * a.n * a.inner);
  PermuteCopy(device, in, scratch->data(), sizeof(T), Shape{a.outer, a.n, a.inner}, {0, 2, 1});
  return scratch->data();
}

// log(sum(exp(x))) of one row, stably; n >= 1.
template <typename T>
T LogSumExp(const T* x, int64_t n) {
  const InVec<T> row(x, n);
  const T m = row.maxCoeff();
  if (!std::isfinite(m)) return m;  // all -inf: -inf; any +inf: +inf; NaN propagates
  return m + std::log((row - m).exp().sum());
}

template <typename T>
class SoftmaxKernel final : public OpKernel {
 public:
  explicit SoftmaxKernel(const KernelInit& init)
      : axis_(init.attrs[0].as_int()), log_(std::string(init.op.name) == "log_softmax") {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (input.NumElements() == 0) return Status::OK();
    const AxisSplit a = SplitAt(input.shape(), axis_);
    std::vector<T> in_scratch, out_scratch;
    const T* in = AxisLast(ctx.device(), input.data<T>(), a, &in_scratch);
    T* out = output.data<T>();
    if (a.inner > 1) {
      out_scratch.resize(a.outer * a.n * a.inner);
      out = out_scratch.data();
    }
    const int64_t n = a.n;
    const bool log = log_;
    ParallelFor(ctx, a.outer * a.inner, 25.0 * n, [=](int64_t first, int64_t last) {
      for (int64_t r = first; r < last; ++r) {
        const InVec<T> x(in + r * n, n);
        OutVec<T> y(out + r * n, n);
        const T m = x.maxCoeff();
        if (log) {
          y = x - m;
          y -= std::log(y.exp().sum());
        } else {
          y = (x - m).exp();
          y /= y.sum();
        }
      }
    });
    if (a.inner > 1) {
      PermuteCopy(ctx.device(), out, output.data<T>(), sizeof(T), Shape{a.outer, a.inner, a.n}, {0, 2, 1});
    }
    return Status::OK();
  }

 private:
  int64_t axis_;
  bool log_;
};

template <typename T, typename I>
class SparseSoftmaxXentKernel final : public OpKernel {
 public:
  explicit SparseSoftmaxXentKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& labels = ctx.input(0);
    const Tensor& logits = ctx.input(1);
    const int64_t rows = labels.NumElements();
    const int64_t classes = logits.dim(logits.rank() - 1);
    const I* label = labels.data<I>();
    for (int64_t r = 0; r < rows; ++r) {
      if (label[r] < 0 || label[r] >= classes) {
        return InvalidArgument("Received a label value of " + std::to_string(label[r]) +
                               " which is outside the valid range of [0, " + std::to_string(classes) +
                               ")");
      }
    }
    const T* x = logits.data<T>();
    T* loss = ctx.output(0).data<T>();
    ParallelFor(ctx, rows, 25.0 * classes, [=](int64_t first, int64_t last) {
      for (int64_t r = first; r < last; ++r) {
        const T* row = x + r * classes;
        loss[r] = LogSumExp(row, classes) - row[label[r]];
      }
    });
    return Status::OK();
  }
};

template <typename T>
class SoftmaxXentKernel final : public OpKernel {
 public:
  explicit SoftmaxXentKernel(const KernelInit& init) : axis_(SoftmaxCrossEntropyWithLogitsAttrs(init.attrs).axis) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& labels = ctx.input(0);
    const Tensor& logits = ctx.input(1);
    T* loss = ctx.output(0).data<T>();
    const AxisSplit a = SplitAt(logits.shape(), axis_);
    const int64_t rows = a.outer * a.inner, n = a.n;
    if (rows == 0) return Status::OK();
    if (n == 0) {
      std::fill(loss, loss + rows, T(0));
      return Status::OK();
    }
    std::vector<T> p_scratch, x_scratch;
    const T* p = AxisLast(ctx.device(), labels.data<T>(), a, &p_scratch);
    const T* x = AxisLast(ctx.device(), logits.data<T>(), a, &x_scratch);
    ParallelFor(ctx, rows, 25.0 * n, [=](int64_t first, int64_t last) {
      for (int64_t r = first; r < last; ++r) {
        const T lse = LogSumExp(x + r * n, n);
        loss[r] = (InVec<T>(p + r * n, n) * (lse - InVec<T>(x + r * n, n))).sum();
      }
    });
    return Status::OK();
  }

 private:
  int64_t axis_;
};

}  // namespace

void RegisterNnSoftmaxKernels(KernelRegistry& r) {
  RegisterForTypeSet<SoftmaxKernel>(r, "softmax", type_sets::Float{});
  RegisterForTypeSet<SoftmaxKernel>(r, "log_softmax", type_sets::Float{});
  RegisterForTypeSet<SoftmaxXentKernel>(r, "softmax_cross_entropy_with_logits", type_sets::Float{});
  RegisterForTypePairsWith<SparseSoftmaxXentKernel, int32_t, float, double>(
      r, "sparse_softmax_cross_entropy_with_logits");
  RegisterForTypePairsWith<SparseSoftmaxXentKernel, int64_t, float, double>(
      r, "sparse_softmax_cross_entropy_with_logits");
}

}  // namespace ember::cpu

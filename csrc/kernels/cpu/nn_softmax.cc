// This file implements the softmax CPU kernels: softmax, log_softmax and
// the two softmax cross-entropy losses.
#include <algorithm>
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
const T* AxisLast(const DeviceContext* device, const T* in, const AxisSplit& a, std::vector<T>* scratch) {
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

// Softmax (or log softmax) of x along a.n into y, both [outer, n, inner].
template <typename C>
void Softmax(const DeviceContext* device, const C* x, C* y, const AxisSplit& a, bool log) {
  std::vector<C> in_scratch, out_scratch;
  const C* in = AxisLast(device, x, a, &in_scratch);
  C* out = y;
  if (a.inner > 1) {
    out_scratch.resize(a.outer * a.n * a.inner);
    out = out_scratch.data();
  }
  const int64_t n = a.n;
  ParallelFor(device, a.outer * a.inner, 25.0 * n, [=](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const InVec<C> row(in + r * n, n);
      OutVec<C> dst(out + r * n, n);
      const C m = row.maxCoeff();
      if (log) {
        dst = row - m;
        dst -= std::log(dst.exp().sum());
      } else {
        dst = (row - m).exp();
        dst /= dst.sum();
      }
    }
  });
  if (a.inner > 1) PermuteCopy(device, out, y, sizeof(C), Shape{a.outer, a.inner, a.n}, {0, 2, 1});
}

// The kernels below compute in ComputeType<T> (Note [Whole-tensor half
// compute]).
template <typename T>
class SoftmaxKernel final : public OpKernel {
 public:
  explicit SoftmaxKernel(const KernelInit& init)
      : axis_(init.attrs[0].as_int()), log_(std::string(init.op.name) == "log_softmax") {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (input.NumElements() == 0) return Status::OK();
    std::vector<ComputeType<T>> x_scratch, y_scratch;
    const auto* x = WidenedData<T>(&ctx.device_context(), input, &x_scratch);
    auto* y = ComputeOutput<T>(output, &y_scratch);
    Softmax(&ctx.device_context(), x, y, SplitAt(input.shape(), axis_), log_);
    StoreNarrowed<T>(&ctx.device_context(), y_scratch, output);
    return Status::OK();
  }

 private:
  int64_t axis_;
  bool log_;
};

// loss[r] = logsumexp(x row r) - x[r, label[r]] for rows of `classes`.
template <typename C, typename I>
void SparseSoftmaxXent(const DeviceContext* device, const C* x, const I* label, C* loss, int64_t rows, int64_t classes) {
  ParallelFor(device, rows, 25.0 * classes, [=](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const C* row = x + r * classes;
      loss[r] = LogSumExp(row, classes) - row[label[r]];
    }
  });
}

template <typename T, typename I>
class SparseSoftmaxXentKernel final : public OpKernel {
 public:
  explicit SparseSoftmaxXentKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& labels = ctx.input(0);
    const Tensor& logits = ctx.input(1);
    Tensor& output = ctx.output(0);
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
    if (rows == 0) return Status::OK();
    std::vector<ComputeType<T>> x_scratch, loss_scratch;
    const auto* x = WidenedData<T>(&ctx.device_context(), logits, &x_scratch);
    auto* loss = ComputeOutput<T>(output, &loss_scratch);
    SparseSoftmaxXent(&ctx.device_context(), x, label, loss, rows, classes);
    StoreNarrowed<T>(&ctx.device_context(), loss_scratch, output);
    return Status::OK();
  }
};

// loss[r] = sum(p * (logsumexp(x) - x)) over rows of a.n along the axis.
template <typename C>
void SoftmaxXent(const DeviceContext* device, const C* labels, const C* logits, C* loss, const AxisSplit& a) {
  const int64_t rows = a.outer * a.inner, n = a.n;
  if (n == 0) {
    std::fill(loss, loss + rows, C(0));
    return;
  }
  std::vector<C> p_scratch, x_scratch;
  const C* p = AxisLast(device, labels, a, &p_scratch);
  const C* x = AxisLast(device, logits, a, &x_scratch);
  ParallelFor(device, rows, 25.0 * n, [=](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const C lse = LogSumExp(x + r * n, n);
      loss[r] = (InVec<C>(p + r * n, n) * (lse - InVec<C>(x + r * n, n))).sum();
    }
  });
}

template <typename T>
class SoftmaxXentKernel final : public OpKernel {
 public:
  explicit SoftmaxXentKernel(const KernelInit& init) : axis_(SoftmaxCrossEntropyWithLogitsAttrs(init.attrs).axis) {}

  Status Compute(KernelContext& ctx) const override {
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    const DeviceContext* device = &ctx.device_context();
    std::vector<ComputeType<T>> p_scratch, x_scratch, loss_scratch;
    const auto* p = WidenedData<T>(device, ctx.input(0), &p_scratch);
    const auto* x = WidenedData<T>(device, ctx.input(1), &x_scratch);
    auto* loss = ComputeOutput<T>(output, &loss_scratch);
    SoftmaxXent(device, p, x, loss, SplitAt(ctx.input(1).shape(), axis_));
    StoreNarrowed<T>(device, loss_scratch, output);
    return Status::OK();
  }

 private:
  int64_t axis_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterNnSoftmaxKernels(KernelRegistry& r) {
  RegisterForTypeSet<SoftmaxKernel>(r, "softmax", type_sets::Floating{});
  RegisterForTypeSet<SoftmaxKernel>(r, "log_softmax", type_sets::Floating{});
  RegisterForTypeSet<SoftmaxXentKernel>(r, "softmax_cross_entropy_with_logits", type_sets::Floating{});
  RegisterForTypePairsWith<SparseSoftmaxXentKernel, int32_t, Eigen::half, Eigen::bfloat16, float, double>(
      r, "sparse_softmax_cross_entropy_with_logits");
  RegisterForTypePairsWith<SparseSoftmaxXentKernel, int64_t, Eigen::half, Eigen::bfloat16, float, double>(
      r, "sparse_softmax_cross_entropy_with_logits");
}

}  // namespace ember::cpu

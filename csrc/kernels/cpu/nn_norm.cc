// This file implements the normalization CPU kernels: layer_normalization
// and bias_add.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/nn_kernels.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/transpose.h"
#include "ops/attrs/nn.gen.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cpu {
namespace {

// Normalizes rows of x: the normalized dims are moved last (a transpose
// copy when they are not already trailing), so gamma and beta, flattened,
// line up with each row.
template <typename T>
class LayerNormKernel final : public OpKernel {
 public:
  explicit LayerNormKernel(const KernelInit& init) {
    const LayerNormalizationAttrs attrs(init.attrs);
    axis_ = attrs.axis;
    epsilon_ = attrs.epsilon;
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    std::vector<bool> normalized;
    EMBER_RETURN_IF_ERROR(shape_fns::NormalizeAxes(std::optional<std::vector<int64_t>>(axis_), x.rank(),
                                                   &normalized));
    if (x.NumElements() == 0) return Status::OK();
    std::vector<int> perm;
    int64_t n = 1;
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < x.rank(); ++i) {
        if (normalized[i] != (pass == 1)) continue;
        perm.push_back(i);
        if (pass == 1) n *= x.dim(i);
      }
    }
    bool identity = true;
    for (int i = 0; i < x.rank(); ++i) identity = identity && perm[i] == i;
    const int64_t rows = x.NumElements() / n;
    std::vector<T> x_scratch, y_scratch;
    const T* in = x.data<T>();
    T* out = y.data<T>();
    Shape permuted;
    if (!identity) {
      for (int p : perm) permuted.AddDim(x.dim(p));
      x_scratch.resize(x.NumElements());
      y_scratch.resize(x.NumElements());
      PermuteCopy(ctx.device(), in, x_scratch.data(), sizeof(T), x.shape(), perm);
      in = x_scratch.data();
      out = y_scratch.data();
    }
    const InVec<T> gamma(ctx.input(1).data<T>(), n);
    const InVec<T> beta(ctx.input(2).data<T>(), n);
    const T eps = static_cast<T>(epsilon_);
    ParallelFor(ctx, rows, 8.0 * n, [&](int64_t first, int64_t last) {
      for (int64_t r = first; r < last; ++r) {
        const InVec<T> row(in + r * n, n);
        OutVec<T> dst(out + r * n, n);
        const T mean = row.sum() / static_cast<T>(n);
        dst = row - mean;  // dst may alias row only when identity, and then elementwise
        const T var = dst.square().sum() / static_cast<T>(n);
        dst = dst * (T(1) / std::sqrt(var + eps)) * gamma + beta;
      }
    });
    if (!identity) {
      std::vector<int> inverse(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int>(i);
      PermuteCopy(ctx.device(), out, y.data<T>(), sizeof(T), permuted, inverse);
    }
    return Status::OK();
  }

 private:
  std::vector<int64_t> axis_;
  double epsilon_;
};

// value [outer, channels, inner] + bias [channels]; inner is 1 for N...C.
template <typename T>
class BiasAddKernel final : public OpKernel {
 public:
  explicit BiasAddKernel(const KernelInit& init) {
    const BiasAddAttrs attrs(init.attrs);
    channels_first_ = attrs.data_format.has_value() && attrs.data_format->rfind("NC", 0) == 0;
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& value = ctx.input(0);
    const T* in = value.data<T>();
    const T* bias = ctx.input(1).data<T>();
    T* out = ctx.output(0).data<T>();
    const int64_t total = value.NumElements();
    if (total == 0) return Status::OK();
    const int axis = channels_first_ ? 1 : value.rank() - 1;
    const int64_t c = value.dim(axis);
    int64_t inner = 1;
    for (int i = axis + 1; i < value.rank(); ++i) inner *= value.dim(i);
    if (inner == 1) {
      ParallelFor(ctx, total / c, static_cast<double>(c), [=](int64_t first, int64_t last) {
        const InVec<T> b(bias, c);
        for (int64_t r = first; r < last; ++r) OutVec<T>(out + r * c, c) = InVec<T>(in + r * c, c) + b;
      });
      return Status::OK();
    }
    ParallelFor(ctx, total / inner, static_cast<double>(inner), [=](int64_t first, int64_t last) {
      for (int64_t s = first; s < last; ++s) {
        OutVec<T>(out + s * inner, inner) = InVec<T>(in + s * inner, inner) + bias[s % c];
      }
    });
    return Status::OK();
  }

 private:
  bool channels_first_;
};

}  // namespace

void RegisterNnNormKernels(KernelRegistry& r) {
  RegisterForTypeSet<LayerNormKernel>(r, "layer_normalization", type_sets::Float{});
  RegisterForTypeSet<BiasAddKernel>(r, "bias_add", type_sets::Numeric{});
}

}  // namespace ember::cpu

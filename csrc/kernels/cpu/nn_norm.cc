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

// Normalizes `rows` rows of n elements of in into out (which may be in):
// y = (x - mean) / sqrt(var + eps) * gamma + beta.
template <typename C>
void LayerNormRows(const DeviceContext* device, const C* in, const C* gamma_data, const C* beta_data, C* out, int64_t rows,
                   int64_t n, double epsilon) {
  const InVec<C> gamma(gamma_data, n);
  const InVec<C> beta(beta_data, n);
  const C eps = static_cast<C>(epsilon);
  ParallelFor(device, rows, 8.0 * n, [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      const InVec<C> row(in + r * n, n);
      OutVec<C> dst(out + r * n, n);
      const C mean = row.sum() / static_cast<C>(n);
      dst = row - mean;  // dst may alias row, elementwise
      const C var = dst.square().sum() / static_cast<C>(n);
      dst = dst * (C(1) / std::sqrt(var + eps)) * gamma + beta;
    }
  });
}

// Normalizes rows of x: the normalized dims are moved last (a transpose
// copy when they are not already trailing), so gamma and beta, flattened,
// line up with each row. Computes in ComputeType<T> (Note [Whole-tensor
// half compute]).
template <typename T>
class LayerNormKernel final : public OpKernel {
 public:
  explicit LayerNormKernel(const KernelInit& init) {
    const LayerNormalizationAttrs attrs(init.attrs);
    axis_ = attrs.axis;
    epsilon_ = attrs.epsilon;
  }

  Status Compute(KernelContext& ctx) const override {
    using C = ComputeType<T>;
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const DeviceContext* device = &ctx.device_context();
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
    std::vector<C> x_wide, y_wide, gamma_wide, beta_wide, x_perm, y_perm;
    const C* in = WidenedData<T>(device, x, &x_wide);
    C* out = ComputeOutput<T>(y, &y_wide);
    C* result = out;
    Shape permuted;
    if (!identity) {
      for (int p : perm) permuted.AddDim(x.dim(p));
      x_perm.resize(x.NumElements());
      y_perm.resize(x.NumElements());
      PermuteCopy(device, in, x_perm.data(), sizeof(C), x.shape(), perm);
      in = x_perm.data();
      out = y_perm.data();
    }
    LayerNormRows(device, in, WidenedData<T>(device, ctx.input(1), &gamma_wide),
                  WidenedData<T>(device, ctx.input(2), &beta_wide), out, x.NumElements() / n, n, epsilon_);
    if (!identity) {
      std::vector<int> inverse(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int>(i);
      PermuteCopy(device, out, result, sizeof(C), permuted, inverse);
    }
    StoreNarrowed<T>(device, y_wide, y);
    return Status::OK();
  }

 private:
  std::vector<int64_t> axis_;
  double epsilon_;
};

// out = value [outer, c, inner] + bias [c]; inner is 1 for N...C.
template <typename C>
void BiasAdd(const DeviceContext* device, const C* in, const C* bias, C* out, int64_t total, int64_t c, int64_t inner) {
  if (inner == 1) {
    ParallelFor(device, total / c, static_cast<double>(c), [=](int64_t first, int64_t last) {
      const InVec<C> b(bias, c);
      for (int64_t r = first; r < last; ++r) OutVec<C>(out + r * c, c) = InVec<C>(in + r * c, c) + b;
    });
    return;
  }
  ParallelFor(device, total / inner, static_cast<double>(inner), [=](int64_t first, int64_t last) {
    for (int64_t s = first; s < last; ++s) {
      OutVec<C>(out + s * inner, inner) = InVec<C>(in + s * inner, inner) + bias[s % c];
    }
  });
}

// Computes in ComputeType<T> (Note [Whole-tensor half compute]).
template <typename T>
class BiasAddKernel final : public OpKernel {
 public:
  explicit BiasAddKernel(const KernelInit& init) {
    const BiasAddAttrs attrs(init.attrs);
    channels_first_ = attrs.data_format.has_value() && attrs.data_format->rfind("NC", 0) == 0;
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& value = ctx.input(0);
    Tensor& output = ctx.output(0);
    const int64_t total = value.NumElements();
    if (total == 0) return Status::OK();
    const DeviceContext* device = &ctx.device_context();
    const int axis = channels_first_ ? 1 : value.rank() - 1;
    int64_t inner = 1;
    for (int i = axis + 1; i < value.rank(); ++i) inner *= value.dim(i);
    std::vector<ComputeType<T>> in_wide, bias_wide, out_wide;
    BiasAdd(device, WidenedData<T>(device, value, &in_wide), WidenedData<T>(device, ctx.input(1), &bias_wide),
            ComputeOutput<T>(output, &out_wide), total, value.dim(axis), inner);
    StoreNarrowed<T>(device, out_wide, output);
    return Status::OK();
  }

 private:
  bool channels_first_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterNnNormKernels(KernelRegistry& r) {
  RegisterForTypeSet<LayerNormKernel>(r, "layer_normalization", type_sets::Floating{});
  RegisterForTypeSet<BiasAddKernel>(r, "bias_add", type_sets::RealAndComplex{});
}

}  // namespace ember::cpu

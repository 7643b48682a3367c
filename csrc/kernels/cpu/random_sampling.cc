// This file implements the stateless_random_shuffle and
// stateless_categorical CPU kernels (op_defs/random.yaml).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/movement_copy.h"  // RegisterWithIndexTypes
#include "kernels/cpu/parallel.h"
#include "kernels/common/philox.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/random.gen.h"

namespace ember::cpu {
namespace {

// The seed input's stream (Note [Random streams]); int32 seeds sign-extend.
Status SeedAt(const Tensor& seed, philox::Stream* stream) {
  if (seed.NumElements() != 2) return InvalidArgument("seed must have shape [2], got " + seed.shape().ToString());
  if (seed.dtype() == DType::kInt32) {
    *stream = philox::Stream(seed.data<int32_t>()[0], seed.data<int32_t>()[1]);
  } else {
    *stream = philox::Stream(seed.data<int64_t>()[0], seed.data<int64_t>()[1]);
  }
  return Status::OK();
}

// Sorting the rows by a 64-bit key each (words 0 and 1 of block i) is a
// uniform permutation up to key ties, which the index breaks; it needs no
// sequential draws, so any row count maps to the same permutation rule.
class ShuffleKernel final : public OpKernel {
 public:
  explicit ShuffleKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& value = ctx.input(0);
    philox::Stream stream(0, 0);
    EMBER_RETURN_IF_ERROR(SeedAt(ctx.input(1), &stream));
    const size_t es = DTypeSize(value.dtype());
    const char* src = static_cast<const char*>(value.raw_data());
    char* dst = static_cast<char*>(ctx.output(0).raw_data());
    // Zero-size values have nothing to move (and may have a huge dim 0).
    if (value.NumElements() == 0) return Status::OK();
    if (value.rank() == 0 || value.dim(0) <= 1) {
      std::memcpy(dst, src, static_cast<size_t>(value.NumElements()) * es);
      return Status::OK();
    }
    const int64_t rows = value.dim(0);
    const size_t row_bytes = static_cast<size_t>(value.NumElements() / rows) * es;
    std::vector<uint64_t> keys(static_cast<size_t>(rows));
    ParallelFor(ctx, rows, 60, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        const philox::Counter w = stream.Block(static_cast<uint64_t>(i));
        keys[i] = philox::Join(w[0], w[1]);
      }
    });
    std::vector<int64_t> perm(static_cast<size_t>(rows));
    std::iota(perm.begin(), perm.end(), int64_t{0});
    std::sort(perm.begin(), perm.end(),
              [&](int64_t a, int64_t b) { return keys[a] < keys[b] || (keys[a] == keys[b] && a < b); });
    for (int64_t i = 0; i < rows; ++i) std::memcpy(dst + i * row_bytes, src + perm[i] * row_bytes, row_bytes);
    return Status::OK();
  }
};

// Inverse-CDF sampling in float64; see the op's doc for the exact rule.
template <typename T, typename Out>
class CategoricalKernel final : public OpKernel {
 public:
  explicit CategoricalKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& logits = ctx.input(0);
    philox::Stream stream(0, 0);
    EMBER_RETURN_IF_ERROR(SeedAt(ctx.input(1), &stream));
    const int64_t batch = logits.dim(0), classes = logits.dim(1), samples = attrs_.num_samples;
    if (classes > static_cast<int64_t>(std::numeric_limits<Out>::max())) {
      return InvalidArgument(std::to_string(classes) + " classes do not fit dtype " + DTypeName(DTypeOf<Out>::value));
    }
    const T* in = logits.data<T>();
    Out* out = ctx.output(0).data<Out>();
    std::vector<double> cdf(static_cast<size_t>(classes));
    for (int64_t b = 0; b < batch; ++b) {
      const T* row = in + b * classes;
      double top = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < classes; ++c) {
        const double l = static_cast<double>(static_cast<ComputeType<T>>(row[c]));
        if (std::isnan(l) || l == std::numeric_limits<double>::infinity()) {
          return InvalidArgument("logits[" + std::to_string(b) + ", " + std::to_string(c) + "] = " +
                                 std::to_string(l) + " is not a finite number or -inf");
        }
        top = std::max(top, l);
      }
      if (samples == 0) continue;
      if (top == -std::numeric_limits<double>::infinity()) {
        return InvalidArgument("every logit of row " + std::to_string(b) + " is -inf");
      }
      double total = 0;
      for (int64_t c = 0; c < classes; ++c) {
        total += std::exp(static_cast<double>(static_cast<ComputeType<T>>(row[c])) - top);
        cdf[c] = total;
      }
      for (int64_t s = 0; s < samples; ++s) {
        const philox::Counter w = stream.Block(static_cast<uint64_t>(b * samples + s));
        const double target = philox::UnitDouble(philox::Join(w[0], w[1])) * total;
        int64_t c = std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin();
        // Only if u * total rounded up to total: take the last class with mass.
        while (c == classes || (c > 0 && cdf[c] == cdf[c - 1])) --c;
        out[b * samples + s] = static_cast<Out>(c);
      }
    }
    return Status::OK();
  }

 private:
  StatelessCategoricalAttrs attrs_;
};

template <typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterCategorical(KernelRegistry& r, type_sets::TypeList<Ts...>) {
  for (DType seed : {DType::kInt32, DType::kInt64}) {
    (r.Register("stateless_categorical", kCpuDeviceType, {DTypeOf<Ts>::value, seed, DType::kInt32},
                &MakeKernel<CategoricalKernel<Ts, int32_t>>), ...);
    (r.Register("stateless_categorical", kCpuDeviceType, {DTypeOf<Ts>::value, seed, DType::kInt64},
                &MakeKernel<CategoricalKernel<Ts, int64_t>>), ...);
  }
}

}  // namespace

EMBER_STARTUP_CODE void RegisterRandomSamplingKernels(KernelRegistry& r) {
  RegisterWithIndexTypes(r, "stateless_random_shuffle", &MakeKernel<ShuffleKernel>, &MakeKernel<ShuffleKernel>,
                         type_sets::Every{});
  RegisterCategorical(r, type_sets::Floating{});
}

}  // namespace ember::cpu

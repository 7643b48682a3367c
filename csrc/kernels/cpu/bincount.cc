// This file implements the dense_bincount and histogram_fixed_width CPU
// kernels: both count values into bins.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/cpu/movement_copy.h"  // IndexAt
#include "kernels/cpu/registration.h"
#include "kernels/cpu/segment_reduce.h"  // WrapAdd
#include "ops/attrs/segments.gen.h"

namespace ember::cpu {
namespace {

// output[r, v] += weights[r, j] (or 1) for each input[r, j] == v < size.
template <typename T>
class DenseBincountKernel final : public OpKernel {
 public:
  explicit DenseBincountKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const Tensor& weights = ctx.input(1);
    Tensor& out = ctx.output(0);
    const int64_t rows = input.dim(0), n = input.dim(1), size = attrs_.size;
    const int64_t count = input.NumElements();
    for (int64_t j = 0; j < count; ++j) {
      const int64_t v = IndexAt(input, j);
      if (v < 0) {
        return InvalidArgument("Input arr must be non-negative, got " + std::to_string(v) + " at position " +
                               std::to_string(j));
      }
    }
    const bool weighted = weights.NumElements() > 0;
    const T* w = weighted ? weights.data<T>() : nullptr;
    T* dst = out.data<T>();
    std::fill(dst, dst + out.NumElements(), T(0));
    for (int64_t r = 0; r < rows; ++r) {
      T* row = dst + r * size;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t v = IndexAt(input, r * n + j);
        if (v >= size) continue;  // beyond maxlength: dropped, as TensorFlow
        if (attrs_.binary_output) {
          row[v] = T(1);
        } else {
          row[v] = WrapAdd(row[v], weighted ? w[r * n + j] : T(1));
        }
      }
    }
    return Status::OK();
  }

 private:
  DenseBincountAttrs attrs_;
};

// TensorFlow's binning: min(floor((max(v, lo) - lo) / step), nbins - 1)
// with step = (hi - lo) / nbins in double, so values below lo land in bin 0
// and values at or above hi in the last bin. The subtraction is done in T
// for floats (as TensorFlow) and in double for integers (no overflow).
template <typename T, typename Out>
class HistogramKernel final : public OpKernel {
 public:
  explicit HistogramKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& values = ctx.input(0);
    const Tensor& range = ctx.input(1);
    if (range.NumElements() != 2) return InvalidArgument("value_range must have 2 elements");
    const T lo = range.data<T>()[0], hi = range.data<T>()[1];
    if (!(lo < hi)) {
      return InvalidArgument("value_range should satisfy value_range[0] < value_range[1], but got [" +
                             std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    const int64_t nbins = attrs_.nbins;
    const double step = (static_cast<double>(hi) - static_cast<double>(lo)) / static_cast<double>(nbins);
    const double last = static_cast<double>(nbins - 1);
    Out* out = ctx.output(0).data<Out>();
    std::fill(out, out + nbins, Out(0));
    const T* v = values.data<T>();
    const int64_t n = values.NumElements();
    for (int64_t j = 0; j < n; ++j) {
      const T x = v[j];
      if (x != x) continue;  // NaN falls in no bin
      double offset;
      if constexpr (std::is_floating_point_v<T>) {
        offset = static_cast<double>(std::max(x, lo) - lo);
      } else {
        offset = std::max(static_cast<double>(x), static_cast<double>(lo)) - static_cast<double>(lo);
      }
      const double bin = std::min(std::floor(offset / step), last);
      out[static_cast<int64_t>(bin)] = WrapAdd(out[static_cast<int64_t>(bin)], Out(1));
    }
    return Status::OK();
  }

 private:
  HistogramFixedWidthAttrs attrs_;
};

// Registers both kernels for one value dtype T.
template <typename T>
EMBER_STARTUP_TEMPLATE void RegisterForValueType(KernelRegistry& r) {
  for (DType idx : {DType::kInt32, DType::kInt64}) {
    r.Register("dense_bincount", kCpuDeviceType, {idx, DTypeOf<T>::value}, &MakeKernel<DenseBincountKernel<T>>);
  }
  r.Register("histogram_fixed_width", kCpuDeviceType, {DTypeOf<T>::value, DType::kInt32},
             &MakeKernel<HistogramKernel<T, int32_t>>);
  r.Register("histogram_fixed_width", kCpuDeviceType, {DTypeOf<T>::value, DType::kInt64},
             &MakeKernel<HistogramKernel<T, int64_t>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterBincountKernels(KernelRegistry& r) {
  RegisterForValueType<int32_t>(r);
  RegisterForValueType<int64_t>(r);
  RegisterForValueType<float>(r);
  RegisterForValueType<double>(r);
}

}  // namespace ember::cpu

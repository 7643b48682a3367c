// This file implements the sort, argsort and top_k CPU kernels and
// RegisterCpuAxisKernels, which also registers the other axis-wise kernels
// (argminmax.cc, scan.cc).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/axis_view.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

// Note [Pending op definitions]
// These kernels read their attrs by index rather than through the generated
// ops/attrs/<family>.gen.h structs, and register only ops that op_defs/
// defines, so this file compiles and imports while the op definitions wait
// for their shape-function specs in codegen/model.py.

template <typename T>
bool IsNaN(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  return false;
}

// Strict weak orders with NaN above every number. Kernels compare in
// ComputeType<T>: half types as float32, which is exact both ways.
template <typename T>
bool Less(T a, T b) { return a < b || (IsNaN(b) && !IsNaN(a)); }
template <typename T>
bool Greater(T a, T b) { return a > b || (IsNaN(a) && !IsNaN(b)); }

constexpr double SortCycles(int64_t n) {
  double log2 = 1;
  for (int64_t m = n; m > 1; m >>= 1) log2 += 1;
  return 4.0 * static_cast<double>(n) * log2;
}

enum class SortMode { kValues, kIndices };

// Attrs: 0 axis (int), 1 direction (string), [2 stable (bool): always stable].
template <typename T, SortMode kMode>
class SortKernel final : public OpKernel {
 public:
  using C = ComputeType<T>;
  explicit SortKernel(const KernelInit& init)
      : axis_(init.attrs[0].as_int()), descending_(init.attrs[1].as_string() == "DESCENDING") {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const AxisView v = MakeAxisView(input.shape(), axis_);
    if (input.NumElements() == 0) return Status::OK();
    const T* in = input.data<T>();
    void* out = ctx.output(0).raw_data();
    const bool descending = descending_;
    ParallelFor(ctx, v.num_columns(), SortCycles(v.len), [=](int64_t first, int64_t last) {
      std::vector<C> values(v.len);
      std::vector<int32_t> order(v.len);
      for (int64_t c = first; c < last; ++c) {
        const int64_t o = c / v.inner;
        const int64_t i = c % v.inner;
        const int64_t base = o * v.len * v.inner + i;
        for (int64_t r = 0; r < v.len; ++r) values[r] = static_cast<C>(in[base + r * v.inner]);
        if constexpr (kMode == SortMode::kValues) {
          if (descending) {
            std::sort(values.begin(), values.end(), Greater<C>);
          } else {
            std::sort(values.begin(), values.end(), Less<C>);
          }
          T* y = static_cast<T*>(out);
          for (int64_t r = 0; r < v.len; ++r) y[base + r * v.inner] = static_cast<T>(values[r]);
        } else {
          std::iota(order.begin(), order.end(), 0);
          const C* x = values.data();
          if (descending) {
            std::stable_sort(order.begin(), order.end(),
                             [x](int32_t a, int32_t b) { return Greater(x[a], x[b]); });
          } else {
            std::stable_sort(order.begin(), order.end(),
                             [x](int32_t a, int32_t b) { return Less(x[a], x[b]); });
          }
          int32_t* y = static_cast<int32_t*>(out);
          for (int64_t r = 0; r < v.len; ++r) y[base + r * v.inner] = order[r];
        }
      }
    });
    return Status::OK();
  }

 private:
  int64_t axis_;
  bool descending_;
};

template <typename T>
using SortValuesKernel = SortKernel<T, SortMode::kValues>;
template <typename T>
using ArgsortKernel = SortKernel<T, SortMode::kIndices>;

// Attrs: 0 k (int), 1 sorted (bool; the result is always sorted).
template <typename T>
class TopKKernel final : public OpKernel {
 public:
  using C = ComputeType<T>;
  explicit TopKKernel(const KernelInit& init) : k_(init.attrs[0].as_int()) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const int64_t len = input.dim(input.rank() - 1);
    const int64_t k = k_;
    if (k == 0 || input.NumElements() == 0) return Status::OK();
    const int64_t rows = input.NumElements() / len;
    const T* in = input.data<T>();
    T* values = ctx.output(0).data<T>();
    int32_t* indices = ctx.output(1).data<int32_t>();
    ParallelFor(ctx, rows, SortCycles(len), [=](int64_t first, int64_t last) {
      std::vector<int32_t> order(len);
      std::vector<C> widened(kIsWidened<T> ? len : 0);
      for (int64_t row = first; row < last; ++row) {
        const T* in_row = in + row * len;
        const C* x = ConvertedSpan(in_row, widened.data(), len);
        std::iota(order.begin(), order.end(), 0);
        // Ties go to the lower index, which makes the order total.
        std::partial_sort(order.begin(), order.begin() + k, order.end(), [x](int32_t a, int32_t b) {
          if (Greater(x[a], x[b])) return true;
          if (Greater(x[b], x[a])) return false;
          return a < b;
        });
        for (int64_t j = 0; j < k; ++j) {
          values[row * k + j] = in_row[order[j]];
          indices[row * k + j] = order[j];
        }
      }
    });
    return Status::OK();
  }

 private:
  int64_t k_;
};

bool IsDefined(const char* op_name) {
  const OpDef* op;
  return FindOpDef(op_name, &op).ok();
}

}  // namespace

// argminmax.cc and scan.cc.
void RegisterArgReduceKernels(KernelRegistry& r);
void RegisterScanKernels(KernelRegistry& r);

}  // namespace ember::cpu

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuAxisKernels(KernelRegistry& r) {
  // Note [Pending op definitions].
  if (cpu::IsDefined("sort")) {
    cpu::RegisterForTypeSet<cpu::SortValuesKernel>(r, "sort", type_sets::Real{});
    cpu::RegisterForTypeSet<cpu::ArgsortKernel>(r, "argsort", type_sets::Real{});
    cpu::RegisterForTypeSet<cpu::TopKKernel>(r, "top_k", type_sets::Real{});
  }
  if (cpu::IsDefined("argmax")) cpu::RegisterArgReduceKernels(r);
  if (cpu::IsDefined("cumsum")) cpu::RegisterScanKernels(r);
}

}  // namespace ember

// This file implements the argmax and argmin CPU kernels.
#include <cmath>
#include <type_traits>
#include <vector>

#include "kernels/cpu/axis_view.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

template <typename T>
bool IsNaN(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  return false;
}

// Whether x replaces the best value so far: strictly better (so ties keep
// the first index), or the first NaN, which then stays (NumPy's rule).
template <typename T, bool kMax>
bool Better(T x, T best) {
  if (kMax ? x > best : x < best) return true;
  return IsNaN(x) && !IsNaN(best);
}

// Attrs (by index; see Note [Pending op definitions] in sort.cc):
// 0 axis (optional int, None = 0), 1 output_type (int32 or int64).
template <typename T, bool kMax>
class ArgReduceKernel final : public OpKernel {
 public:
  using C = ComputeType<T>;  // half types compare in float32 (exact)
  explicit ArgReduceKernel(const KernelInit& init)
      : axis_(init.attrs[0].is_none() ? 0 : init.attrs[0].as_int()) {}

  Status Compute(KernelContext& ctx) const override {
    Tensor& output = ctx.output(0);
    if (output.dtype() == DType::kInt32) return Run<int32_t>(ctx, output.data<int32_t>());
    return Run<int64_t>(ctx, output.data<int64_t>());
  }

 private:
  template <typename Index>
  Status Run(KernelContext& ctx, Index* out) const {
    const Tensor& input = ctx.input(0);
    const AxisView v = MakeAxisView(input.shape(), axis_);
    // The shape function rejects an empty axis, so len >= 1 here.
    if (v.num_columns() == 0) return Status::OK();
    const T* in = input.data<T>();
    ParallelFor(ctx, v.num_columns(), static_cast<double>(v.len), [=](int64_t first, int64_t last) {
      const size_t width = static_cast<size_t>(std::min(last - first, v.inner));
      std::vector<C> best(width);
      std::vector<Index> best_index(width);
      ForEachColumnRun(v, first, last, [&](int64_t o, int64_t i0, int64_t n) {
        const T* base = in + o * v.len * v.inner + i0;
        ConvertSpan(base, best.data(), n);
        std::fill(best_index.begin(), best_index.begin() + n, Index(0));
        for (int64_t r = 1; r < v.len; ++r) {
          const T* x = base + r * v.inner;
          for (int64_t j = 0; j < n; ++j) {
            const C value = static_cast<C>(x[j]);
            if (Better<C, kMax>(value, best[j])) {
              best[j] = value;
              best_index[j] = static_cast<Index>(r);
            }
          }
        }
        std::copy(best_index.begin(), best_index.begin() + n, out + o * v.inner + i0);
      });
    });
    return Status::OK();
  }

  int64_t axis_;
};

// One kernel per input dtype serves both index dtypes (the output tensor's
// dtype picks the writer), registered for each (T, OutT) binding.
template <bool kMax, typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterArgReduce(KernelRegistry& r, const char* op, type_sets::TypeList<Ts...>) {
  for (DType index : {DType::kInt32, DType::kInt64}) {
    (r.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value, index}, &MakeKernel<ArgReduceKernel<Ts, kMax>>),
     ...);
  }
}

}  // namespace

EMBER_STARTUP_CODE void RegisterArgReduceKernels(KernelRegistry& r) {
  RegisterArgReduce<true>(r, "argmax", type_sets::Real{});
  RegisterArgReduce<false>(r, "argmin", type_sets::Real{});
}

}  // namespace ember::cpu

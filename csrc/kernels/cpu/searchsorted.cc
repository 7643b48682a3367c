// This file implements the searchsorted CPU kernel: a binary search of each
// value in its row of the sorted sequence.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/segment_reduce.h"
#include "ops/attrs/segments.gen.h"

namespace ember::cpu {
namespace {

template <typename T, typename Out>
class SearchsortedKernel final : public OpKernel {
 public:
  explicit SearchsortedKernel(const KernelInit& init) : right_(SearchsortedAttrs(init.attrs).side == "right") {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& seq = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const int64_t m = seq.dim(seq.rank() - 1);
    const int64_t k = values.dim(values.rank() - 1);
    if (m > static_cast<int64_t>(std::numeric_limits<Out>::max())) {
      return InvalidArgument("sorted_sequence's last dim " + std::to_string(m) + " does not fit out_type " +
                             DTypeName(DTypeOf<Out>::value));
    }
    int64_t rows = 1;
    for (int i = 0; i + 1 < values.rank(); ++i) rows *= values.dim(i);
    const T* s = seq.data<T>();
    const T* v = values.data<T>();
    Out* out = ctx.output(0).data<Out>();
    const bool right = right_;
    const auto less = [](T a, T b) { return static_cast<ComputeType<T>>(a) < static_cast<ComputeType<T>>(b); };
    ParallelFor(ctx, rows * k, 20, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const T* row = s + (e / k) * m;
        const T* pos = right ? std::upper_bound(row, row + m, v[e], less) : std::lower_bound(row, row + m, v[e], less);
        out[e] = static_cast<Out>(pos - row);
      }
    });
    return Status::OK();
  }

 private:
  bool right_;
};

template <typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterSearchsorted(KernelRegistry& r, type_sets::TypeList<Ts...>) {
  (r.Register("searchsorted", kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt32},
              &MakeKernel<SearchsortedKernel<Ts, int32_t>>), ...);
  (r.Register("searchsorted", kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt64},
              &MakeKernel<SearchsortedKernel<Ts, int64_t>>), ...);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterSearchsortedKernels(KernelRegistry& r) { RegisterSearchsorted(r, type_sets::Real{}); }

}  // namespace ember::cpu

// This file implements the unique_index CPU kernel: each element's number
// among the distinct values, in order of first occurrence.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/segment_reduce.h"

namespace ember::cpu {
namespace {

// Values are keyed as int64 (bool, integers) or double (floats, exactly):
// std::hash<double> and == put -0.0 with 0.0, and NaN never equals itself,
// so each NaN gets a number of its own (TensorFlow's Unique does the same).
template <typename T>
using UniqueKey = std::conditional_t<std::is_integral_v<T>, int64_t, double>;

template <typename T, typename Out>
class UniqueIndexKernel final : public OpKernel {
 public:
  explicit UniqueIndexKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t n = x.NumElements();
    if (n > static_cast<int64_t>(std::numeric_limits<Out>::max())) {
      return InvalidArgument("x has " + std::to_string(n) + " elements, too many for out_idx " +
                             DTypeName(DTypeOf<Out>::value));
    }
    const T* in = x.data<T>();
    Out* idx = ctx.output(0).data<Out>();
    std::unordered_map<UniqueKey<T>, Out> seen;
    seen.reserve(static_cast<size_t>(std::min<int64_t>(n, 1 << 20)));
    Out next = 0;
    for (int64_t j = 0; j < n; ++j) {
      const auto key = static_cast<UniqueKey<T>>(static_cast<ComputeType<T>>(in[j]));
      if constexpr (!std::is_integral_v<T>) {
        if (std::isnan(key)) {
          idx[j] = next++;
          continue;
        }
      }
      auto [it, inserted] = seen.emplace(key, next);
      if (inserted) ++next;
      idx[j] = it->second;
    }
    return Status::OK();
  }
};

template <typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterUniqueIndex(KernelRegistry& r, type_sets::TypeList<Ts...>) {
  (r.Register("unique_index", kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt32},
              &MakeKernel<UniqueIndexKernel<Ts, int32_t>>), ...);
  (r.Register("unique_index", kCpuDeviceType, {DTypeOf<Ts>::value, DType::kInt64},
              &MakeKernel<UniqueIndexKernel<Ts, int64_t>>), ...);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterUniqueKernels(KernelRegistry& r) { RegisterUniqueIndex(r, type_sets::RealAndBool{}); }

}  // namespace ember::cpu

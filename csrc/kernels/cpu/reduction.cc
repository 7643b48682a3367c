// This file implements the reduce_sum, reduce_mean and reduce_prod CPU
// kernels and RegisterCpuReductionKernels, which also registers the other
// reduction kernels (reduction_extrema.cc, reduction_rows.cc).
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/reduction.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/wrapping.h"
#include "ops/attrs/reduction.gen.h"

namespace ember::cpu {
namespace {

// Note [Reduction accumulators]: integer sums and products accumulate in
// the unsigned type of wrapping.h (Note [Wrapping integer arithmetic]) and
// wrap once on the store, which gives NumPy's sum(x, dtype=x.dtype) with no
// signed overflow. Every integer mean sums in uint64, so the mean of many
// int8 or int32 values is right; a signed mean divides the sum read back
// as int64.
template <typename Acc>
struct Additive {
  using Type = Acc;
  static Acc Reduce(const ConstVec<Acc>& v) { return v.sum(); }
  static Acc Combine(Acc a, Acc b) { return a + b; }
  static void Accumulate(MutVec<Acc>& acc, const ConstVec<Acc>& v) { acc += v; }
};

template <typename T>
struct SumReducer : Additive<WrapType<ComputeType<T>>>, KeepsResult {
  using Attrs = ReduceSumAttrs;
  using Acc = typename SumReducer::Type;
  static T Empty() { return T(0); }
};

template <typename T>
struct MeanReducer : Additive<std::conditional_t<std::is_integral_v<T>, uint64_t, ComputeType<T>>> {
  using Attrs = ReduceMeanAttrs;
  using Acc = typename MeanReducer::Type;
  // The mean of nothing: NaN for floats (both parts for complex, as in
  // NumPy); 0 for ints rather than a division by zero.
  static T Empty() {
    constexpr auto kNaN = std::numeric_limits<float>::quiet_NaN();
    if constexpr (std::is_same_v<T, std::complex<float>>) return T(kNaN, kNaN);
    else if constexpr (std::is_integral_v<T>) return T(0);
    else return static_cast<T>(kNaN);
  }
  // Integer means truncate toward zero, like TensorFlow's.
  static Acc Finalize(Acc sum, int64_t count) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      return static_cast<Acc>(static_cast<int64_t>(sum) / count);
    } else {
      return sum / static_cast<Acc>(count);
    }
  }
};

template <typename T>
struct ProdReducer : KeepsResult {
  using Attrs = ReduceProdAttrs;
  using Acc = WrapType<ComputeType<T>>;
  static T Empty() { return T(1); }
  static Acc Reduce(const ConstVec<Acc>& v) { return v.prod(); }
  static Acc Combine(Acc a, Acc b) { return a * b; }
  static void Accumulate(MutVec<Acc>& acc, const ConstVec<Acc>& v) { acc *= v; }
};

}  // namespace

// reduction_extrema.cc and reduction_rows.cc.
void RegisterExtremaReductionKernels(KernelRegistry& r);
void RegisterRowReductionKernels(KernelRegistry& r);

}  // namespace ember::cpu

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuReductionKernels(KernelRegistry& r) {
  using cpu::Reduction;
  cpu::RegisterForTypeSet<Reduction<cpu::SumReducer>::Kernel>(r, "reduce_sum", type_sets::RealAndComplex{});
  cpu::RegisterForTypeSet<Reduction<cpu::MeanReducer>::Kernel>(r, "reduce_mean", type_sets::RealAndComplex{});
  cpu::RegisterForTypeSet<Reduction<cpu::ProdReducer>::Kernel>(r, "reduce_prod", type_sets::RealAndComplex{});
  cpu::RegisterExtremaReductionKernels(r);
  cpu::RegisterRowReductionKernels(r);
}

}  // namespace ember

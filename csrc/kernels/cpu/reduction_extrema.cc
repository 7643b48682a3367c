// This file implements the reduce_max, reduce_min, reduce_any and
// reduce_all CPU kernels.
#include <limits>

#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/reduction.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/reduction.gen.h"

namespace ember::cpu {
namespace {

// NaN wins in both, whichever side it is on.
template <typename A>
A MaxPropagateNaN(A a, A b) {
  return (Eigen::numext::isnan(a) || a > b) ? a : b;
}
template <typename A>
A MinPropagateNaN(A a, A b) {
  return (Eigen::numext::isnan(a) || a < b) ? a : b;
}

// Half types compare in float32 (Note [Reduction accumulators]); the result
// is one of the inputs, so the store is exact.
template <typename T>
struct MaxReducer : KeepsResult {
  using Attrs = ReduceMaxAttrs;
  using Acc = ComputeType<T>;
  static T Empty() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
  static Acc Reduce(const ConstVec<Acc>& v) { return v.template maxCoeff<Eigen::PropagateNaN>(); }
  static Acc Combine(Acc a, Acc b) { return MaxPropagateNaN(a, b); }
  static void Accumulate(MutVec<Acc>& acc, const ConstVec<Acc>& v) {
    acc = acc.template max<Eigen::PropagateNaN>(v);
  }
};

template <typename T>
struct MinReducer : KeepsResult {
  using Attrs = ReduceMinAttrs;
  using Acc = ComputeType<T>;
  static T Empty() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  }
  static Acc Reduce(const ConstVec<Acc>& v) { return v.template minCoeff<Eigen::PropagateNaN>(); }
  static Acc Combine(Acc a, Acc b) { return MinPropagateNaN(a, b); }
  static void Accumulate(MutVec<Acc>& acc, const ConstVec<Acc>& v) {
    acc = acc.template min<Eigen::PropagateNaN>(v);
  }
};

// Logical reductions over bool (T is always bool).
template <typename T>
struct AnyReducer : KeepsResult {
  using Attrs = ReduceAnyAttrs;
  using Acc = bool;
  static T Empty() { return false; }
  static Acc Reduce(const ConstVec<Acc>& v) { return v.any(); }
  static Acc Combine(Acc a, Acc b) { return a || b; }
  static void Accumulate(MutVec<Acc>& acc, const ConstVec<Acc>& v) { acc = acc || v; }
};

template <typename T>
struct AllReducer : KeepsResult {
  using Attrs = ReduceAllAttrs;
  using Acc = bool;
  static T Empty() { return true; }
  static Acc Reduce(const ConstVec<Acc>& v) { return v.all(); }
  static Acc Combine(Acc a, Acc b) { return a && b; }
  static void Accumulate(MutVec<Acc>& acc, const ConstVec<Acc>& v) { acc = acc && v; }
};

}  // namespace

EMBER_STARTUP_CODE void RegisterExtremaReductionKernels(KernelRegistry& r) {
  RegisterForTypeSet<Reduction<MaxReducer>::Kernel>(r, "reduce_max", type_sets::Real{});
  RegisterForTypeSet<Reduction<MinReducer>::Kernel>(r, "reduce_min", type_sets::Real{});
  RegisterForTypes<Reduction<AnyReducer>::Kernel, bool>(r, "reduce_any");
  RegisterForTypes<Reduction<AllReducer>::Kernel, bool>(r, "reduce_all");
}

}  // namespace ember::cpu

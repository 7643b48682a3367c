// This file defines SegmentKernel, the CPU kernel template behind the
// segment_* and unsorted_segment_* ops (op_defs/segments.yaml), and the
// registration functions of its two instantiation files. Internal to
// kernels/cpu/.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/movement_copy.h"  // IndexAt
#include "ops/op_kernel.h"

namespace ember::cpu {

enum class SegmentOp { kSum, kMean, kSqrtN, kProd, kMax, kMin };

// Integer sums and products wrap (two's complement) instead of being
// undefined behaviour on overflow.
template <typename A>
A WrapAdd(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename A>
A WrapMul(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    // Promote narrow types through unsigned int so the product cannot overflow int.
    return static_cast<A>(static_cast<U>(static_cast<unsigned long long>(static_cast<U>(a)) *
                                         static_cast<unsigned long long>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}

// output[s, k] = reduction over the entries j with ids[j] == s of data[j, k].
// Sorted ops check that ids are non-decreasing and non-negative, and give 0
// for empty segments (1 for prod); unsorted ops drop negative ids and give
// the reduction's identity (lowest / highest for max / min), as TensorFlow.
template <typename T, SegmentOp kOp, bool kSorted>
class SegmentKernel final : public OpKernel {
 public:
  using A = ComputeType<T>;

  explicit SegmentKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& data = ctx.input(0);
    const Tensor& ids = ctx.input(1);
    Tensor& out = ctx.output(0);
    const int64_t num_segments = out.dim(0);
    const int64_t num_ids = ids.NumElements();
    int64_t inner = 1;
    for (int i = ids.rank(); i < data.rank(); ++i) inner *= data.dim(i);
    EMBER_RETURN_IF_ERROR(CheckIds(ids, num_ids, num_segments));
    // Nothing to fill; also keeps a huge num_segments over zero-size rows
    // from sizing the scratch vectors below.
    if (out.NumElements() == 0) return Status::OK();

    std::vector<A> acc(static_cast<size_t>(num_segments * inner), Identity());
    std::vector<int64_t> count(static_cast<size_t>(num_segments), 0);
    const T* in = data.data<T>();
    for (int64_t j = 0; j < num_ids; ++j) {
      const int64_t s = IndexAt(ids, j);
      if (s < 0) continue;  // unsorted: dropped (sorted ids were checked)
      ++count[s];
      A* row = acc.data() + s * inner;
      const T* src = in + j * inner;
      for (int64_t k = 0; k < inner; ++k) row[k] = Combine(row[k], static_cast<A>(src[k]));
    }

    T* dst = out.data<T>();
    for (int64_t s = 0; s < num_segments; ++s) {
      const int64_t n = count[s];
      for (int64_t k = 0; k < inner; ++k) {
        A v = acc[s * inner + k];
        if constexpr (kOp == SegmentOp::kMean) {
          if constexpr (std::is_integral_v<A>) {
            v = n > 0 ? static_cast<A>(static_cast<int64_t>(v) / n) : A(0);  // truncates, as TensorFlow
          } else {
            v = n > 0 ? static_cast<A>(v / static_cast<A>(n)) : A(0);
          }
        } else if constexpr (kOp == SegmentOp::kSqrtN) {
          v = n > 0 ? static_cast<A>(v / static_cast<A>(std::sqrt(static_cast<double>(n)))) : A(0);
        } else if constexpr (kSorted && (kOp == SegmentOp::kMax || kOp == SegmentOp::kMin)) {
          if (n == 0) v = A(0);  // TensorFlow's segment_max/min: 0 for an empty segment
        }
        dst[s * inner + k] = static_cast<T>(v);
      }
    }
    return Status::OK();
  }

 private:
  static A Identity() {
    if constexpr (kOp == SegmentOp::kProd) {
      return A(1);
    } else if constexpr (kOp == SegmentOp::kMax) {
      return static_cast<A>(std::numeric_limits<T>::lowest());
    } else if constexpr (kOp == SegmentOp::kMin) {
      return static_cast<A>(std::numeric_limits<T>::max());
    } else {
      return A(0);
    }
  }

  // max and min propagate NaN, as NumPy's maximum and minimum do.
  static A Combine(A acc, A v) {
    if constexpr (kOp == SegmentOp::kProd) {
      return WrapMul(acc, v);
    } else if constexpr (kOp == SegmentOp::kMax) {
      return (v > acc || v != v) ? v : acc;
    } else if constexpr (kOp == SegmentOp::kMin) {
      return (v < acc || v != v) ? v : acc;
    } else {
      return WrapAdd(acc, v);
    }
  }

  static Status CheckIds(const Tensor& ids, int64_t num_ids, int64_t num_segments) {
    int64_t previous = 0;
    for (int64_t j = 0; j < num_ids; ++j) {
      const int64_t s = IndexAt(ids, j);
      if constexpr (kSorted) {
        if (s < 0) return InvalidArgument("segment ids must be >= 0, got segment_ids[" + std::to_string(j) +
                                          "] = " + std::to_string(s));
        if (s < previous) {
          return InvalidArgument("segment ids are not increasing: segment_ids[" + std::to_string(j) + "] = " +
                                 std::to_string(s) + " < segment_ids[" + std::to_string(j - 1) + "] = " +
                                 std::to_string(previous));
        }
        previous = s;
      }
      if (s >= num_segments) {
        return InvalidArgument("segment_ids[" + std::to_string(j) + "] = " + std::to_string(s) +
                               " is out of range [0, " + std::to_string(num_segments) + ")");
      }
    }
    return Status::OK();
  }
};

// Registers SegmentKernel<T, kOp, kSorted> for each T with either id dtype
// (the kernel reads ids by their dtype).
template <SegmentOp kOp, bool kSorted, typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterSegmentOp(KernelRegistry& r, const char* op, type_sets::TypeList<Ts...>) {
  for (DType ids : {DType::kInt32, DType::kInt64}) {
    (r.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value, ids}, &MakeKernel<SegmentKernel<Ts, kOp, kSorted>>), ...);
  }
}

// Per-file registration, called by RegisterCpuSegmentKernels (segments.cc).
void RegisterSortedSegmentKernels(KernelRegistry& r);    // segment_sorted.cc
void RegisterUnsortedSegmentKernels(KernelRegistry& r);  // segment_unsorted.cc
void RegisterBincountKernels(KernelRegistry& r);         // bincount.cc
void RegisterUniqueKernels(KernelRegistry& r);           // unique.cc
void RegisterSearchsortedKernels(KernelRegistry& r);     // searchsorted.cc
void RegisterReverseSequenceKernels(KernelRegistry& r);  // reverse_sequence.cc

}  // namespace ember::cpu

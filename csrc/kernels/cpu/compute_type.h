// This file defines ComputeType<T>, the type a CPU kernel computes in for a
// tensor of element type T, and the span conversions between the two.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/cpu/eigen.h"

namespace ember::cpu {

// Note [Half compute]
// float16 and bfloat16 are storage formats on the CPU: kernels load them
// into float32, run the float32 code, and round once when they store. That
// is what TensorFlow and PyTorch do on CPUs without native half arithmetic;
// it costs two conversions per element but reuses every float32 kernel
// (and its vectorization) instead of instantiating Eigen's scalar-emulated
// half arithmetic, and it is more accurate than rounding after each step.
// Reductions accumulate in float32 too. Every other type computes as itself.
template <typename T>
struct ComputeTypeOf {
  using type = T;
};
template <>
struct ComputeTypeOf<Eigen::half> {
  using type = float;
};
template <>
struct ComputeTypeOf<Eigen::bfloat16> {
  using type = float;
};
template <typename T>
using ComputeType = typename ComputeTypeOf<T>::type;

// True for the storage-only types of Note [Half compute].
template <typename T>
inline constexpr bool kIsWidened = !std::is_same_v<T, ComputeType<T>>;

// Elements a kernel converts at a time into a stack buffer: small enough to
// stay in L1, large enough that the per-block overhead vanishes.
inline constexpr int64_t kWidenBlock = 256;

// out[i] = To(in[i]) for i in [0, n). Eigen vectorizes half <-> float.
template <typename To, typename From>
void ConvertSpan(const From* in, To* out, int64_t n) {
  using In = Eigen::Map<const Eigen::Array<From, Eigen::Dynamic, 1>>;
  using Out = Eigen::Map<Eigen::Array<To, Eigen::Dynamic, 1>>;
  Out(out, n) = In(in, n).template cast<To>();
}

// in[0, n) as ComputeType<T>: `in` itself, or for the widened types a copy
// in *storage, for kernels (GEMM) that need a whole operand widened at once
// rather than a block at a time.
template <typename T>
const ComputeType<T>* AsComputeType(const T* in, int64_t n, std::vector<ComputeType<T>>* storage) {
  if constexpr (kIsWidened<T>) {
    storage->resize(n);
    ConvertSpan(in, storage->data(), n);
    return storage->data();
  } else {
    return in;
  }
}

// in[0, n) as To: `in` itself when From is To, else converted into buf
// (which holds at least n values). For block loops that work in an
// accumulator type, such as int64 sums of int8 (reductions).
template <typename To, typename From>
const To* ConvertedSpan(const From* in, To* buf, int64_t n) {
  if constexpr (std::is_same_v<To, From>) {
    return in;
  } else {
    ConvertSpan(in, buf, n);
    return buf;
  }
}

// Calls fn(first, count) for consecutive blocks of at most kWidenBlock
// elements covering [0, n).
template <typename Fn>
void ForEachWidenBlock(int64_t n, Fn&& fn) {
  for (int64_t first = 0; first < n; first += kWidenBlock) {
    fn(first, std::min(kWidenBlock, n - first));
  }
}

}  // namespace ember::cpu

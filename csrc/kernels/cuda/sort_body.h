// This file defines the per-element parts of the CUDA sort, argsort and
// top_k kernels (sort.cu) as functions host code compiles too (Note
// [Kernel bodies on the host] in window_body.h): the unsigned sort keys
// and the addressing around the axis.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/common/element_math.h"

namespace ember::cuda {

// Note [GPU sort keys]
// The GPU sorts unsigned integer keys with CUB (a stable radix or merge
// sort), never the values themselves, so the order is exactly the CPU
// kernels' (sort.cc's Less and Greater) whatever CUB does with floats:
//  - a float's bits are made monotonic: negative values have every bit
//    flipped, others only the sign bit; -0.0 is first made +0.0, so the
//    two zeros tie (as they compare equal on the CPU) and keep their
//    order;
//  - every NaN becomes the largest key, above +inf, and NaNs tie;
//  - signed integers are widened to the key and their top bit flipped;
//  - DESCENDING flips every bit of the key, so a stable ascending sort of
//    the flipped keys orders equal values by index, lowest first, as the
//    CPU's stable_sort does with Greater and as top_k requires.
// Keys are 32 bits for types of up to 4 bytes (the half types are keyed
// through float, which holds them exactly) and 64 bits for the others: two
// CUB instantiations serve all nine real dtypes.
template <typename C>
using SortKey = std::conditional_t<sizeof(C) == 8, uint64_t, uint32_t>;

template <typename C>
EMBER_HOST_DEVICE inline SortKey<C> OrderedKey(C x, bool descending) {
  using K = SortKey<C>;
  constexpr K kTop = K(1) << (sizeof(K) * 8 - 1);
  K key;
  if constexpr (std::is_floating_point_v<C>) {
    static_assert(sizeof(C) == sizeof(K), "float keys have the float's width");
    if (x != x) {
      key = ~K(0);
    } else {
      if (x == C(0)) x = C(0);
      K bits;
      memcpy(&bits, &x, sizeof bits);
      key = (bits & kTop) != 0 ? ~bits : (bits | kTop);
    }
  } else if constexpr (std::is_signed_v<C>) {
    key = static_cast<K>(static_cast<K>(x) ^ kTop);  // sign-extended, then offset by 2^(bits-1)
  } else {
    key = static_cast<K>(x);
  }
  return descending ? static_cast<K>(~key) : key;
}

// A sort along an axis views the input as [outer, len, inner]: column c =
// o * inner + i is the len elements at o * len * inner + r * inner + i.
// The kernels lay the keys out column after column (element e = c * len
// + r), so each column is one of CUB's segments. The input offset of
// element r of column c:
EMBER_HOST_DEVICE inline int64_t AxisOffset(int64_t column, int64_t r, int64_t len, int64_t inner) {
  return (column / inner) * len * inner + r * inner + column % inner;
}

}  // namespace ember::cuda

// This file defines CastValue, the conversion of one element between any two
// Ember dtypes, and the loops that cast.h's tables point to. Included only
// by cast_integer.cc and cast_float.cc.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "kernels/common/element_math.h"
#include "kernels/cpu/cast.h"
#include "kernels/cpu/eigen.h"
#include "ops/type_sets.gen.h"

namespace ember::cpu {

template <typename T>
inline constexpr bool kIsHalfLike = std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;
template <typename T>
inline constexpr bool kIsComplex = std::is_same_v<T, std::complex<float>>;
template <typename T>
inline constexpr bool kIsFloating = std::is_floating_point_v<T> || kIsHalfLike<T>;

// Note [Cast semantics]: one rule per pair of kinds, all defined behavior:
// - to bool: x != 0 (for complex: either part nonzero; NaN is true);
// - from bool: 0 or 1;
// - complex to real: the real part, then the rule below (as TensorFlow);
// - real to complex: the value, imaginary part 0;
// - float to integer: truncate toward zero, saturating at the integer's
//   limits, NaN to 0 (as XLA; a plain static_cast is undefined there);
// - integer to integer: two's-complement wrap-around (as NumPy/TF);
// - to and from float16/bfloat16: through float32, rounding to nearest even.
template <typename Src, typename Dst>
inline Dst CastValue(Src x) {
  if constexpr (std::is_same_v<Dst, bool>) {
    if constexpr (kIsComplex<Src>) {
      return x.real() != 0.0f || x.imag() != 0.0f;
    } else if constexpr (kIsHalfLike<Src>) {
      return static_cast<float>(x) != 0.0f;
    } else {
      return x != Src(0);
    }
  } else if constexpr (std::is_same_v<Src, bool>) {
    return CastValue<int32_t, Dst>(x ? 1 : 0);
  } else if constexpr (kIsComplex<Src>) {
    if constexpr (kIsComplex<Dst>) {
      return x;
    } else {
      return CastValue<float, Dst>(x.real());
    }
  } else if constexpr (kIsComplex<Dst>) {
    return Dst(CastValue<Src, float>(x), 0.0f);
  } else if constexpr (std::is_integral_v<Dst> && kIsFloating<Src>) {
    // Note [Shared element math]: the device kernels cast with the same
    // functor.
    return math::CastTo<Dst>()(static_cast<std::conditional_t<kIsHalfLike<Src>, float, Src>>(x));
  } else if constexpr (kIsHalfLike<Dst>) {
    return Dst(static_cast<float>(x));
  } else if constexpr (kIsHalfLike<Src>) {
    return static_cast<Dst>(static_cast<float>(x));
  } else {
    return math::CastTo<Dst>()(x);  // integer/float pairs of the C++ built-in types
  }
}

template <typename Src, typename Dst>
void CastRange(const void* in, void* out, int64_t first, int64_t last) {
  const Src* src = static_cast<const Src*>(in);
  Dst* dst = static_cast<Dst*>(out);
  for (int64_t i = first; i < last; ++i) dst[i] = CastValue<Src, Dst>(src[i]);
}

// Sets table[Src][Dst] for every destination of the `every` set.
template <typename Src, typename... Dsts>
void AddCastsFrom(CastTable& table, type_sets::TypeList<Dsts...>) {
  ((table.fn[static_cast<int>(DTypeOf<Src>::value)][static_cast<int>(DTypeOf<Dsts>::value)] =
        &CastRange<Src, Dsts>),
   ...);
}

}  // namespace ember::cpu

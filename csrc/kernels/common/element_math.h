// This file defines the element-wise math of Ember's ops as scalar
// functors that host code and device code (CUDA) both compile.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

namespace ember::math {

// Note [Shared element math]
// Each element-wise op's arithmetic is defined once, here, as a scalar
// functor over the type the kernel computes in (float32 for float16 and
// bfloat16, Note [Half compute]): the edge cases TensorFlow and NumPy
// agree on (integer wrapping, NaN-propagating maximum, sign of -0, round
// half to even, xlogy at 0) live in one place. A device kernel (CUDA)
// applies the functor per element. The CPU kernels apply Eigen's
// vectorized form of the same math (kernels/cpu/functors.h), and each of
// those names its scalar functor here as `Scalar`; for the ops Eigen has no
// vector form of (bitwise ops, pow, atan2, integer abs) the CPU calls the
// scalar functor itself. tests/cpp/element_math_test.cc holds the two
// forms equal over every dtype and a grid of special values (exact for
// integers, bools and comparisons, within a few ulps for transcendental
// functions), so the CPU tests check the device's arithmetic too.

// Integer types whose arithmetic wraps (Note [Wrapping integer arithmetic]
// in kernels/cpu/wrapping.h): computed in the unsigned type of the same
// width, at least unsigned int, where overflow is defined.
template <typename T>
inline constexpr bool kWraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <typename T, bool = kWraps<T>>
struct UnsignedOf {
  using type = T;
};
template <typename T>
struct UnsignedOf<T, true> {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <typename T>
using Unsigned = typename UnsignedOf<T>::type;

template <typename T>
EMBER_HOST_DEVICE constexpr bool IsNan(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return x != x;
  } else {
    return false;
  }
}

// Unary.
struct Negative {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (kWraps<T>) {
      return static_cast<T>(Unsigned<T>(0) - static_cast<Unsigned<T>>(x));  // -INT_MIN is INT_MIN
    } else {
      return -x;
    }
  }
};
struct Abs {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (kWraps<T> && std::is_signed_v<T>) {
      return x < 0 ? Negative()(x) : x;  // abs(INT_MIN) is INT_MIN, as in NumPy
    } else if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {
      using std::abs;
      return abs(x);
    }
  }
};
// NaN stays NaN, and -0 stays -0 (as on the CPU: max(x, 0) keeps x on a tie).
struct Relu {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return x < T(0) ? T(0) : x; }
};
struct Exp {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::exp(x); }
};
struct Log {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::log(x); }
};
struct Sqrt {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::sqrt(x); }
};
struct Rsqrt {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return T(1) / std::sqrt(x); }
};
struct Tanh {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::tanh(x); }
};
// 1 / (1 + e^-x): 0 far below, 1 far above, never NaN for a number.
struct Sigmoid {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return T(1) / (T(1) + std::exp(-x)); }
};
// NaN stays NaN and -0 gives +0 (NumPy and TensorFlow); integers give -1, 0 or 1.
struct Sign {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const {
    if (x > T(0)) return T(1);
    if (x < T(0)) return static_cast<T>(-1);
    return IsNan(x) ? x : T(0);
  }
};
struct Square {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (kWraps<T>) {
      return static_cast<T>(static_cast<Unsigned<T>>(x) * static_cast<Unsigned<T>>(x));
    } else {
      return x * x;
    }
  }
};
struct Reciprocal {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return T(1) / x; }
};
struct Floor {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::floor(x); }
};
struct Ceil {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::ceil(x); }
};
// Half to even, like TensorFlow's round and NumPy's rint (under the
// default rounding mode); integers are already round.
struct Round {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return x;
    } else {
      return std::nearbyint(x);
    }
  }
};
struct LogicalNot {
  EMBER_HOST_DEVICE bool operator()(bool x) const { return !x; }
};
// Float -> bool predicates.
struct IsNanOf {
  template <typename T> EMBER_HOST_DEVICE bool operator()(T x) const { return IsNan(x); }
};
struct IsInf {
  template <typename T> EMBER_HOST_DEVICE bool operator()(T x) const { return std::isinf(x); }
};
struct IsFinite {
  template <typename T> EMBER_HOST_DEVICE bool operator()(T x) const { return std::isfinite(x); }
};
struct Expm1 {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::expm1(x); }
};
struct Log1p {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::log1p(x); }
};
struct Sin {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::sin(x); }
};
struct Cos {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::cos(x); }
};
struct Tan {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::tan(x); }
};
struct Asin {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::asin(x); }
};
struct Acos {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::acos(x); }
};
struct Atan {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::atan(x); }
};
struct Sinh {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::sinh(x); }
};
struct Cosh {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::cosh(x); }
};
struct Asinh {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::asinh(x); }
};
struct Acosh {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::acosh(x); }
};
struct Atanh {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::atanh(x); }
};
struct Erf {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::erf(x); }
};
struct Erfc {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return std::erfc(x); }
};
// log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|).
struct Softplus {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const {
    return (x > T(0) ? x : T(0)) + std::log1p(std::exp(-std::fabs(x)));
  }
};

// Binary.
struct Add {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (kWraps<T>) {
      return static_cast<T>(static_cast<Unsigned<T>>(x) + static_cast<Unsigned<T>>(y));
    } else {
      return x + y;
    }
  }
};
struct Subtract {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (kWraps<T>) {
      return static_cast<T>(static_cast<Unsigned<T>>(x) - static_cast<Unsigned<T>>(y));
    } else {
      return x - y;
    }
  }
};
struct Multiply {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const {
    if constexpr (kWraps<T>) {
      return static_cast<T>(static_cast<Unsigned<T>>(x) * static_cast<Unsigned<T>>(y));
    } else {
      return x * y;
    }
  }
};
// Floats only: integer division has its own kernels and error policy.
struct Divide {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const { return x / y; }
};
// NaN-propagating, like NumPy's maximum and minimum. Of 0 and -0 either
// may come out: the CPU's vector instructions pick by operand order, and
// which operand is which depends on the broadcast form.
struct Maximum {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const {
    if (IsNan(x)) return x;
    if (IsNan(y)) return y;
    return x > y ? x : y;
  }
};
struct Minimum {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const {
    if (IsNan(x)) return x;
    if (IsNan(y)) return y;
    return x < y ? x : y;
  }
};
// relu's gradient: g where the feature (relu's output) is positive, else 0
// (also for a NaN feature, and whatever g holds there).
struct ReluGrad {
  template <typename T> EMBER_HOST_DEVICE T operator()(T g, T feature) const { return feature > T(0) ? g : T(0); }
};
struct SquaredDifference {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const { return Square()(Subtract()(x, y)); }
};
// Note [Floor division] (kernels/cpu/elementwise_division.cc), the float
// forms: the quotient (x - fmod(x, y)) / y rounded to the nearest integer,
// exact where floor(x / y) is not. The integer forms reject a zero
// divisor, so they stay with the CPU's checked kernels.
struct FloorDiv {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const {
    if (y == T(0)) return x / y;  // inf or nan, like NumPy
    const T mod = std::fmod(x, y);
    T div = (x - mod) / y;
    if (mod != T(0) && ((y < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return std::copysign(T(0), x / y);
    T floor_div = std::floor(div);
    if (div - floor_div > T(0.5)) floor_div += T(1);
    return floor_div;
  }
};
struct FloorMod {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const {
    T mod = std::fmod(x, y);  // nan for y == 0
    if (mod != T(0)) {
      if ((y < T(0)) != (mod < T(0))) mod += y;
    } else {
      mod = std::copysign(T(0), y);
    }
    return mod;
  }
};
// Floats only; integer pow has its own kernel (negative exponents fail).
struct Pow {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const { return static_cast<T>(std::pow(x, y)); }
};
// atan2(y, x): the angle of the point (x, y).
struct Atan2 {
  template <typename T> EMBER_HOST_DEVICE T operator()(T y, T x) const { return static_cast<T>(std::atan2(y, x)); }
};
// x * log(y), and exactly 0 where x is 0 (even where y is 0 or NaN).
struct Xlogy {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const { return x == T(0) ? T(0) : x * std::log(y); }
};
struct LogicalAnd {
  EMBER_HOST_DEVICE bool operator()(bool x, bool y) const { return x && y; }
};
struct LogicalOr {
  EMBER_HOST_DEVICE bool operator()(bool x, bool y) const { return x || y; }
};
struct LogicalXor {
  EMBER_HOST_DEVICE bool operator()(bool x, bool y) const { return x != y; }
};
struct BitwiseAnd {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const { return static_cast<T>(x & y); }
};
struct BitwiseOr {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const { return static_cast<T>(x | y); }
};
struct BitwiseXor {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x, T y) const { return static_cast<T>(x ^ y); }
};
// Comparisons: IEEE rules, so any comparison with NaN but != is false.
struct Equal {
  template <typename T> EMBER_HOST_DEVICE bool operator()(T x, T y) const { return x == y; }
};
struct NotEqual {
  template <typename T> EMBER_HOST_DEVICE bool operator()(T x, T y) const { return x != y; }
};
struct Less {
  template <typename T> EMBER_HOST_DEVICE bool operator()(T x, T y) const { return x < y; }
};
struct LessEqual {
  template <typename T> EMBER_HOST_DEVICE bool operator()(T x, T y) const { return x <= y; }
};
struct Greater {
  template <typename T> EMBER_HOST_DEVICE bool operator()(T x, T y) const { return x > y; }
};
struct GreaterEqual {
  template <typename T> EMBER_HOST_DEVICE bool operator()(T x, T y) const { return x >= y; }
};

// clip_by_value in TensorFlow's order: min(t, hi) first, then max with
// lo, so lo wins when lo > hi; a NaN t stays NaN.
struct Clip {
  template <typename T> EMBER_HOST_DEVICE T operator()(T t, T lo, T hi) const {
    const T v = hi < t ? hi : t;
    return v < lo ? lo : v;
  }
};

// Activations (TensorFlow's definitions; the CPU's vector forms are in
// kernels/cpu/activation_functors.h). Those with a parameter carry it,
// set from the op's attr.
struct Relu6 {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return x < T(0) ? T(0) : x > T(6) ? T(6) : x; }
};
struct LeakyRelu {
  double alpha = 0.2;
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return x > T(0) ? x : x * static_cast<T>(alpha); }
};
struct Elu {
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return x > T(0) ? x : Expm1()(x); }
};
struct Selu {
  static constexpr double kAlpha = 1.6732632423543772848170429916717;
  static constexpr double kScale = 1.0507009873554804934193349852946;
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const {
    return x > T(0) ? x * static_cast<T>(kScale) : Expm1()(x) * static_cast<T>(kScale * kAlpha);
  }
};
struct Gelu {
  bool approximate = false;
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const {
    if (approximate) {
      const T k = static_cast<T>(0.7978845608028654);  // sqrt(2 / pi)
      return T(0.5) * x * (T(1) + Tanh()(k * (x + T(0.044715) * x * x * x)));
    }
    return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(0.7071067811865476)));  // x / sqrt(2)
  }
};
struct Silu {
  double beta = 1.0;
  template <typename T> EMBER_HOST_DEVICE T operator()(T x) const { return x * Sigmoid()(x * static_cast<T>(beta)); }
};

// Casts (Note [Cast semantics] in kernels/cpu/cast_convert.h), between the
// built-in types kernels compute in: bool, the integers, float, double.
// float16 and bfloat16 go through float on both sides (Note [Half
// compute]); complex values are the CPU's alone.
template <typename T>
EMBER_HOST_DEVICE constexpr T MaxOf() {
  if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(~std::make_unsigned_t<T>(0)) >> 1);
  } else {
    return static_cast<T>(~T(0));
  }
}
template <typename T>
EMBER_HOST_DEVICE constexpr T MinOf() {
  if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(-MaxOf<T>() - 1);
  } else {
    return T(0);
  }
}

template <typename Dst>
struct CastTo {
  template <typename Src> EMBER_HOST_DEVICE Dst operator()(Src x) const {
    if constexpr (std::is_same_v<Dst, bool>) {
      return x != Src(0);  // NaN is true
    } else if constexpr (std::is_same_v<Src, bool>) {
      return static_cast<Dst>(x ? 1 : 0);
    } else if constexpr (std::is_integral_v<Dst> && std::is_floating_point_v<Src>) {
      // Truncate toward zero, saturating; NaN gives 0 (as XLA). The
      // integer range as doubles: lo is -2^k or 0, hi is 2^digits (exact).
      const double d = static_cast<double>(x);
      constexpr double lo = static_cast<double>(MinOf<Dst>());
      constexpr double hi = static_cast<double>(MaxOf<Dst>()) + 1.0;
      if (d != d) return Dst(0);
      if (d >= hi) return MaxOf<Dst>();
      if (!(d > lo - 1.0)) return MinOf<Dst>();
      return static_cast<Dst>(d);
    } else {
      return static_cast<Dst>(x);  // integers wrap (two's complement); floats round to nearest
    }
  }
};

}  // namespace ember::math

// This file defines the element-wise functors of the CPU kernels: small
// structs that apply to Eigen array expressions.
#pragma once

#include <cmath>
#include <type_traits>

#include "kernels/common/element_math.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/ieee_math.h"
#include "kernels/cpu/wrapping.h"

namespace ember::cpu {

// Each functor has kCycles, a rough per-element cost for ParallelFor.

// x86 without SSE4.1 has no rounding instruction, and Eigen's emulation
// of floor, ceil and rint loses the sign of a zero result (ceil(-0.5) is
// +0, not -0): such builds (EMBER_NATIVE_ARCH=OFF) round with the scalar
// functions instead, as element_math_test requires.
#if defined(EIGEN_VECTORIZE_SSE) && !defined(EIGEN_VECTORIZE_SSE4_1)
inline constexpr bool kEmulatedRounding = true;
#else
inline constexpr bool kEmulatedRounding = false;
#endif

// Applies op to a and b in WrapType for int32 and int64, whose +, - and *
// can overflow (Note [Wrapping integer arithmetic]); narrower integers
// promote to int, where they cannot.
template <typename A, typename B, typename Op>
auto Wrapping(const A& a, const B& b, Op op) {
  using T = typename A::Scalar;
  if constexpr (kIsWrappingInt<T> && sizeof(T) >= sizeof(int)) {
    using U = WrapType<T>;
    return op(a.template cast<U>(), b.template cast<U>()).template cast<T>();
  } else {
    return op(a, b);
  }
}
inline constexpr auto kPlus = [](const auto& x, const auto& y) { return x + y; };
inline constexpr auto kMinus = [](const auto& x, const auto& y) { return x - y; };
inline constexpr auto kTimes = [](const auto& x, const auto& y) { return x * y; };

// Unary.
struct NegativeFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Negative;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    using T = typename A::Scalar;
    if constexpr (kIsWrappingInt<T> && sizeof(T) >= sizeof(int)) {
      // -INT_MIN wraps to INT_MIN, as in NumPy.
      return (-a.template cast<WrapType<T>>()).template cast<T>();
    } else {
      return -a;
    }
  }
};
struct AbsFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Abs;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    using T = typename A::Scalar;
    if constexpr (kIsWrappingInt<T>) {
      // abs(INT_MIN) wraps to INT_MIN, as in NumPy, instead of overflowing.
      return a.unaryExpr(Scalar());
    } else {
      return a.abs();
    }
  }
};
struct ReluFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Relu;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    return a.max(typename A::Scalar(0));
  }
};
// Note [IEEE special values] (ieee_math.h): float32 and float64 use the
// ieee:: functors; complex and other types keep Eigen's.
struct ExpFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Exp;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    using T = typename A::Scalar;
    if constexpr (ieee::kIsReal<T>) {
      return a.unaryExpr(ieee::ExpOp<T>());
    } else {
      return a.exp();
    }
  }
};
struct LogFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Log;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    using T = typename A::Scalar;
    if constexpr (ieee::kIsReal<T>) {
      return a.unaryExpr(ieee::LogOp<T>());
    } else {
      return a.log();
    }
  }
};
struct SqrtFn {
  static constexpr double kCycles = 5;
  using Scalar = math::Sqrt;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    using T = typename A::Scalar;
    if constexpr (ieee::kIsReal<T>) {
      return a.unaryExpr(ieee::SqrtOp<T>());
    } else {
      return a.sqrt();
    }
  }
};
struct TanhFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Tanh;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.tanh(); }
};
// 1 / (1 + e^-x): Eigen's float32 logistic approximates e^x below -9,
// which is 4.5e-5 off (relative) at -10. Far below, e^-x is inf and the
// result 0; far above, e^-x is 0 and the result 1.
struct SigmoidFn {
  static constexpr double kCycles = 24;
  using Scalar = math::Sigmoid;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    using T = typename A::Scalar;
    if constexpr (ieee::kIsReal<T>) {
      return (T(1) + (-a).unaryExpr(ieee::ExpOp<T>())).inverse();
    } else {
      return a.logistic();
    }
  }
};
// NaN stays NaN, and -0 gives +0 (NumPy and TF); integers give -1, 0 or 1.
struct SignFn {
  static constexpr double kCycles = 2;
  using Scalar = math::Sign;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    using T = typename A::Scalar;
    return (a > T(0)).select(T(1), (a < T(0)).select(T(-1), (a == a).select(T(0), a)));
  }
};
struct SquareFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Square;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return Wrapping(a, a, kTimes); }
};
struct ReciprocalFn {
  static constexpr double kCycles = 4;
  using Scalar = math::Reciprocal;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.inverse(); }
};
struct RsqrtFn {
  static constexpr double kCycles = 6;
  using Scalar = math::Rsqrt;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    using T = typename A::Scalar;
    if constexpr (ieee::kIsReal<T>) {
      return a.unaryExpr(ieee::RsqrtOp<T>());
    } else {
      return a.rsqrt();
    }
  }
};
struct FloorFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Floor;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    if constexpr (kEmulatedRounding) {
      return a.unaryExpr(Scalar());
    } else {
      return a.floor();
    }
  }
};
struct CeilFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Ceil;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    if constexpr (kEmulatedRounding) {
      return a.unaryExpr(Scalar());
    } else {
      return a.ceil();
    }
  }
};
// Half to even, like TF's round and NumPy's rint (Eigen's round() would
// round half away from zero). Integers are already round.
struct RoundFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Round;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    if constexpr (std::is_integral_v<typename A::Scalar>) {
      return a;
    } else if constexpr (kEmulatedRounding) {
      return a.unaryExpr(Scalar());
    } else {
      return a.rint();
    }
  }
};
struct LogicalNotFn {
  static constexpr double kCycles = 1;
  using Scalar = math::LogicalNot;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return !a; }
};
// Float -> bool predicates.
struct IsNanFn {
  static constexpr double kCycles = 1;
  using Scalar = math::IsNanOf;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.isNaN(); }
};
struct IsInfFn {
  static constexpr double kCycles = 1;
  using Scalar = math::IsInf;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.isInf(); }
};
struct IsFiniteFn {
  static constexpr double kCycles = 1;
  using Scalar = math::IsFinite;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.isFinite(); }
};

// Transcendental (elementwise_math.cc).
struct Expm1Fn {
  static constexpr double kCycles = 20;
  using Scalar = math::Expm1;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.expm1(); }
};
struct Log1pFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Log1p;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.log1p(); }
};
struct SinFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Sin;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.sin(); }
};
struct CosFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Cos;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.cos(); }
};
struct TanFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Tan;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.tan(); }
};
struct AsinFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Asin;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.asin(); }
};
struct AcosFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Acos;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.acos(); }
};
struct AtanFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Atan;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.atan(); }
};
struct SinhFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Sinh;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.sinh(); }
};
struct CoshFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Cosh;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.cosh(); }
};
struct AsinhFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Asinh;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.asinh(); }
};
struct AcoshFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Acosh;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.acosh(); }
};
struct AtanhFn {
  static constexpr double kCycles = 20;
  using Scalar = math::Atanh;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const { return a.atanh(); }
};
// log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|).
struct SoftplusFn {
  static constexpr double kCycles = 40;
  using Scalar = math::Softplus;  // Note [Shared element math]
  template <typename A> auto operator()(const A& a) const {
    using T = typename A::Scalar;
    if constexpr (ieee::kIsReal<T>) {
      // e^-|x| may be subnormal (x below -87 in float32): Note [IEEE special values].
      return a.max(T(0)) + (-a.abs()).unaryExpr(ieee::ExpOp<T>()).log1p();
    } else {
      return a.max(T(0)) + (-a.abs()).exp().log1p();
    }
  }
};

// Binary. Either side may be a Constant (a broadcast scalar).
struct AddFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Add;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return Wrapping(a, b, kPlus); }
};
struct SubtractFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Subtract;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return Wrapping(a, b, kMinus); }
};
struct MultiplyFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Multiply;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return Wrapping(a, b, kTimes); }
};
struct DivideFn {
  static constexpr double kCycles = 4;
  using Scalar = math::Divide;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a / b; }
};
// NaN-propagating, like NumPy's maximum/minimum.
struct MaximumFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Maximum;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    return a.template max<Eigen::PropagateNaN>(b);
  }
};
struct MinimumFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Minimum;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    return a.template min<Eigen::PropagateNaN>(b);
  }
};

// select() is not vectorized by Eigen 3.4, but its inlined scalar loop is
// branch-free and the compiler vectorizes it.
struct ReluGradFn {
  static constexpr double kCycles = 1;
  using Scalar = math::ReluGrad;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    using T = typename A::Scalar;
    return (b > T(0)).select(a, T(0));
  }
};
struct SquaredDifferenceFn {
  static constexpr double kCycles = 2;
  using Scalar = math::SquaredDifference;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    return Wrapping(a, b, [](const auto& x, const auto& y) { return (x - y).square(); });
  }
};
// Floats only; integer pow is IntPow (elementwise_intdiv.cc).
struct PowFn {
  static constexpr double kCycles = 40;
  using Scalar = math::Pow;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    return a.binaryExpr(b, Scalar());
  }
};
// atan2(y, x): the angle of the point (x, y).
struct Atan2Fn {
  static constexpr double kCycles = 40;
  using Scalar = math::Atan2;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    return a.binaryExpr(b, Scalar());
  }
};
// x * log(y), and exactly 0 where x is 0 (even where y is 0 or NaN).
struct XlogyFn {
  static constexpr double kCycles = 22;
  using Scalar = math::Xlogy;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    using T = typename A::Scalar;
    return (a == T(0)).select(T(0), a * LogFn()(b));
  }
};

// Logical (bool operands).
struct LogicalAndFn {
  static constexpr double kCycles = 1;
  using Scalar = math::LogicalAnd;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a && b; }
};
struct LogicalOrFn {
  static constexpr double kCycles = 1;
  using Scalar = math::LogicalOr;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a || b; }
};
struct LogicalXorFn {
  static constexpr double kCycles = 1;
  using Scalar = math::LogicalXor;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a != b; }
};

// Bitwise (integer operands).
struct BitwiseAndFn {
  static constexpr double kCycles = 1;
  using Scalar = math::BitwiseAnd;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    return a.binaryExpr(b, Scalar());
  }
};
struct BitwiseOrFn {
  static constexpr double kCycles = 1;
  using Scalar = math::BitwiseOr;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    return a.binaryExpr(b, Scalar());
  }
};
struct BitwiseXorFn {
  static constexpr double kCycles = 1;
  using Scalar = math::BitwiseXor;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    return a.binaryExpr(b, Scalar());
  }
};

// Comparisons (bool results).
struct EqualFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Equal;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a == b; }
};
struct NotEqualFn {
  static constexpr double kCycles = 1;
  using Scalar = math::NotEqual;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a != b; }
};
struct LessFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Less;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a < b; }
};
struct LessEqualFn {
  static constexpr double kCycles = 1;
  using Scalar = math::LessEqual;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a <= b; }
};
struct GreaterFn {
  static constexpr double kCycles = 1;
  using Scalar = math::Greater;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a > b; }
};
struct GreaterEqualFn {
  static constexpr double kCycles = 1;
  using Scalar = math::GreaterEqual;  // Note [Shared element math]
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a >= b; }
};

}  // namespace ember::cpu

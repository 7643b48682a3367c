// This file registers floordiv, floormod and pow: the broadcasting ops whose
// integer forms reject some right operands (a zero divisor, a negative
// exponent) at run time.
#include <cmath>
#include <type_traits>

#include "kernels/common/element_math.h"
#include "kernels/cpu/elementwise_kernels.h"
#include "kernels/cpu/functors.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

// Note [Floor division]
// Python semantics: x // y rounds the quotient toward -inf and x % y has the
// sign of y, with x == (x // y) * y + x % y. For integers, C++'s truncating
// / and % are corrected by one step when the remainder and divisor differ in
// sign; y == -1 is handled apart because INT_MIN / -1 overflows (the result
// wraps, as in NumPy). For floats, the quotient is (x - fmod(x, y)) / y
// rounded to the nearest integer, which is exact where floor(x / y) is not
// (1.0 // 0.1 is 9, not 10), and matches NumPy and Python bit for bit;
// the float forms are math::FloorDiv and math::FloorMod (element_math.h),
// which the GPU runs too.

template <typename T>
T WrappingNegate(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U{0} - static_cast<U>(x));
}

template <typename T>
T FloorDivScalar(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    if (y == -1) return WrappingNegate(x);
    T q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
    return q;
  } else {
    return math::FloorDiv()(x, y);  // shared with the GPU
  }
}

template <typename T>
T FloorModScalar(T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    if (y == -1) return 0;
    T r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
  } else {
    return math::FloorMod()(x, y);  // shared with the GPU
  }
}

// x ** y for y >= 0 by repeated squaring, wrapping on overflow like NumPy.
template <typename T>
T IntPowScalar(T x, T y) {
  // Unsigned and at least as wide as unsigned int, so no product promotes
  // to a signed type.
  using U = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
  U base = static_cast<U>(x);
  U result = 1;
  for (T e = y; e > 0; e >>= 1) {
    if (e & 1) result *= base;
    base *= base;
  }
  return static_cast<T>(result);
}

struct FloorDivFn {
  static constexpr double kCycles = 10;
  template <typename T> static const char* Invalid(T y) {
    if constexpr (std::is_integral_v<T>) return y == 0 ? "Integer division by zero" : nullptr;
    return nullptr;
  }
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    using T = typename A::Scalar;
    return a.binaryExpr(b, [](T x, T y) { return FloorDivScalar(x, y); });
  }
};

struct FloorModFn {
  static constexpr double kCycles = 10;
  template <typename T> static const char* Invalid(T y) { return FloorDivFn::Invalid(y); }
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    using T = typename A::Scalar;
    return a.binaryExpr(b, [](T x, T y) { return FloorModScalar(x, y); });
  }
};

// Integer pow; float pow is PowFn (functors.h).
struct IntPowFn {
  static constexpr double kCycles = 10;
  template <typename T> static const char* Invalid(T y) {
    return y < 0 ? "Integers to negative integer powers are not allowed" : nullptr;
  }
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    using T = typename A::Scalar;
    return a.binaryExpr(b, [](T x, T y) { return IntPowScalar(x, y); });
  }
};

template <typename F>
struct Checked {
  template <typename T>
  using Kernel = CheckedBinaryKernel<T, F>;
};

template <typename T>
using FloatPowKernel = BinaryKernel<T, T, PowFn>;

}  // namespace

EMBER_STARTUP_CODE void RegisterDivisionKernels(KernelRegistry& r) {
  RegisterForTypeSet<Checked<FloorDivFn>::Kernel>(r, "floordiv", type_sets::Real{});
  RegisterForTypeSet<Checked<FloorModFn>::Kernel>(r, "floormod", type_sets::Real{});
  RegisterForTypes<Checked<IntPowFn>::Kernel, int8_t, int16_t, int32_t, int64_t>(r, "pow");
  RegisterForTypeSet<FloatPowKernel>(r, "pow", type_sets::Floating{});
}

}  // namespace ember::cpu

// Holds the CPU's vectorized element-wise math (kernels/cpu/functors.h, run
// through the spans the kernels use) equal to the shared scalar functors
// a device kernel applies (kernels/common/element_math.h), over every
// dtype family and a grid of special values (Note [Shared element math]).
#include <cmath>
#include <iomanip>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/cpu/activation_functors.h"
#include "kernels/cpu/elementwise_kernels.h"
#include "kernels/cpu/functors.h"

namespace ember::cpu {
namespace {

// A plain array: std::vector<bool> has no data().
template <typename T>
class Values {
 public:
  explicit Values(size_t n) : data_(new T[n]()), size_(n) {}
  template <typename U>
  explicit Values(const std::vector<U>& v) : Values(v.size()) {
    for (size_t i = 0; i < size_; ++i) data_[i] = static_cast<T>(v[i]);
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  std::unique_ptr<T[]> data_;
  size_t size_;
};

template <typename T>
std::vector<T> FloatGrid() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0), T(-0.0), T(1), T(-1), T(0.5), T(-0.5), T(1.5), T(2.5), T(-2.5), T(3), T(0.7),
                      T(-0.7), T(0.99), T(1.01), T(100), T(-100), T(88), T(-87.5), T(-104), T(700),
                      T(-750), T(1e10), T(-1e10), L::min(), -L::min(), L::denorm_min(), -L::denorm_min(),
                      L::max(), L::lowest(), L::infinity(), -L::infinity(), L::quiet_NaN()};
  for (int i = -200; i <= 200; ++i) v.push_back(static_cast<T>(i * 0.0625));
  return v;
}

template <typename T>
std::vector<T> IntGrid() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0), T(1), T(2), T(3), T(7), T(100), L::max(), L::min(), static_cast<T>(L::max() - 1),
                      static_cast<T>(L::min() + 1)};
  if constexpr (std::is_signed_v<T>) {
    for (T x : {T(-1), T(-2), T(-3), T(-7), T(-100)}) v.push_back(x);
  }
  for (int i = 0; i < 40; ++i) v.push_back(static_cast<T>(i * 37 - 600));
  return v;
}

template <typename T>
Values<T> Grid() {
  if constexpr (std::is_same_v<T, bool>) {
    return Values<T>(std::vector<int>{0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0});
  } else if constexpr (std::is_integral_v<T>) {
    return Values<T>(IntGrid<T>());
  } else if constexpr (std::is_floating_point_v<T>) {
    return Values<T>(FloatGrid<T>());
  } else {  // float16, bfloat16: the float grid, rounded
    return Values<T>(FloatGrid<float>());
  }
}

// `ulps` 0: bit-equal (NaN equal to NaN). Otherwise equal within `ulps`
// units in the last place of the result type, or both NaN, or both the
// same infinity.
template <typename T>
bool Close(T got, T want, int ulps) {
  if constexpr (std::is_integral_v<T>) {
    return got == want;
  } else {
    using C = ComputeType<T>;
    const C g = static_cast<C>(got), w = static_cast<C>(want);
    if (std::isnan(g) || std::isnan(w)) return std::isnan(g) && std::isnan(w);
    if (g == w) return ulps > 0 || std::signbit(g) == std::signbit(w);
    if (ulps == 0 || std::isinf(g) || std::isinf(w)) return false;
    const C eps = static_cast<C>(std::numeric_limits<T>::epsilon());
    const C scale = std::max(std::fabs(w), static_cast<C>(std::numeric_limits<T>::min()));
    return std::fabs(g - w) <= ulps * eps * scale;
  }
}

template <typename T>
std::string Show(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x ? "true" : "false";
  } else {
    return std::to_string(static_cast<double>(static_cast<ComputeType<T>>(x)));
  }
}

template <typename F, typename T, typename Out = T>
void CheckUnary(const char* name, int ulps = 0) {
  const Values<T> in = Grid<T>();
  Values<Out> cpu(in.size());
  ApplyUnarySpan<T, Out, F>(in.data(), cpu.data(), static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    using C = ComputeType<T>;
    const Out want = static_cast<Out>(typename F::Scalar()(static_cast<C>(in[i])));
    EXPECT_TRUE(Close(cpu[i], want, ulps)) << name << "(" << Show(in[i]) << "): cpu " << Show(cpu[i])
                                           << ", scalar " << Show(want);
  }
}

// Every pair of grid values, with both operands as runs, and each operand
// as a broadcast scalar, as the broadcasting kernels call ApplySpan.
template <typename F, typename T, typename Out = T>
void CheckBinary(const char* name, int ulps = 0) {
  const Values<T> grid = Grid<T>();
  const size_t n = grid.size();
  Values<T> rhs(n);
  Values<Out> cpu(n);
  for (size_t shift = 0; shift < n; ++shift) {
    for (size_t i = 0; i < n; ++i) rhs[i] = grid[(i + shift) % n];
    for (int form = 0; form < 3; ++form) {
      const bool lhs_run = form != 1, rhs_run = form != 2;
      ApplySpan<T, Out, F>(cpu.data(), lhs_run ? grid.data() : &grid[shift], lhs_run, rhs_run ? rhs.data() : &rhs[0],
                           rhs_run, static_cast<int64_t>(n));
      for (size_t i = 0; i < n; ++i) {
        using C = ComputeType<T>;
        const T x = lhs_run ? grid[i] : grid[shift];
        const T y = rhs_run ? rhs[i] : rhs[0];
        const Out want = static_cast<Out>(typename F::Scalar()(static_cast<C>(x), static_cast<C>(y)));
        ASSERT_TRUE(Close(cpu[i], want, ulps)) << name << "(" << Show(x) << ", " << Show(y) << "): cpu "
                                               << Show(cpu[i]) << ", scalar " << Show(want);
      }
    }
  }
}

// Exact in every type: the same operations on the same values.
template <typename T>
void CheckExactArithmetic() {
  CheckUnary<NegativeFn, T>("negative");
  CheckUnary<AbsFn, T>("abs");
  CheckUnary<SignFn, T>("sign");
  CheckUnary<SquareFn, T>("square");
  CheckBinary<AddFn, T>("add");
  CheckBinary<SubtractFn, T>("subtract");
  CheckBinary<MultiplyFn, T>("multiply");
  // 1: a tie of 0 and -0 may give either (element_math.h).
  CheckBinary<MaximumFn, T>("maximum", 1);
  CheckBinary<MinimumFn, T>("minimum", 1);
  CheckBinary<SquaredDifferenceFn, T>("squared_difference");
  CheckBinary<ReluGradFn, T>("relu_grad");
  CheckBinary<EqualFn, T, bool>("equal");
  CheckBinary<NotEqualFn, T, bool>("not_equal");
  CheckBinary<LessFn, T, bool>("less");
  CheckBinary<LessEqualFn, T, bool>("less_equal");
  CheckBinary<GreaterFn, T, bool>("greater");
  CheckBinary<GreaterEqualFn, T, bool>("greater_equal");
}

template <typename T>
void CheckIntegerOnly() {
  CheckBinary<BitwiseAndFn, T>("bitwise_and");
  CheckBinary<BitwiseOrFn, T>("bitwise_or");
  CheckBinary<BitwiseXorFn, T>("bitwise_xor");
  CheckUnary<RoundFn, T>("round");
}

// Float rounding and classification: exact. Transcendental functions: Eigen's
// vector polynomials against the C library, within `ulps`.
template <typename T>
void CheckFloatOnly(int ulps) {
  CheckUnary<ReluFn, T>("relu");
  CheckUnary<FloorFn, T>("floor");
  CheckUnary<CeilFn, T>("ceil");
  CheckUnary<RoundFn, T>("round");
  CheckUnary<IsNanFn, T, bool>("is_nan");
  CheckUnary<IsInfFn, T, bool>("is_inf");
  CheckUnary<IsFiniteFn, T, bool>("is_finite");
  CheckUnary<ReciprocalFn, T>("reciprocal", 1);
  CheckUnary<SqrtFn, T>("sqrt");
  CheckUnary<RsqrtFn, T>("rsqrt", 1);
  CheckUnary<ExpFn, T>("exp", ulps);
  CheckUnary<LogFn, T>("log", ulps);
  CheckUnary<TanhFn, T>("tanh", ulps);
  CheckUnary<SigmoidFn, T>("sigmoid", ulps);
  CheckUnary<Expm1Fn, T>("expm1", ulps);
  CheckUnary<Log1pFn, T>("log1p", ulps);
  CheckUnary<SinFn, T>("sin", ulps);
  CheckUnary<CosFn, T>("cos", ulps);
  CheckUnary<TanFn, T>("tan", ulps);
  CheckUnary<AsinFn, T>("asin", ulps);
  CheckUnary<AcosFn, T>("acos", ulps);
  CheckUnary<AtanFn, T>("atan", ulps);
  CheckUnary<SinhFn, T>("sinh", ulps);
  CheckUnary<CoshFn, T>("cosh", ulps);
  CheckUnary<AsinhFn, T>("asinh", ulps);
  CheckUnary<AcoshFn, T>("acosh", ulps);
  CheckUnary<AtanhFn, T>("atanh", ulps);
  CheckUnary<SoftplusFn, T>("softplus", ulps);
  CheckBinary<DivideFn, T>("divide", 1);
  CheckBinary<PowFn, T>("pow");
  CheckBinary<Atan2Fn, T>("atan2");
  CheckBinary<XlogyFn, T>("xlogy", ulps);
}

TEST(ElementMath, SignedIntegers) {
  CheckExactArithmetic<int8_t>();
  CheckExactArithmetic<int16_t>();
  CheckExactArithmetic<int32_t>();
  CheckExactArithmetic<int64_t>();
  CheckIntegerOnly<int8_t>();
  CheckIntegerOnly<int32_t>();
  CheckIntegerOnly<int64_t>();
}

TEST(ElementMath, UnsignedIntegers) {
  CheckExactArithmetic<uint8_t>();
  CheckExactArithmetic<uint16_t>();
  CheckExactArithmetic<uint32_t>();
  CheckExactArithmetic<uint64_t>();
  CheckIntegerOnly<uint8_t>();
  CheckIntegerOnly<uint64_t>();
}

TEST(ElementMath, Float32) {
  CheckExactArithmetic<float>();
  CheckFloatOnly<float>(4);
}

TEST(ElementMath, Float64) {
  CheckExactArithmetic<double>();
  CheckFloatOnly<double>(4);
}

// Computed in float32 (Note [Half compute]) and rounded once: the rounded
// results agree exactly or within one unit of the narrow type.
TEST(ElementMath, HalfTypes) {
  CheckExactArithmetic<Eigen::half>();
  CheckFloatOnly<Eigen::half>(1);
  CheckExactArithmetic<Eigen::bfloat16>();
  CheckFloatOnly<Eigen::bfloat16>(1);
}

TEST(ElementMath, Bool) {
  CheckUnary<LogicalNotFn, bool>("logical_not");
  CheckBinary<LogicalAndFn, bool>("logical_and");
  CheckBinary<LogicalOrFn, bool>("logical_or");
  CheckBinary<LogicalXorFn, bool>("logical_xor");
  CheckBinary<EqualFn, bool, bool>("equal");
  CheckBinary<NotEqualFn, bool, bool>("not_equal");
}

// The activations with a parameter (alpha, beta, approximate): the CPU's
// vector functor built with it against the scalar functor carrying it,
// within `ulps` of max(|result|, floor * |x|). The floor is for gelu's
// 1 + erf and 1 + tanh, which cancel for negative x in both forms (an
// absolute error of a few ulps of |x|).
template <typename T, typename CpuFn, typename ScalarFn>
void CheckActivation(const char* name, const CpuFn& cpu_fn, const ScalarFn& scalar, int ulps, double floor = 0) {
  const Values<T> in = Grid<T>();
  Values<T> cpu(in.size());
  cpu_fn(in.data(), cpu.data(), static_cast<int64_t>(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    const T want = scalar(in[i]);
    bool ok = Close(cpu[i], want, ulps);
    if (!ok && std::isfinite(in[i]) && std::isfinite(want) && std::isfinite(cpu[i])) {
      const double eps = std::numeric_limits<T>::epsilon();
      const double scale = std::max(std::fabs(static_cast<double>(want)), floor * std::fabs(static_cast<double>(in[i])));
      ok = std::fabs(static_cast<double>(cpu[i]) - static_cast<double>(want)) <= ulps * eps * scale;
    }
    EXPECT_TRUE(ok) << name << "(" << Show(in[i]) << "): cpu " << std::setprecision(10)
                    << static_cast<double>(cpu[i]) << ", scalar " << static_cast<double>(want);
  }
}

template <typename T>
void CheckActivations() {
  CheckActivation<T>("relu6", Relu6Fn(), math::Relu6(), 0);
  CheckActivation<T>("leaky_relu 0.2", LeakyReluFn(0.2), math::LeakyRelu{0.2}, 0);
  CheckActivation<T>("leaky_relu 1.5", LeakyReluFn(1.5), math::LeakyRelu{1.5}, 0);
  CheckActivation<T>("elu", EluFn(), math::Elu(), 4);
  CheckActivation<T>("selu", SeluFn(), math::Selu(), 4);
  CheckActivation<T>("gelu", GeluFn(false), math::Gelu{false}, 8, 1.0);
  CheckActivation<T>("gelu approximate", GeluFn(true), math::Gelu{true}, 8, 1.0);
  CheckActivation<T>("silu", SiluFn(1.0), math::Silu{1.0}, 8);
  CheckActivation<T>("silu 0.5", SiluFn(0.5), math::Silu{0.5}, 8);
}

TEST(ElementMathTest, ActivationsMatchTheCpuForms) {
  CheckActivations<float>();
  CheckActivations<double>();
}

}  // namespace
}  // namespace ember::cpu

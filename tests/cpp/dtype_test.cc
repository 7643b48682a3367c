// Tests the dtype tables (core/dtype.h): promotion lattice, parsing, the
// 16-bit float rounding, and the per-element cast rules (kernels/cpu).
#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "core/dtype.h"
#include "kernels/cpu/cast_convert.h"

namespace ember {
namespace {

DType D(int i) { return static_cast<DType>(i); }

TEST(DTypeTest, NamesSizesAndParse) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType parsed;
    ASSERT_TRUE(ParseDType(DTypeName(D(i)), &parsed).ok());
    EXPECT_EQ(parsed, D(i));
  }
  EXPECT_EQ(DTypeSize(DType::kBFloat16), 2u);
  EXPECT_EQ(DTypeSize(DType::kComplex64), 8u);
  EXPECT_EQ(DTypeSize(DType::kUInt8), 1u);
  DType half;
  ASSERT_TRUE(ParseDType("half", &half).ok());
  EXPECT_EQ(half, DType::kFloat16);
  EXPECT_FALSE(ParseDType("complex128", &half).ok());
  EXPECT_EQ(KindOf(DType::kUInt8), DTypeKind::kUInt);
  EXPECT_EQ(DefaultDTypeForKind(DTypeKind::kComplex), DType::kComplex64);
}

TEST(DTypeTest, PromotionIsALattice) {
  for (int a = 0; a < kNumDTypes; ++a) {
    EXPECT_EQ(PromoteTypes(D(a), D(a)), D(a));
    EXPECT_EQ(PromoteTypes(D(a), DType::kBool), D(a));
    EXPECT_EQ(PromoteTypes(D(a), DType::kComplex64), DType::kComplex64);
    for (int b = 0; b < kNumDTypes; ++b) {
      const DType ab = PromoteTypes(D(a), D(b));
      EXPECT_EQ(ab, PromoteTypes(D(b), D(a)));
      // The join is an upper bound of both.
      EXPECT_EQ(PromoteTypes(ab, D(a)), ab);
      for (int c = 0; c < kNumDTypes; ++c) {
        EXPECT_EQ(PromoteTypes(ab, D(c)), PromoteTypes(D(a), PromoteTypes(D(b), D(c))));
      }
    }
  }
  EXPECT_EQ(PromoteTypes(DType::kUInt8, DType::kInt8), DType::kInt16);
  EXPECT_EQ(PromoteTypes(DType::kFloat16, DType::kBFloat16), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kInt64, DType::kBFloat16), DType::kBFloat16);
  EXPECT_EQ(PromoteTypes(DType::kInt32, DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(PromoteTypes(DType::kInt32, DType::kInt64), DType::kInt64);
  EXPECT_EQ(PromoteTypes(DType::kFloat64, DType::kComplex64), DType::kComplex64);
}

uint16_t Bits(Eigen::half h) { return Eigen::numext::bit_cast<uint16_t>(h); }
uint16_t Bits(Eigen::bfloat16 h) { return Eigen::numext::bit_cast<uint16_t>(h); }

TEST(DTypeTest, HalfRoundingMatchesEigenFromFloat) {
  // Every float that is exactly a double: both paths round once.
  const float samples[] = {0.0f, -0.0f, 1.0f, 0.1f, -2.75f, 65504.0f, 65519.0f, 65520.0f, 1e-8f, 3e-8f,
                           6.0e-8f, 5.96e-8f, 6.1e-5f, 1e5f, 3.4e38f, 1e-40f, 1.00048828125f,
                           std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  for (float f : samples) {
    EXPECT_EQ(DoubleToHalfBits(f), Bits(Eigen::half(f))) << f;
    EXPECT_EQ(DoubleToBFloat16Bits(f), Bits(Eigen::bfloat16(f))) << f;
  }
  EXPECT_TRUE(Eigen::numext::isnan(Eigen::numext::bit_cast<Eigen::half>(DoubleToHalfBits(NAN))));
  EXPECT_TRUE(Eigen::numext::isnan(Eigen::numext::bit_cast<Eigen::bfloat16>(DoubleToBFloat16Bits(NAN))));
  // Ties go to even: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(DoubleToHalfBits(1.0 + std::ldexp(1.0, -11)), 0x3c00);
  EXPECT_EQ(DoubleToHalfBits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
}

TEST(DTypeTest, CastValueRules) {
  using cpu::CastValue;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ((CastValue<double, int32_t>(nan)), 0);
  EXPECT_EQ((CastValue<double, int32_t>(1e10)), std::numeric_limits<int32_t>::max());
  EXPECT_EQ((CastValue<double, int64_t>(-1e300)), std::numeric_limits<int64_t>::min());
  EXPECT_EQ((CastValue<double, int64_t>(9.3e18)), std::numeric_limits<int64_t>::max());
  EXPECT_EQ((CastValue<float, uint8_t>(-0.9f)), 0);
  EXPECT_EQ((CastValue<float, uint8_t>(-1.0f)), 0);
  EXPECT_EQ((CastValue<float, uint8_t>(255.9f)), 255);
  EXPECT_EQ((CastValue<float, int8_t>(-128.7f)), -128);
  EXPECT_EQ((CastValue<Eigen::half, int16_t>(Eigen::half(-3.5f))), -3);
  EXPECT_EQ((CastValue<int32_t, uint8_t>(300)), 44);
  EXPECT_EQ((CastValue<int16_t, int8_t>(-129)), 127);
  EXPECT_EQ((CastValue<std::complex<float>, float>({1.5f, -2.0f})), 1.5f);
  EXPECT_EQ((CastValue<std::complex<float>, int32_t>({-7.9f, 2.0f})), -7);
  EXPECT_TRUE((CastValue<std::complex<float>, bool>({0.0f, 1.0f})));
  EXPECT_FALSE((CastValue<std::complex<float>, bool>({0.0f, 0.0f})));
  EXPECT_EQ((CastValue<bool, std::complex<float>>(true)), std::complex<float>(1.0f, 0.0f));
  EXPECT_EQ((CastValue<uint8_t, std::complex<float>>(200)), std::complex<float>(200.0f, 0.0f));
  EXPECT_EQ(static_cast<float>(CastValue<bool, Eigen::bfloat16>(true)), 1.0f);
  EXPECT_EQ(static_cast<float>(CastValue<Eigen::half, Eigen::bfloat16>(Eigen::half(0.5f))), 0.5f);
  EXPECT_TRUE((CastValue<Eigen::bfloat16, bool>(Eigen::bfloat16(-0.25f))));
  EXPECT_FALSE((CastValue<Eigen::half, bool>(Eigen::half(-0.0f))));
  EXPECT_EQ((CastValue<double, Eigen::half>(1e5)), Eigen::half(std::numeric_limits<float>::infinity()));
}

}  // namespace
}  // namespace ember

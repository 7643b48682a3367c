// This file implements the DType tables, the promotion lattice and the
// 16-bit float rounding used by Python scalar conversion.
#include "core/dtype.h"

#include <array>
#include <cmath>

namespace ember {
namespace {

struct DTypeInfo {
  const char* name;
  size_t size;
  DTypeKind kind;
};

// Indexed by the DType value.
constexpr DTypeInfo kInfo[kNumDTypes] = {
    {"bool", 1, DTypeKind::kBool},       {"int32", 4, DTypeKind::kInt},
    {"int64", 8, DTypeKind::kInt},       {"float32", 4, DTypeKind::kFloat},
    {"float64", 8, DTypeKind::kFloat},   {"float16", 2, DTypeKind::kFloat},
    {"bfloat16", 2, DTypeKind::kFloat},  {"int8", 1, DTypeKind::kInt},
    {"int16", 2, DTypeKind::kInt},       {"uint8", 1, DTypeKind::kUInt},
    {"complex64", 8, DTypeKind::kComplex},
};

const DTypeInfo& Info(DType d) { return kInfo[static_cast<int>(d)]; }

constexpr uint32_t Bit(DType d) { return 1u << static_cast<int>(d); }

// Note [Type promotion]: strongly typed operands promote to their join
// (least upper bound) on this lattice, drawn as its covering edges
// ("a -> b": a < b with nothing in between):
//
//   bool -> uint8, int8      uint8 -> int16      int8 -> int16
//   int16 -> int32 -> int64  int64 -> float16, bfloat16
//   float16 -> float32       bfloat16 -> float32
//   float32 -> float64 -> complex64
//
// - Signed and unsigned: uint8 and int8 are incomparable, and the smallest
//   type holding both ranges is int16 (as in JAX and NumPy).
// - Integers and floats: every integer lies below every float, so an
//   integer with a float gives that float (int32 + float16 is float16; as
//   in JAX and PyTorch, not NumPy's float64). Keeping models in the float
//   they chose matters more than exactness for huge integers.
// - float16 and bfloat16 are incomparable (neither holds the other's range
//   and precision); their join is float32, which holds both exactly.
// - complex64 is the top: Ember has no complex128, so float64 with
//   complex64 gives complex64 (the float64 part is rounded to float32).
//   This is the one join that loses precision; cast explicitly to avoid it.
constexpr std::pair<DType, DType> kCovers[] = {
    {DType::kBool, DType::kUInt8},       {DType::kBool, DType::kInt8},
    {DType::kUInt8, DType::kInt16},      {DType::kInt8, DType::kInt16},
    {DType::kInt16, DType::kInt32},      {DType::kInt32, DType::kInt64},
    {DType::kInt64, DType::kFloat16},    {DType::kInt64, DType::kBFloat16},
    {DType::kFloat16, DType::kFloat32},  {DType::kBFloat16, DType::kFloat32},
    {DType::kFloat32, DType::kFloat64},  {DType::kFloat64, DType::kComplex64},
};

// upper[d]: the bit set of every dtype >= d (the reflexive-transitive
// closure of kCovers).
constexpr std::array<uint32_t, kNumDTypes> UpperSets() {
  std::array<uint32_t, kNumDTypes> upper{};
  for (int d = 0; d < kNumDTypes; ++d) upper[d] = 1u << d;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [lo, hi] : kCovers) {
      const uint32_t merged = upper[static_cast<int>(lo)] | upper[static_cast<int>(hi)];
      if (merged != upper[static_cast<int>(lo)]) {
        upper[static_cast<int>(lo)] = merged;
        changed = true;
      }
    }
  }
  return upper;
}

constexpr std::array<uint32_t, kNumDTypes> kUpper = UpperSets();

// The least element of a set of upper bounds: the one whose own upper set
// contains all the others.
constexpr DType Join(DType a, DType b) {
  const uint32_t common = kUpper[static_cast<int>(a)] & kUpper[static_cast<int>(b)];
  for (int d = 0; d < kNumDTypes; ++d) {
    if ((common & (1u << d)) && (kUpper[d] & common) == common) return static_cast<DType>(d);
  }
  return DType::kComplex64;  // unreachable: complex64 bounds everything
}

static_assert(Join(DType::kUInt8, DType::kInt8) == DType::kInt16);
static_assert(Join(DType::kFloat16, DType::kBFloat16) == DType::kFloat32);
static_assert(Join(DType::kInt64, DType::kFloat16) == DType::kFloat16);
static_assert(Join(DType::kInt32, DType::kFloat32) == DType::kFloat32);
static_assert(Join(DType::kBool, DType::kUInt8) == DType::kUInt8);
static_assert(Join(DType::kFloat64, DType::kComplex64) == DType::kComplex64);
static_assert((kUpper[static_cast<int>(DType::kBool)] & Bit(DType::kComplex64)) != 0);

// Rounds |value| (finite, not NaN) to a binary float with `mant_bits`
// stored mantissa bits and `exp_bits` exponent bits, ties to even, and
// returns the bit pattern with `sign`. Used for float16 (10, 5) and
// bfloat16 (7, 8).
uint16_t RoundToSmallFloat(double value, int mant_bits, int exp_bits) {
  const uint16_t sign = std::signbit(value) ? uint16_t(1u << 15) : uint16_t(0);
  const uint16_t inf = static_cast<uint16_t>(((1u << exp_bits) - 1) << mant_bits);
  if (std::isnan(value)) return sign | inf | static_cast<uint16_t>(1u << (mant_bits - 1));
  const double a = std::fabs(value);
  const int bias = (1 << (exp_bits - 1)) - 1;
  // Half-way between the largest finite value and the next power of two.
  const double overflow = std::ldexp(2.0 - std::ldexp(1.0, -mant_bits - 1), bias);
  if (a >= overflow) return sign | inf;
  const int emin = 1 - bias;
  if (a < std::ldexp(1.0, emin)) {
    // Subnormal: an integer count of the smallest step. A count of
    // 2^mant_bits is exactly the smallest normal's bit pattern.
    const double k = std::nearbyint(std::ldexp(a, mant_bits - emin));
    return sign | static_cast<uint16_t>(k);
  }
  const int e = std::ilogb(a);
  // q in [2^mant_bits, 2^(mant_bits+1)]; the upper end carries into the
  // exponent through the addition below.
  const double q = std::nearbyint(std::ldexp(a, mant_bits - e));
  const uint32_t bits = (static_cast<uint32_t>(e + bias) << mant_bits) + static_cast<uint32_t>(q) -
                        (1u << mant_bits);
  return sign | static_cast<uint16_t>(bits);
}

}  // namespace

size_t DTypeSize(DType d) { return Info(d).size; }
const char* DTypeName(DType d) { return Info(d).name; }
DTypeKind KindOf(DType d) { return Info(d).kind; }

Status ParseDType(const std::string& name, DType* out) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (name == kInfo[i].name) {
      *out = static_cast<DType>(i);
      return Status::OK();
    }
  }
  if (name == "half") { *out = DType::kFloat16; return Status::OK(); }
  if (name == "float") { *out = DType::kFloat32; return Status::OK(); }
  if (name == "double") { *out = DType::kFloat64; return Status::OK(); }
  return TypeError("unknown dtype '" + name + "'");
}

DType DefaultDTypeForKind(DTypeKind kind) {
  switch (kind) {
    case DTypeKind::kBool: return DType::kBool;
    case DTypeKind::kInt: return DType::kInt32;
    case DTypeKind::kUInt: return DType::kUInt8;
    case DTypeKind::kComplex: return DType::kComplex64;
    case DTypeKind::kFloat: break;
  }
  return DType::kFloat32;
}

DType PromoteTypes(DType a, DType b) { return Join(a, b); }

uint16_t DoubleToHalfBits(double value) { return RoundToSmallFloat(value, 10, 5); }
uint16_t DoubleToBFloat16Bits(double value) { return RoundToSmallFloat(value, 7, 8); }

std::string DTypeSet::ToString() const {
  std::string s = "{";
  bool first = true;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (!Contains(static_cast<DType>(i))) continue;
    if (!first) s += ", ";
    s += kInfo[i].name;
    first = false;
  }
  return s + "}";
}

}  // namespace ember

// This file declares DType, the element types Ember tensors can hold.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/status.h"

// The 16-bit float element types are Eigen's (Eigen/Core defines them). They
// are only declared here so that this header does not pull Eigen in; kernels
// that compute with them include kernels/cpu/eigen.h.
namespace Eigen {
struct half;
struct bfloat16;
}  // namespace Eigen

namespace ember {

// The numeric value is stable: it is used in kernel keys, bit sets and the
// Python DType codes (python/ember/dtypes.py). New dtypes are appended.
enum class DType : uint8_t {
  kBool = 0,
  kInt32 = 1,
  kInt64 = 2,
  kFloat32 = 3,
  kFloat64 = 4,
  kFloat16 = 5,
  kBFloat16 = 6,
  kInt8 = 7,
  kInt16 = 8,
  kUInt8 = 9,
  kComplex64 = 10,
};
inline constexpr int kNumDTypes = 11;

// The broad family of a dtype. The order matters: weak (Python scalar)
// typing raises a strong dtype only when its kind is below the weak kind
// (Note [Weak types] in runtime/type_binding.cc), and Python values are
// bool, int, float or complex, never unsigned, so kUInt sits between kInt
// and kFloat: uint8 + 1 stays uint8, uint8 + 1.5 becomes float.
enum class DTypeKind : uint8_t { kBool = 0, kInt = 1, kUInt = 2, kFloat = 3, kComplex = 4 };

size_t DTypeSize(DType dtype);
const char* DTypeName(DType dtype);  // "float32"
DTypeKind KindOf(DType dtype);
// Accepts the canonical names and the aliases "half", "float", "double".
Status ParseDType(const std::string& name, DType* out);

// The dtype a Python value of `kind` gets when nothing else decides it
// (bool, int32, float32, complex64 — TensorFlow's defaults; uint8 for kUInt).
DType DefaultDTypeForKind(DTypeKind kind);

// The dtype two strongly typed operands promote to: their join on the
// lattice of Note [Type promotion] in core/dtype.cc (see docs/dtypes.md).
DType PromoteTypes(DType a, DType b);

// Rounds a double to the nearest float16 / bfloat16 (ties to even) and
// returns its bit pattern, for code that must not include Eigen (the
// Python scalar conversion).
uint16_t DoubleToHalfBits(double value);
uint16_t DoubleToBFloat16Bits(double value);

// A set of dtypes as a bit mask, for type-variable constraints.
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr explicit DTypeSet(uint32_t bits) : bits_(bits) {}
  static constexpr DTypeSet Of(DType d) { return DTypeSet(1u << static_cast<int>(d)); }
  constexpr bool Contains(DType d) const { return bits_ & (1u << static_cast<int>(d)); }
  constexpr DTypeSet Add(DType d) const { return DTypeSet(bits_ | (1u << static_cast<int>(d))); }
  constexpr uint32_t bits() const { return bits_; }
  std::string ToString() const;  // "{float32, float64}"

 private:
  uint32_t bits_ = 0;
};

// Maps a C++ element type to its DType at compile time.
template <typename T>
struct DTypeOf;
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::kFloat32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kFloat64; };
template <> struct DTypeOf<Eigen::half> { static constexpr DType value = DType::kFloat16; };
template <> struct DTypeOf<Eigen::bfloat16> { static constexpr DType value = DType::kBFloat16; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kInt8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::kInt16; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kUInt8; };
template <> struct DTypeOf<std::complex<float>> { static constexpr DType value = DType::kComplex64; };

// Calls fn.template operator()<T>() with the C++ type for `dtype`. Every
// branch is instantiated, so a caller whose body computes with T must
// include Eigen (for Eigen::half / Eigen::bfloat16).
template <typename Fn>
decltype(auto) DispatchDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kBool: return fn.template operator()<bool>();
    case DType::kInt32: return fn.template operator()<int32_t>();
    case DType::kInt64: return fn.template operator()<int64_t>();
    case DType::kFloat32: return fn.template operator()<float>();
    case DType::kFloat16: return fn.template operator()<Eigen::half>();
    case DType::kBFloat16: return fn.template operator()<Eigen::bfloat16>();
    case DType::kInt8: return fn.template operator()<int8_t>();
    case DType::kInt16: return fn.template operator()<int16_t>();
    case DType::kUInt8: return fn.template operator()<uint8_t>();
    case DType::kComplex64: return fn.template operator()<std::complex<float>>();
    case DType::kFloat64: break;
  }
  return fn.template operator()<double>();
}

}  // namespace ember

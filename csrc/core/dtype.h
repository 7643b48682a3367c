// This file declares DType, the element types Ember tensors can hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/status.h"

namespace ember {

// The numeric value is stable: it is used in kernel keys and bit sets.
enum class DType : uint8_t {
  kBool = 0,
  kInt32 = 1,
  kInt64 = 2,
  kFloat32 = 3,
  kFloat64 = 4,
};
inline constexpr int kNumDTypes = 5;

// The broad family of a dtype, used by weak (Python scalar) typing.
enum class DTypeKind : uint8_t { kBool = 0, kInt = 1, kFloat = 2 };

size_t DTypeSize(DType dtype);
const char* DTypeName(DType dtype);  // "float32"
DTypeKind KindOf(DType dtype);
Status ParseDType(const std::string& name, DType* out);

// The dtype a Python value of `kind` gets when nothing else decides it
// (bool, int32, float32 — TensorFlow's defaults).
DType DefaultDTypeForKind(DTypeKind kind);

// The dtype two strongly typed operands promote to (see docs/dtypes.md).
DType PromoteTypes(DType a, DType b);

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

// Calls fn.template operator()<T>() with the C++ type for `dtype`.
template <typename Fn>
decltype(auto) DispatchDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kBool: return fn.template operator()<bool>();
    case DType::kInt32: return fn.template operator()<int32_t>();
    case DType::kInt64: return fn.template operator()<int64_t>();
    case DType::kFloat32: return fn.template operator()<float>();
    case DType::kFloat64: break;
  }
  return fn.template operator()<double>();
}

}  // namespace ember

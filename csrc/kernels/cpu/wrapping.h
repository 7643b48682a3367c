// This file defines WrappingAdd and WrappingMul, integer arithmetic that
// wraps (two's complement) without undefined behavior.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/common/element_math.h"

namespace ember::cpu {

// Note [Wrapping integer arithmetic]
// TensorFlow and NumPy integer ops wrap on overflow, but signed overflow is
// undefined in C++ (the optimizer may assume it never happens). So integer
// kernels that can overflow compute in the unsigned type of the same width,
// where wrapping is defined, and convert back (modular since C++20). Types
// narrower than int are widened to unsigned int first: uint8 * uint8
// promotes to *signed* int, and 0xFFFF * 0xFFFF overflows it.
// The flag and the unsigned type are the shared element math's (Note
// [Shared element math]), so CPU and device kernels wrap alike.
template <typename T>
inline constexpr bool kIsWrappingInt = math::kWraps<T>;
template <typename T>
using WrapType = math::Unsigned<T>;

template <typename T>
T WrappingAdd(T a, T b) {
  using U = WrapType<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}

template <typename T>
T WrappingMul(T a, T b) {
  using U = WrapType<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

}  // namespace ember::cpu

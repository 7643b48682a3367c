// This file defines WrappingAdd and WrappingMul, integer arithmetic that
// wraps (two's complement) without undefined behavior.
#pragma once

#include <cstdint>
#include <type_traits>

namespace ember::cpu {

// Note [Wrapping integer arithmetic]
// TensorFlow and NumPy integer ops wrap on overflow, but signed overflow is
// undefined in C++ (the optimizer may assume it never happens). So integer
// kernels that can overflow compute in the unsigned type of the same width,
// where wrapping is defined, and convert back (modular since C++20). Types
// narrower than int are widened to unsigned int first: uint8 * uint8
// promotes to *signed* int, and 0xFFFF * 0xFFFF overflows it.
template <typename T>
inline constexpr bool kIsWrappingInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The unsigned type an integer T computes in; T itself for other types.
template <typename T, bool = kIsWrappingInt<T>>
struct WrapTypeOf {
  using type = T;
};
template <typename T>
struct WrapTypeOf<T, true> {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <typename T>
using WrapType = typename WrapTypeOf<T>::type;

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

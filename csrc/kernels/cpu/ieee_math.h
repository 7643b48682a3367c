// This file defines element-wise Eigen functors for sqrt, rsqrt, exp and
// log on float32 and float64 whose special values and subnormals follow
// IEEE 754 (and NumPy and the C library) where Eigen 3.4's vector paths do
// not.
#pragma once

#include <cmath>
#include <immintrin.h>
#include <limits>
#include <type_traits>

#include "kernels/cpu/eigen.h"

namespace ember::cpu {

// Note [IEEE special values]: Eigen 3.4, with its default EIGEN_FAST_MATH,
// gives sqrt(+inf) = NaN, sqrt(-0) = +0 and 0 for subnormal inputs (its
// vector sqrt is a reciprocal-square-root estimate and a Newton step, not
// correctly rounded either); rsqrt of a subnormal is wrong or NaN; float64
// exp of anything below -709.8, -inf included, is 5.6e-309 rather than 0;
// float32 exp flushes subnormal results to 0; log clamps subnormal inputs
// to the smallest normal number. Turning EIGEN_FAST_MATH off would also
// take away the vector tanh, sin, cos and erf. Instead these functors use
// the hardware's correctly rounded square root, and, for exp and log,
// Eigen's vector path with the rare lanes outside its range (a subnormal
// input or result) recomputed by the C library: one compare and a branch
// per packet on the common path.
namespace ieee {

template <typename T>
constexpr bool kIsReal = std::is_same_v<T, float> || std::is_same_v<T, double>;

// The correctly rounded square root of each lane.
#if defined(__SSE2__)
inline __m128 SqrtPacket(const __m128& x) { return _mm_sqrt_ps(x); }
inline __m128d SqrtPacket(const __m128d& x) { return _mm_sqrt_pd(x); }
#endif
#if defined(__AVX__)
inline __m256 SqrtPacket(const __m256& x) { return _mm256_sqrt_ps(x); }
inline __m256d SqrtPacket(const __m256d& x) { return _mm256_sqrt_pd(x); }
#endif
#if defined(__AVX512F__)
inline __m512 SqrtPacket(const __m512& x) { return _mm512_sqrt_ps(x); }
inline __m512d SqrtPacket(const __m512d& x) { return _mm512_sqrt_pd(x); }
#endif

// Replaces the lanes of `result` that `mask` selects (all bits set) with
// scalar_fn of the same lane of `x`. Returns `result` untouched, after one
// test, when no lane is selected.
template <typename Packet, typename ScalarFn>
inline Packet FixLanes(const Packet& result, const Packet& x, const Packet& mask, ScalarFn scalar_fn) {
  namespace ei = Eigen::internal;
  if (!ei::predux_any(mask)) return result;
  using T = typename ei::unpacket_traits<Packet>::type;
  constexpr int kLanes = ei::unpacket_traits<Packet>::size;
  T xs[kLanes], rs[kLanes], ms[kLanes];
  ei::pstoreu(xs, x);
  ei::pstoreu(rs, result);
  ei::pstoreu(ms, mask);
  for (int i = 0; i < kLanes; ++i) {
    if (!(ms[i] == T(0))) rs[i] = scalar_fn(xs[i]);  // a selected lane's bits are a NaN
  }
  return ei::ploadu<Packet>(rs);
}

template <typename T>
struct SqrtOp {
  T operator()(const T& x) const { return std::sqrt(x); }
  template <typename Packet> Packet packetOp(const Packet& x) const { return SqrtPacket(x); }
};

template <typename T>
struct RsqrtOp {
  T operator()(const T& x) const { return T(1) / std::sqrt(x); }
  template <typename Packet> Packet packetOp(const Packet& x) const {
    return Eigen::internal::pdiv(Eigen::internal::pset1<Packet>(T(1)), SqrtPacket(x));
  }
};

template <typename T>
struct ExpOp {
  // Below this, exp(x) is subnormal or zero, which Eigen gets wrong.
  static constexpr T kNormalFloor = std::is_same_v<T, float> ? T(-87.33) : T(-708.39);
  T operator()(const T& x) const { return std::exp(x); }
  template <typename Packet> Packet packetOp(const Packet& x) const {
    namespace ei = Eigen::internal;
    const Packet below = ei::pcmp_lt(x, ei::pset1<Packet>(kNormalFloor));
    return FixLanes(ei::pexp(x), x, below, [](T v) { return std::exp(v); });
  }
};

template <typename T>
struct LogOp {
  T operator()(const T& x) const { return std::log(x); }
  template <typename Packet> Packet packetOp(const Packet& x) const {
    namespace ei = Eigen::internal;
    // Positive subnormals: Eigen would take the log of the smallest normal.
    const Packet subnormal = ei::pand(ei::pcmp_lt(x, ei::pset1<Packet>(std::numeric_limits<T>::min())),
                                      ei::pcmp_lt(ei::pzero(x), x));
    return FixLanes(ei::plog(x), x, subnormal, [](T v) { return std::log(v); });
  }
};

}  // namespace ieee
}  // namespace ember::cpu

namespace Eigen::internal {

template <typename T>
struct functor_traits<ember::cpu::ieee::SqrtOp<T>> {
  enum { Cost = 5 * NumTraits<T>::MulCost, PacketAccess = packet_traits<T>::HasSqrt };
};
template <typename T>
struct functor_traits<ember::cpu::ieee::RsqrtOp<T>> {
  enum { Cost = 6 * NumTraits<T>::MulCost, PacketAccess = packet_traits<T>::HasSqrt && packet_traits<T>::HasDiv };
};
template <typename T>
struct functor_traits<ember::cpu::ieee::ExpOp<T>> {
  enum { Cost = functor_traits<scalar_exp_op<T>>::Cost + 2, PacketAccess = packet_traits<T>::HasExp };
};
template <typename T>
struct functor_traits<ember::cpu::ieee::LogOp<T>> {
  enum { Cost = functor_traits<scalar_log_op<T>>::Cost + 2, PacketAccess = packet_traits<T>::HasLog };
};

}  // namespace Eigen::internal

// This file defines Philox4x32-10, the counter-based generator behind the
// stateless random kernels, and the conversions from its 32-bit words to
// uniform floats: host and device code alike, so the CPU and GPU kernels
// draw identical bits (Note [Random streams]).
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/common/element_math.h"  // EMBER_HOST_DEVICE

namespace ember::philox {

// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel Random Numbers: As
// Easy as 1, 2, 3", SC 2011): four 32-bit outputs that are a bijective
// function of a 128-bit counter, parameterized by a 64-bit key. There is no
// state to advance, so any element of a stream is computed directly from its
// index, in any order, on any thread.
// Plain arrays rather than std::array, whose members device code cannot call.
struct Counter {
  uint32_t v[4];
  EMBER_HOST_DEVICE uint32_t& operator[](int i) { return v[i]; }
  EMBER_HOST_DEVICE uint32_t operator[](int i) const { return v[i]; }
  friend bool operator==(const Counter& a, const Counter& b) {
    return a.v[0] == b.v[0] && a.v[1] == b.v[1] && a.v[2] == b.v[2] && a.v[3] == b.v[3];
  }
};
struct Key {
  uint32_t v[2];
  EMBER_HOST_DEVICE uint32_t& operator[](int i) { return v[i]; }
  EMBER_HOST_DEVICE uint32_t operator[](int i) const { return v[i]; }
};

inline constexpr uint32_t kMultiplier0 = 0xD2511F53;
inline constexpr uint32_t kMultiplier1 = 0xCD9E8D57;
inline constexpr uint32_t kKeyBump0 = 0x9E3779B9;  // golden ratio
inline constexpr uint32_t kKeyBump1 = 0xBB67AE85;  // sqrt(3) - 1
inline constexpr int kRounds = 10;

EMBER_HOST_DEVICE inline Counter Round(const Counter& c, const Key& k) {
  const uint64_t p0 = uint64_t{kMultiplier0} * c[0];
  const uint64_t p1 = uint64_t{kMultiplier1} * c[2];
  return {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
          static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
}

EMBER_HOST_DEVICE inline Counter Philox4x32(Counter counter, Key key) {
  for (int r = 0; r < kRounds; ++r) {
    if (r > 0) {
      key[0] += kKeyBump0;
      key[1] += kKeyBump1;
    }
    counter = Round(counter, key);
  }
  return counter;
}

// Note [Random streams]: a seed pair (s0, s1) selects a stream. s0 is the
// key; s1 fills the counter's upper 64 bits and the block index its lower
// 64 bits, so block b of a stream is Philox4x32(
// {lo(b), hi(b), lo(s1), hi(s1)}, {lo(s0), hi(s0)}). A kernel maps each
// output element to fixed words of fixed blocks, which makes the value a
// pure function of (seed, element index).
class Stream {
 public:
  EMBER_HOST_DEVICE Stream(int64_t s0, int64_t s1)
      : key_{static_cast<uint32_t>(static_cast<uint64_t>(s0)),
             static_cast<uint32_t>(static_cast<uint64_t>(s0) >> 32)},
        hi_{static_cast<uint32_t>(static_cast<uint64_t>(s1)),
            static_cast<uint32_t>(static_cast<uint64_t>(s1) >> 32)} {}

  EMBER_HOST_DEVICE Counter Block(uint64_t b) const {
    return Philox4x32({static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32), hi_[0], hi_[1]},
                      key_);
  }

 private:
  Key key_;
  Key hi_;
};

// Two words as one 64-bit value, the first word low.
EMBER_HOST_DEVICE inline uint64_t Join(uint32_t lo, uint32_t hi) { return uint64_t{lo} | (uint64_t{hi} << 32); }

// A uniform float in [0, 1) from the top 23 bits: the bits fill the
// mantissa of a float in [1, 2), and 1 is subtracted (exact).
EMBER_HOST_DEVICE inline float UnitFloat(uint32_t x) {
  const uint32_t bits = 0x3F800000u | (x >> 9);
#ifdef __CUDA_ARCH__
  const float f = __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof(f));
#endif
  return f - 1.0f;
}

// The same for double from the top 52 bits of a 64-bit value.
EMBER_HOST_DEVICE inline double UnitDouble(uint64_t x) {
  const uint64_t bits = 0x3FF0000000000000ull | (x >> 12);
#ifdef __CUDA_ARCH__
  const double d = __longlong_as_double(static_cast<long long>(bits));
#else
  double d;
  std::memcpy(&d, &bits, sizeof(d));
#endif
  return d - 1.0;
}

// lo + span * u, rounded once per operation and never fused into a
// multiply-add, so the CPU and the GPU compute the same double (a fused
// multiply-add rounds once for both, and compilers fuse when they may).
EMBER_HOST_DEVICE inline double Affine(double lo, double span, double u) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(lo, __dmul_rn(span, u));
#else
  volatile double product = span * u;  // a separate rounding, whatever -ffp-contract says
  return lo + product;
#endif
}

}  // namespace ember::philox

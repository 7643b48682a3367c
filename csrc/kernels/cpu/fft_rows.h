// This file declares RowFft, the length-n discrete Fourier transform of one
// row that the signal kernels (signal_fft.cc) run over every row of a batch.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>

namespace ember::cpu {

// Note [FFT lengths with a large prime factor]
// Eigen's FFT module (kissfft) factors n and transforms a prime factor p with
// a direct O(p^2) butterfly, so its cost is O(n * p): fine for the small
// primes of most lengths, hopeless for a length like 1000003 (a prime). For
// those, Bluestein's algorithm rewrites the transform as a convolution with a
// chirp, computed by kissfft over a power-of-two length m >= 2n - 1 in
// float64 (three O(m log m) transforms, accurate to float32 rounding).
// kMaxDirectPrime is where Bluestein's constant factor starts to pay.
inline constexpr int64_t kMaxDirectPrime = 64;

// The largest prime factor of n (1 for n <= 1).
int64_t LargestPrimeFactor(int64_t n);

// One thread's transformer for rows of length n >= 1. Not thread-safe: each
// parallel chunk makes its own (it caches kissfft plans and scratch).
class RowFft {
 public:
  explicit RowFft(int64_t n);
  ~RowFft();
  RowFft(const RowFft&) = delete;
  RowFft& operator=(const RowFft&) = delete;

  // dst[k] = sum_j src[j] exp(-+2 pi i j k / n), times 1 / n when inverse.
  // src and dst must not overlap.
  void Complex(const std::complex<float>* src, std::complex<float>* dst, bool inverse);
  // The n / 2 + 1 non-negative frequency terms of a real row of length n.
  void ForwardReal(const float* src, std::complex<float>* dst);
  // The real row of length n whose terms 0 .. n / 2 are src (a Hermitian
  // spectrum; the imaginary parts of terms 0 and n / 2 are ignored).
  void InverseReal(const std::complex<float>* src, float* dst);

 private:
  struct Direct;
  struct Bluestein;
  int64_t n_;
  std::unique_ptr<Direct> direct_;        // kissfft in float32, when no prime factor is large
  std::unique_ptr<Bluestein> bluestein_;  // otherwise
};

}  // namespace ember::cpu

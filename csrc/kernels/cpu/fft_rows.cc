// This file implements RowFft: Eigen's FFT module (kissfft) directly, or
// inside Bluestein's algorithm for lengths with a large prime factor (Note
// [FFT lengths with a large prime factor] in fft_rows.h).
#include "kernels/cpu/fft_rows.h"

#include <cmath>
#include <vector>

#include "kernels/cpu/eigen.h"

#include <unsupported/Eigen/FFT>

namespace ember::cpu {

int64_t LargestPrimeFactor(int64_t n) {
  int64_t largest = 1;
  for (int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      largest = p;
      n /= p;
    }
  }
  return n > 1 ? n : largest;  // what is left is a prime above every factor found
}

struct RowFft::Direct {
  Eigen::FFT<float> complex;
  Eigen::FFT<float> half;  // real transforms: only the n / 2 + 1 non-negative terms
  Direct() { half.SetFlag(Eigen::FFT<float>::HalfSpectrum); }
};

// X[k] = chirp[k] * sum_j (x[j] chirp[j]) conj(chirp[k - j]), chirp[t] =
// exp(-i pi t^2 / n), since j k = (j^2 + k^2 - (k - j)^2) / 2. The sum is a
// cyclic convolution of length m >= 2n - 1, done with three transforms.
struct RowFft::Bluestein {
  using C = std::complex<double>;
  int64_t n, m = 1;
  std::vector<C> chirp;            // [n]
  std::vector<C> kernel_spectrum;  // [m]: the transform of conj(chirp[|t|]) placed cyclically
  std::vector<C> work, out;        // [m]
  Eigen::FFT<double> fft;

  explicit Bluestein(int64_t length) : n(length) {
    while (m < 2 * n - 1) m <<= 1;
    chirp.resize(n);
    const double pi = std::acos(-1.0);
    for (int64_t k = 0; k < n; ++k) {
      // exp(-i pi k^2 / n) has period 2n in k^2: reduce first to keep the angle exact.
      const double angle = pi * static_cast<double>((k * k) % (2 * n)) / static_cast<double>(n);
      chirp[k] = C(std::cos(angle), -std::sin(angle));
    }
    std::vector<C> kernel(m, C(0));
    kernel[0] = std::conj(chirp[0]);
    for (int64_t k = 1; k < n; ++k) kernel[k] = kernel[m - k] = std::conj(chirp[k]);
    kernel_spectrum.resize(m);
    fft.fwd(kernel_spectrum.data(), kernel.data(), m);
    work.resize(m);
    out.resize(m);
  }

  // The forward transform of work[0, n) (clobbered) into out[0, n).
  void Run() {
    for (int64_t k = 0; k < n; ++k) work[k] *= chirp[k];
    std::fill(work.begin() + n, work.end(), C(0));
    fft.fwd(out.data(), work.data(), m);
    for (int64_t i = 0; i < m; ++i) out[i] *= kernel_spectrum[i];
    fft.inv(work.data(), out.data(), m);  // scaled by 1 / m
    for (int64_t k = 0; k < n; ++k) out[k] = work[k] * chirp[k];
  }
};

RowFft::RowFft(int64_t n) : n_(n) {
  if (LargestPrimeFactor(n) <= kMaxDirectPrime) {
    direct_ = std::make_unique<Direct>();
  } else {
    bluestein_ = std::make_unique<Bluestein>(n);
  }
}

RowFft::~RowFft() = default;

void RowFft::Complex(const std::complex<float>* src, std::complex<float>* dst, bool inverse) {
  if (n_ == 1) {  // kissfft's plan for length 1 has a radix-1 stage; the transform is the identity
    dst[0] = src[0];
  } else if (direct_ && inverse) {
    direct_->complex.inv(dst, src, n_);
  } else if (direct_) {
    direct_->complex.fwd(dst, src, n_);
  } else {
    // The inverse is conj(forward(conj(x))) / n.
    Bluestein& b = *bluestein_;
    for (int64_t k = 0; k < n_; ++k) b.work[k] = inverse ? std::conj(Bluestein::C(src[k])) : Bluestein::C(src[k]);
    b.Run();
    const double scale = inverse ? 1.0 / static_cast<double>(n_) : 1.0;
    for (int64_t k = 0; k < n_; ++k) {
      dst[k] = std::complex<float>((inverse ? std::conj(b.out[k]) : b.out[k]) * scale);
    }
  }
}

void RowFft::ForwardReal(const float* src, std::complex<float>* dst) {
  if (n_ == 1) {
    dst[0] = src[0];
  } else if (direct_) {
    direct_->half.fwd(dst, src, n_);
  } else {
    Bluestein& b = *bluestein_;
    for (int64_t k = 0; k < n_; ++k) b.work[k] = src[k];
    b.Run();
    for (int64_t k = 0; k <= n_ / 2; ++k) dst[k] = std::complex<float>(b.out[k]);
  }
}

void RowFft::InverseReal(const std::complex<float>* src, float* dst) {
  if (n_ == 1) {
    dst[0] = src[0].real();
  } else if (direct_) {
    direct_->half.inv(dst, src, n_);
  } else {
    // Rebuild the full Hermitian spectrum X; the real part of forward(conj(X)) / n is the row.
    Bluestein& b = *bluestein_;
    const int64_t last = n_ / 2;
    for (int64_t k = 0; k < n_; ++k) {
      Bluestein::C term = k <= last ? Bluestein::C(src[k]) : std::conj(Bluestein::C(src[n_ - k]));
      if (k == 0 || 2 * k == n_) term = term.real();  // terms 0 and n / 2 are real
      b.work[k] = std::conj(term);
    }
    b.Run();
    const double scale = 1.0 / static_cast<double>(n_);
    for (int64_t k = 0; k < n_; ++k) dst[k] = static_cast<float>(b.out[k].real() * scale);
  }
}

}  // namespace ember::cpu

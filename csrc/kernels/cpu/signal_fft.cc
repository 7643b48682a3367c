// This file implements the Fourier transform CPU kernels (fft, ifft, rfft,
// irfft; op_defs/signal.yaml) with Eigen's FFT module, whose kissfft backend
// handles any length (mixed radix, with a generic butterfly for large prime
// factors). Rows of the innermost dim are transformed in parallel.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/signal.gen.h"
#include "ops/shape_fns/signal.h"

#include <unsupported/Eigen/FFT>

namespace ember::cpu {
namespace {

// Calls fn(fft, scratch, row) for each of `rows` rows of a length-n
// transform, over the intra-op pool. Each chunk owns its Eigen::FFT (whose
// plan cache must not be shared between threads) and a scratch vector for
// rows that need cropping or padding.
template <typename R, typename S, typename Fn>
void ForEachRow(const KernelContext& ctx, int64_t rows, int64_t n, Eigen::FFT<R>& (*setup)(Eigen::FFT<R>&),
                Fn&& fn) {
  const double cycles = 5.0 * static_cast<double>(n) * std::max(1.0, std::log2(static_cast<double>(n)));
  ParallelFor(ctx, rows, cycles, [&](int64_t first, int64_t last) {
    Eigen::FFT<R> fft;
    setup(fft);
    std::vector<S> scratch;
    for (int64_t row = first; row < last; ++row) fn(fft, scratch, row);
  });
}

template <typename R>
Eigen::FFT<R>& FullSpectrum(Eigen::FFT<R>& fft) {
  return fft;
}

// rfft/irfft work on the n / 2 + 1 non-negative frequencies only.
template <typename R>
Eigen::FFT<R>& HalfSpectrum(Eigen::FFT<R>& fft) {
  fft.SetFlag(Eigen::FFT<R>::HalfSpectrum);
  return fft;
}

// fft (kInverse false) and ifft (true, scaled by 1 / n): the innermost dim
// keeps its length.
template <bool kInverse>
struct ComplexFft {
  template <typename C>
  class Kernel final : public OpKernel {
   public:
    explicit Kernel(const KernelInit&) {}

    Status Compute(KernelContext& ctx) const override {
      using R = typename C::value_type;
      const Tensor& input = ctx.input(0);
      Tensor& output = ctx.output(0);
      if (output.NumElements() == 0) return Status::OK();
      const int64_t n = input.shape().dim(input.shape().rank() - 1);
      const C* x = input.data<C>();
      C* y = output.data<C>();
      ForEachRow<R, C>(ctx, output.NumElements() / n, n, &FullSpectrum<R>,
                       [&](Eigen::FFT<R>& fft, std::vector<C>&, int64_t row) {
        const C* src = x + row * n;
        C* dst = y + row * n;
        if (n == 1) {  // kissfft's plan for length 1 has a radix-1 stage; the transform is the identity
          *dst = *src;
        } else if constexpr (kInverse) {
          fft.inv(dst, src, n);
        } else {
          fft.fwd(dst, src, n);
        }
      });
      return Status::OK();
    }
  };
};

// rfft: each row is cropped or zero-padded to n = fft_length real values,
// and the first n / 2 + 1 terms of its transform are kept.
template <typename R>
class RfftKernel final : public OpKernel {
 public:
  explicit RfftKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    using C = std::complex<R>;
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    int64_t n;
    EMBER_RETURN_IF_ERROR(shape_fns::ResolveFftLength(input.shape(), attrs_.fft_length, false, &n));
    const int64_t inner = input.shape().dim(input.shape().rank() - 1);
    const int64_t bins = n / 2 + 1;
    const int64_t rows = output.NumElements() / bins;
    C* y = output.data<C>();
    if (n == 0 || inner == 0) {  // nothing to transform: TensorFlow returns zeros
      std::fill(y, y + output.NumElements(), C(0));
      return Status::OK();
    }
    const R* x = input.data<R>();
    const int64_t kept = std::min(inner, n);
    ForEachRow<R, R>(ctx, rows, n, &HalfSpectrum<R>, [&](Eigen::FFT<R>& fft, std::vector<R>& padded, int64_t row) {
      const R* src = x + row * inner;
      C* dst = y + row * bins;
      if (n == 1) {
        *dst = C(src[0]);
        return;
      }
      if (kept == n) {
        fft.fwd(dst, src, n);
        return;
      }
      padded.assign(static_cast<size_t>(n), R(0));
      std::copy(src, src + kept, padded.begin());
      fft.fwd(dst, padded.data(), n);
    });
    return Status::OK();
  }

 private:
  RfftAttrs attrs_;
};

// irfft: each row is cropped or zero-padded to n / 2 + 1 terms of a
// Hermitian spectrum, whose length-n inverse transform is real. Eigen reads
// only the real parts of the zero-frequency and Nyquist terms, as
// TensorFlow and NumPy do.
template <typename C>
class IrfftKernel final : public OpKernel {
 public:
  explicit IrfftKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    using R = typename C::value_type;
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    int64_t n;
    EMBER_RETURN_IF_ERROR(shape_fns::ResolveFftLength(input.shape(), attrs_.fft_length, true, &n));
    const int64_t inner = input.shape().dim(input.shape().rank() - 1);
    const int64_t bins = n / 2 + 1;
    const int64_t rows = output.NumElements() / n;
    R* y = output.data<R>();
    if (inner == 0) {  // an all-zero spectrum
      std::fill(y, y + output.NumElements(), R(0));
      return Status::OK();
    }
    const C* x = input.data<C>();
    const int64_t kept = std::min(inner, bins);
    ForEachRow<R, C>(ctx, rows, n, &HalfSpectrum<R>, [&](Eigen::FFT<R>& fft, std::vector<C>& padded, int64_t row) {
      const C* src = x + row * inner;
      R* dst = y + row * n;
      if (n == 1) {
        *dst = src[0].real();
        return;
      }
      // Eigen reads n / 2 + 1 terms; copy (padding with zeros) when the row
      // holds fewer. Eigen's inverse does not write to its input.
      if (kept == bins) {
        fft.inv(dst, src, n);
        return;
      }
      padded.assign(static_cast<size_t>(bins), C(0));
      std::copy(src, src + kept, padded.begin());
      fft.inv(dst, padded.data(), n);
    });
    return Status::OK();
  }

 private:
  IrfftAttrs attrs_;
};

}  // namespace
}  // namespace ember::cpu

namespace ember {

void RegisterCpuSignalKernels(KernelRegistry& registry) {
  using namespace cpu;
  RegisterForTypes<ComplexFft<false>::Kernel, std::complex<float>>(registry, "fft");
  RegisterForTypes<ComplexFft<true>::Kernel, std::complex<float>>(registry, "ifft");
  RegisterForTypes<RfftKernel, float>(registry, "rfft");
  RegisterForTypes<IrfftKernel, std::complex<float>>(registry, "irfft");
}

}  // namespace ember

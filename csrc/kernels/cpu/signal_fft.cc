// This file implements the Fourier transform CPU kernels (fft, ifft, rfft,
// irfft; op_defs/signal.yaml): rows of the innermost dim are transformed in
// parallel by RowFft (fft_rows.h: Eigen's FFT module, any length).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/fft_rows.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/signal.gen.h"
#include "ops/shape_fns/signal.h"

namespace ember::cpu {
namespace {

// Calls fn(fft, scratch, row) for each of `rows` rows of a length-n
// transform, over the intra-op pool. Each chunk owns its RowFft (plans and
// scratch are per thread) and a scratch vector for rows that need cropping
// or padding.
template <typename S, typename Fn>
void ForEachRow(const KernelContext& ctx, int64_t rows, int64_t n, Fn&& fn) {
  const double cycles = 5.0 * static_cast<double>(n) * std::max(1.0, std::log2(static_cast<double>(n)));
  ParallelFor(ctx, rows, cycles, [&](int64_t first, int64_t last) {
    RowFft fft(n);
    std::vector<S> scratch;
    for (int64_t row = first; row < last; ++row) fn(fft, scratch, row);
  });
}

// fft (kInverse false) and ifft (true, scaled by 1 / n): the innermost dim
// keeps its length.
template <bool kInverse>
class ComplexFftKernel final : public OpKernel {
 public:
  explicit ComplexFftKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    using C = std::complex<float>;
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    const int64_t n = input.shape().dim(input.shape().rank() - 1);
    const C* x = input.data<C>();
    C* y = output.data<C>();
    ForEachRow<C>(ctx, output.NumElements() / n, n, [&](RowFft& fft, std::vector<C>&, int64_t row) {
      fft.Complex(x + row * n, y + row * n, kInverse);
    });
    return Status::OK();
  }
};

// rfft: each row is cropped or zero-padded to n = fft_length real values,
// and the first n / 2 + 1 terms of its transform are kept.
class RfftKernel final : public OpKernel {
 public:
  explicit RfftKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    using C = std::complex<float>;
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    int64_t n;
    EMBER_RETURN_IF_ERROR(shape_fns::ResolveFftLength(input.shape(), attrs_.fft_length, false, &n));
    const int64_t inner = input.shape().dim(input.shape().rank() - 1);
    const int64_t bins = n / 2 + 1;
    C* y = output.data<C>();
    if (n == 0 || inner == 0) {  // nothing to transform: TensorFlow returns zeros
      std::fill(y, y + output.NumElements(), C(0));
      return Status::OK();
    }
    const float* x = input.data<float>();
    const int64_t kept = std::min(inner, n);
    ForEachRow<float>(ctx, output.NumElements() / bins, n, [&](RowFft& fft, std::vector<float>& padded, int64_t row) {
      const float* src = x + row * inner;
      if (kept < n) {
        padded.assign(static_cast<size_t>(n), 0.0f);
        std::copy(src, src + kept, padded.begin());
        src = padded.data();
      }
      fft.ForwardReal(src, y + row * bins);
    });
    return Status::OK();
  }

 private:
  RfftAttrs attrs_;
};

// irfft: each row is cropped or zero-padded to n / 2 + 1 terms of a
// Hermitian spectrum, whose length-n inverse transform is real. Only the
// real parts of the zero-frequency and Nyquist terms count, as in
// TensorFlow and NumPy.
class IrfftKernel final : public OpKernel {
 public:
  explicit IrfftKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    using C = std::complex<float>;
    const Tensor& input = ctx.input(0);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    int64_t n;
    EMBER_RETURN_IF_ERROR(shape_fns::ResolveFftLength(input.shape(), attrs_.fft_length, true, &n));
    const int64_t inner = input.shape().dim(input.shape().rank() - 1);
    const int64_t bins = n / 2 + 1;
    float* y = output.data<float>();
    if (inner == 0) {  // an all-zero spectrum
      std::fill(y, y + output.NumElements(), 0.0f);
      return Status::OK();
    }
    const C* x = input.data<C>();
    const int64_t kept = std::min(inner, bins);
    ForEachRow<C>(ctx, output.NumElements() / n, n, [&](RowFft& fft, std::vector<C>& padded, int64_t row) {
      const C* src = x + row * inner;
      if (kept < bins) {  // the transform reads n / 2 + 1 terms
        padded.assign(static_cast<size_t>(bins), C(0));
        std::copy(src, src + kept, padded.begin());
        src = padded.data();
      }
      fft.InverseReal(src, y + row * n);
    });
    return Status::OK();
  }

 private:
  IrfftAttrs attrs_;
};

}  // namespace
}  // namespace ember::cpu

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuSignalKernels(KernelRegistry& registry) {
  using namespace cpu;
  registry.Register("fft", kCpuDeviceType, {DType::kComplex64}, &MakeKernel<ComplexFftKernel<false>>);
  registry.Register("ifft", kCpuDeviceType, {DType::kComplex64}, &MakeKernel<ComplexFftKernel<true>>);
  registry.Register("rfft", kCpuDeviceType, {DType::kFloat32}, &MakeKernel<RfftKernel>);
  registry.Register("irfft", kCpuDeviceType, {DType::kComplex64}, &MakeKernel<IrfftKernel>);
}

}  // namespace ember

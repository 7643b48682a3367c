// This file defines the activation functors (relu6, leaky_relu, elu, selu,
// gelu, silu) shared by their kernels (nn_activation.cc) and the fused
// element-wise kernel (fused_elementwise.cc).
#pragma once

#include <cmath>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/nn_kernels.h"
#include "kernels/cpu/special_functors.h"
#include "ops/attrs/nn.gen.h"

namespace ember::cpu {

// Each functor is built from the op's attrs once per kernel (or from the
// attribute's value, by the fused kernel) and fills
// out[0, n) from in[0, n); out may be in (every element is read before it
// is written at the same index).
struct Relu6Fn {
  static constexpr double kCycles = 1;
  Relu6Fn() = default;
  explicit Relu6Fn(const AttrList&) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    OutVec<T>(out, n) = InVec<T>(in, n).max(T(0)).min(T(6));
  }
};

struct LeakyReluFn {
  static constexpr double kCycles = 1;
  double alpha;
  explicit LeakyReluFn(double alpha) : alpha(alpha) {}
  explicit LeakyReluFn(const AttrList& a) : alpha(LeakyReluAttrs(a).alpha) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    const auto x = InVec<T>(in, n);
    OutVec<T>(out, n) = (x > T(0)).select(x, x * static_cast<T>(alpha));
  }
};

struct EluFn {
  static constexpr double kCycles = 20;
  EluFn() = default;
  explicit EluFn(const AttrList&) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    const auto x = InVec<T>(in, n);
    OutVec<T>(out, n) = (x > T(0)).select(x, x.expm1());
  }
};

struct SeluFn {
  static constexpr double kCycles = 20;
  static constexpr double kAlpha = 1.6732632423543772848170429916717;
  static constexpr double kScale = 1.0507009873554804934193349852946;
  SeluFn() = default;
  explicit SeluFn(const AttrList&) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    const auto x = InVec<T>(in, n);
    OutVec<T>(out, n) = (x > T(0)).select(x * T(kScale), x.expm1() * T(kScale * kAlpha));
  }
};

struct GeluFn {
  static constexpr double kCycles = 30;
  bool approximate;
  explicit GeluFn(bool approximate) : approximate(approximate) {}
  explicit GeluFn(const AttrList& a) : approximate(GeluAttrs(a).approximate) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    if (approximate) {
      const T k = static_cast<T>(std::sqrt(2.0 / M_PI));
      const auto x = InVec<T>(in, n);
      OutVec<T>(out, n) = T(0.5) * x * (T(1) + (k * (x + T(0.044715) * x.cube())).tanh());
      return;
    }
    // Note [Vectorized erf] (special_functors.h).
    const auto x = InVec<T>(in, n);
    OutVec<T>(out, n) = T(0.5) * x * (T(1) + VectorErf(x * static_cast<T>(M_SQRT1_2)));
  }
};

struct SiluFn {
  static constexpr double kCycles = 20;
  double beta;
  explicit SiluFn(double beta) : beta(beta) {}
  explicit SiluFn(const AttrList& a) : beta(SiluAttrs(a).beta) {}
  template <typename T> void operator()(const T* in, T* out, int64_t n) const {
    // x / (1 + e^(-beta x)), not x * logistic(beta x): Eigen's float
    // logistic loses relative accuracy for negative x (3.5e-4 at -8.9) and,
    // without AVX, gives -0.9998 at x = -3.4e38; this form is within a few
    // ulps everywhere and is the device's (math::Silu).
    const auto x = InVec<T>(in, n);
    OutVec<T>(out, n) = x / (T(1) + (x * static_cast<T>(-beta)).exp());
  }
};

}  // namespace ember::cpu

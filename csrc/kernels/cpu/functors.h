// This file defines the element-wise functors of the CPU kernels: small
// structs that apply to Eigen array expressions.
#pragma once

#include "kernels/cpu/eigen.h"

namespace ember::cpu {

// Each functor has kCycles, a rough per-element cost for ParallelFor.

// Unary.
struct NegativeFn {
  static constexpr double kCycles = 1;
  template <typename A> auto operator()(const A& a) const { return -a; }
};
struct AbsFn {
  static constexpr double kCycles = 1;
  template <typename A> auto operator()(const A& a) const { return a.abs(); }
};
struct ReluFn {
  static constexpr double kCycles = 1;
  template <typename A> auto operator()(const A& a) const {
    return a.max(typename A::Scalar(0));
  }
};
struct ExpFn {
  static constexpr double kCycles = 20;
  template <typename A> auto operator()(const A& a) const { return a.exp(); }
};
struct LogFn {
  static constexpr double kCycles = 20;
  template <typename A> auto operator()(const A& a) const { return a.log(); }
};
struct SqrtFn {
  static constexpr double kCycles = 5;
  template <typename A> auto operator()(const A& a) const { return a.sqrt(); }
};
struct TanhFn {
  static constexpr double kCycles = 20;
  template <typename A> auto operator()(const A& a) const { return a.tanh(); }
};
struct SigmoidFn {
  static constexpr double kCycles = 20;
  template <typename A> auto operator()(const A& a) const { return a.logistic(); }
};

// Binary. Either side may be a Constant (a broadcast scalar).
struct AddFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a + b; }
};
struct SubtractFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a - b; }
};
struct MultiplyFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a * b; }
};
struct DivideFn {
  static constexpr double kCycles = 4;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a / b; }
};
// NaN-propagating, like NumPy's maximum/minimum.
struct MaximumFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    return a.template max<Eigen::PropagateNaN>(b);
  }
};
struct MinimumFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const {
    return a.template min<Eigen::PropagateNaN>(b);
  }
};

// Comparisons (bool results).
struct EqualFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a == b; }
};
struct NotEqualFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a != b; }
};
struct LessFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a < b; }
};
struct LessEqualFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a <= b; }
};
struct GreaterFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a > b; }
};
struct GreaterEqualFn {
  static constexpr double kCycles = 1;
  template <typename A, typename B> auto operator()(const A& a, const B& b) const { return a >= b; }
};

}  // namespace ember::cpu

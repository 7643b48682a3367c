// This file holds what the matrix decomposition kernels (linalg_*.cc)
// share: the matrix sizes of a [..., rows, cols] shape, small helpers on
// row-major matrices, and the loop that runs a decomposition per matrix
// over the intra-op pool.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/shape.h"
#include "kernels/cpu/parallel.h"

namespace ember::cpu::linalg {

template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<std::complex<T>> {
  using type = T;
};
// float for complex64: the type of singular values and eigenvalues.
template <typename T>
using Real = typename RealOf<T>::type;

template <typename T>
inline constexpr bool kIsComplex = !std::is_same_v<T, Real<T>>;

inline int64_t Rows(const Shape& s) { return s.dim(s.rank() - 2); }
inline int64_t Cols(const Shape& s) { return s.dim(s.rank() - 1); }

// The batch dims of a [..., rows, cols] shape.
inline Shape BatchShape(const Shape& s) { return Shape(s.data(), s.rank() - 2); }

template <typename T>
T Conj(T x) {
  if constexpr (kIsComplex<T>) {
    return std::conj(x);
  } else {
    return x;
  }
}

template <typename T>
bool AllFinite(const T* data, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (kIsComplex<T>) {
      if (!std::isfinite(data[i].real()) || !std::isfinite(data[i].imag())) return false;
    } else {
      if (!std::isfinite(data[i])) return false;
    }
  }
  return true;
}

// dst (cols x rows) = src (rows x cols) transposed, conjugated when asked.
template <typename T>
void Transpose(const T* src, int64_t rows, int64_t cols, bool conjugate, T* dst) {
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) dst[j * rows + i] = conjugate ? Conj(src[i * cols + j]) : src[i * cols + j];
  }
}

// Writes the n x n identity (or its first `cols` columns) to dst.
template <typename T>
void SetIdentity(T* dst, int64_t rows, int64_t cols) {
  std::fill(dst, dst + rows * cols, T(0));
  for (int64_t i = 0; i < std::min(rows, cols); ++i) dst[i * cols + i] = T(1);
}

// A rough cost of one O(n^3) decomposition, to size parallel blocks.
inline double DecompositionCycles(int64_t m, int64_t n) {
  const double big = static_cast<double>(std::max(m, n));
  return 10.0 * static_cast<double>(std::min(m, n)) * big * big + 100.0;
}

// Calls fn(b) for every matrix b in [0, batch), in parallel; fn returns
// false for a matrix it could not decompose. Returns whether all succeeded.
// Callers pass a batch no larger than an output's element count, so an
// empty-matrix batch of 2^40 is never walked (they fill such outputs directly).
template <typename Fn>
bool ForEachMatrix(const KernelContext& ctx, int64_t batch, double cycles_per_matrix, Fn&& fn) {
  std::atomic<bool> ok{true};
  ParallelFor(ctx, batch, cycles_per_matrix, [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last; ++b) {
      if (!fn(b)) ok.store(false, std::memory_order_relaxed);
    }
  });
  return ok.load();
}

}  // namespace ember::cpu::linalg

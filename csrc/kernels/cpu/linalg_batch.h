// This file holds what the matrix decomposition kernels (linalg_*.cc)
// share: Eigen matrix types, views of one matrix of a batch, and the loop
// that runs a decomposition per matrix over the intra-op pool.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/shape.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/parallel.h"

namespace ember::cpu::linalg {

// Decompositions work on column-major copies (Eigen's default layout, so
// each decomposition is instantiated once); tensors are row-major.
template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMatrix<T>>;
template <typename T>
using MatrixMap = Eigen::Map<RowMatrix<T>>;
template <typename T>
using Real = typename Eigen::NumTraits<T>::Real;

inline int64_t Rows(const Shape& s) { return s.dim(s.rank() - 2); }
inline int64_t Cols(const Shape& s) { return s.dim(s.rank() - 1); }

// Matrix b of a row-major [..., rows, cols] buffer.
template <typename T>
ConstMatrixMap<T> MatrixAt(const T* data, int64_t b, int64_t rows, int64_t cols) {
  return ConstMatrixMap<T>(data + b * rows * cols, rows, cols);
}
template <typename T>
MatrixMap<T> MatrixAt(T* data, int64_t b, int64_t rows, int64_t cols) {
  return MatrixMap<T>(data + b * rows * cols, rows, cols);
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

// The batch dims of a [..., rows, cols] shape.
inline Shape BatchShape(const Shape& s) { return Shape(s.data(), s.rank() - 2); }

}  // namespace ember::cpu::linalg

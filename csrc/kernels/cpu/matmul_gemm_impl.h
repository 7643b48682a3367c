// This file defines MatmulRows; include it only from the .cc files that
// instantiate it (matmul_gemm_*.cc).
#pragma once

#include <type_traits>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/matmul_gemm.h"

namespace ember::cpu {

template <typename T>
void EigenMatmulRows(const T* a, const T* b, T* c, const MatmulDims& dims, int64_t row_begin,
                     int64_t row_end) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t m = dims.m, k = dims.k, n = dims.n;
  const int64_t rows = row_end - row_begin;
  Eigen::Map<Matrix> out(c + row_begin * n, rows, n);
  if (k == 0) {
    out.setZero();
    return;
  }
  Eigen::Map<const Matrix> lhs(a, dims.transpose_a ? k : m, dims.transpose_a ? m : k);
  Eigen::Map<const Matrix> rhs(b, dims.transpose_b ? n : k, dims.transpose_b ? k : n);
  if (!dims.transpose_a) {
    const auto lhs_rows = lhs.middleRows(row_begin, rows);
    if (!dims.transpose_b) {
      out.noalias() = lhs_rows * rhs;
    } else {
      out.noalias() = lhs_rows * rhs.transpose();
    }
  } else {
    const auto lhs_rows = lhs.middleCols(row_begin, rows).transpose();
    if (!dims.transpose_b) {
      out.noalias() = lhs_rows * rhs;
    } else {
      out.noalias() = lhs_rows * rhs.transpose();
    }
  }
}

template <typename T>
void MatmulRows(const T* a, const T* b, T* c, const MatmulDims& dims, int64_t row_begin,
                int64_t row_end) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    // Note [Wrapping integer arithmetic] (wrapping.h): signed overflow is
    // undefined, so integer products run on the unsigned type of the same
    // width, whose wrap-around gives the two's-complement result that
    // TensorFlow and NumPy compute.
    using U = std::make_unsigned_t<T>;
    EigenMatmulRows<U>(reinterpret_cast<const U*>(a), reinterpret_cast<const U*>(b), reinterpret_cast<U*>(c), dims,
                       row_begin, row_end);
  } else {
    EigenMatmulRows<T>(a, b, c, dims, row_begin, row_end);
  }
}

}  // namespace ember::cpu

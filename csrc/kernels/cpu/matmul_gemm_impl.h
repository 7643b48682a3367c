// This file defines MatmulTile; include it only from the .cc files that
// instantiate it (matmul_gemm_*.cc).
#pragma once

#include <type_traits>

#include "kernels/cpu/blas.h"
#include "kernels/cpu/eigen.h"
#include "kernels/cpu/matmul_gemm.h"
#include "kernels/cpu/matmul_packed.h"

namespace ember::cpu {

// A narrow float32 product (fewer than 64 columns or 16 of depth, which
// the packed kernel declines: Note [Packed float32 GEMM]) goes to BLAS
// only from this volume: below it Eigen takes it, so that a small model's
// training step (its last layer, say 512 -> 10) never loads OpenBLAS (Note
// [OpenBLAS on first use]). Measured on the 2-core Xeon, sync, Eigen
// against OpenBLAS: [64,512]x[512,10] 10.1 vs 8.5 us, [64,10]x[10,512]
// 12.1 vs 12.2 us, [512,64]^T x [64,10] 12.8 vs 6.4 us. Products with few
// rows (an MLP at batch 1) stay on OpenBLAS: on Eigen, batch 1 took 14%
// longer.
inline constexpr int64_t kFloatNarrowBlasMinVolume = int64_t{1} << 20;

// Whether BlasGemm takes a (rows x k) x (k x cols) product of T.
template <typename T>
constexpr bool BlasTakes(int64_t rows, int64_t cols, int64_t k) {
  const int64_t volume = rows * cols * k;
  if (volume < kBlasMinVolume) return false;
  if constexpr (std::is_same_v<T, float>) {
    const bool narrow = cols < kPackedMinColumns || k < kPackedMinDepth;
    return !narrow || volume >= kFloatNarrowBlasMinVolume;
  }
  return true;
}

template <typename T>
void EigenMatmulTile(const T* a, const T* b, T* c, const MatmulDims& dims, const MatmulTileRange& tile) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t m = dims.m, k = dims.k, n = dims.n;
  const int64_t rows = tile.row_end - tile.row_begin, cols = tile.col_end - tile.col_begin;
  Eigen::Map<Matrix, 0, Eigen::OuterStride<>> out(c + tile.row_begin * n + tile.col_begin, rows, cols,
                                                  Eigen::OuterStride<>(n));
  Eigen::Map<const Matrix> lhs(a, dims.transpose_a ? k : m, dims.transpose_a ? m : k);
  Eigen::Map<const Matrix> rhs(b, dims.transpose_b ? n : k, dims.transpose_b ? k : n);
  if (!dims.transpose_a) {
    const auto lhs_rows = lhs.middleRows(tile.row_begin, rows);
    if (!dims.transpose_b) {
      out.noalias() = lhs_rows * rhs.middleCols(tile.col_begin, cols);
    } else {
      out.noalias() = lhs_rows * rhs.middleRows(tile.col_begin, cols).transpose();
    }
  } else {
    const auto lhs_rows = lhs.middleCols(tile.row_begin, rows).transpose();
    if (!dims.transpose_b) {
      out.noalias() = lhs_rows * rhs.middleCols(tile.col_begin, cols);
    } else {
      out.noalias() = lhs_rows * rhs.middleRows(tile.col_begin, cols).transpose();
    }
  }
}

template <typename T>
void MatmulTile(const T* a, const T* b, T* c, const MatmulDims& dims, const MatmulTileRange& tile) {
  const int64_t rows = tile.row_end - tile.row_begin, cols = tile.col_end - tile.col_begin;
  if (rows <= 0 || cols <= 0) return;
  if (dims.k == 0) {
    for (int64_t r = tile.row_begin; r < tile.row_end; ++r) {
      std::fill(c + r * dims.n + tile.col_begin, c + r * dims.n + tile.col_end, T(0));
    }
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    // Note [Packed float32 GEMM]
    if (UsesPackedSgemm(rows, cols, dims.k)) {
      const float* a_tile = dims.transpose_a ? a + tile.row_begin : a + tile.row_begin * dims.k;
      const float* b_tile = dims.transpose_b ? b + tile.col_begin * dims.k : b + tile.col_begin;
      PackedSgemm(a_tile, dims.transpose_a ? 1 : dims.k, dims.transpose_a ? dims.m : 1, b_tile,
                  dims.transpose_b ? dims.k : dims.n, dims.transpose_b, c + tile.row_begin * dims.n + tile.col_begin,
                  dims.n, rows, cols, dims.k);
      return;
    }
  }
  if constexpr (kBlasType<T>) {
    if (BlasTakes<T>(rows, cols, dims.k) && BlasAvailable()) {
      // The tile's rows of op(a) and columns of op(b), as strided views.
      const T* a_tile = dims.transpose_a ? a + tile.row_begin : a + tile.row_begin * dims.k;
      const T* b_tile = dims.transpose_b ? b + tile.col_begin * dims.k : b + tile.col_begin;
      BlasGemm<T>(dims.transpose_a, dims.transpose_b, rows, cols, dims.k, a_tile, dims.transpose_a ? dims.m : dims.k,
                  b_tile, dims.transpose_b ? dims.k : dims.n, c + tile.row_begin * dims.n + tile.col_begin, dims.n);
      return;
    }
  }
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    // Note [Wrapping integer arithmetic] (wrapping.h): signed overflow is
    // undefined, so integer products run on the unsigned type of the same
    // width, whose wrap-around gives the two's-complement result that
    // TensorFlow and NumPy compute.
    using U = std::make_unsigned_t<T>;
    EigenMatmulTile<U>(reinterpret_cast<const U*>(a), reinterpret_cast<const U*>(b), reinterpret_cast<U*>(c), dims,
                       tile);
  } else {
    EigenMatmulTile<T>(a, b, c, dims, tile);
  }
}

}  // namespace ember::cpu

// This file declares GemmPlan: an Ember matmul (row-major, batched with
// broadcasting) as cuBLAS's column-major GEMM, in plain host arithmetic
// that CI checks without a GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "core/shape.h"
#include "core/status.h"

namespace ember::cuda {

// Note [Row-major GEMM on cuBLAS]
// cuBLAS reads matrices column-major. A row-major [r, c] matrix is, read
// column-major, its transpose [c, r] with leading dimension c. So Ember's
// C = op(a) · op(b), all row-major, is computed as C^T = op(b)^T · op(a)^T:
// cuBLAS's "A" is Ember's b and its "B" is Ember's a, with m and n swapped
// and no data moved. An operand Ember reads transposed is one cuBLAS reads
// untransposed, and vice versa.
// Batches: when the batch dims are the same, or one side has a single
// batch that every product reuses, the product is one strided-batched
// call (stride 0 for the reused side). Other broadcasts list each
// product's offsets, one call per product.
struct GemmPlan {
  // cuBLAS's view: D[m, n] = op_a(A)[m, k] · op_b(B)[k, n], column-major.
  int64_t m = 0, n = 0, k = 0;
  bool transpose_a = false, transpose_b = false;  // cuBLAS's op_a, op_b
  // The stored layouts: rows, columns and leading dimension of each.
  int64_t a_rows = 0, a_cols = 0, lda = 0;
  int64_t b_rows = 0, b_cols = 0, ldb = 0;
  int64_t ldd = 0;
  // One strided-batched call: `batch` products, each operand advancing by
  // its stride (elements) per product.
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_d = 0;
  // For other broadcasts (`batch` is then 1): each product's element
  // offsets into cuBLAS's A, B and D.
  std::vector<int64_t> offsets_a, offsets_b, offsets_d;
  bool empty = false;  // the output has no elements: nothing to launch
};

// `a`, `b` and `c` are the matmul's operand and output shapes (rank >= 2,
// batch dims broadcasting as the shape function checked).
Status MakeGemmPlan(const Shape& a, const Shape& b, const Shape& c, bool transpose_a, bool transpose_b,
                    GemmPlan* plan);

}  // namespace ember::cuda

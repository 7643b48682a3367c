// This file implements MakeGemmPlan (Note [Row-major GEMM on cuBLAS]).
#include "kernels/cuda/gemm_plan.h"

#include "ops/plans/broadcast_plan.h"

namespace ember::cuda {
namespace {

Shape BatchShape(const Shape& s) { return Shape(s.data(), s.rank() - 2); }

int64_t Product(const Shape& s) {
  int64_t n = 1;
  for (int i = 0; i < s.rank(); ++i) n *= s.dim(i);
  return n;
}

}  // namespace

Status MakeGemmPlan(const Shape& a, const Shape& b, const Shape& c, bool transpose_a, bool transpose_b,
                    GemmPlan* plan) {
  if (a.rank() < 2 || b.rank() < 2 || c.rank() < 2) return InvalidArgument("matmul operands must have rank >= 2");
  *plan = GemmPlan();
  const int64_t rows = c.dim(c.rank() - 2);  // Ember's m
  const int64_t cols = c.dim(c.rank() - 1);  // Ember's n
  const int64_t inner = a.dim(a.rank() - (transpose_a ? 2 : 1));
  // cuBLAS's A is Ember's b, its B Ember's a; m and n swap.
  plan->m = cols;
  plan->n = rows;
  plan->k = inner;
  plan->transpose_a = transpose_b;
  plan->transpose_b = transpose_a;
  // Ember's b is stored row-major [inner, cols] (or [cols, inner]
  // transposed): column-major that is [cols, inner] (or [inner, cols]).
  plan->a_rows = transpose_b ? inner : cols;
  plan->a_cols = transpose_b ? cols : inner;
  plan->lda = plan->a_rows;
  plan->b_rows = transpose_a ? rows : inner;
  plan->b_cols = transpose_a ? inner : rows;
  plan->ldb = plan->b_rows;
  plan->ldd = cols;
  plan->empty = Product(c) == 0;
  if (plan->empty) return Status::OK();

  const int64_t a_matrix = a.dim(a.rank() - 2) * a.dim(a.rank() - 1);
  const int64_t b_matrix = b.dim(b.rank() - 2) * b.dim(b.rank() - 1);
  const int64_t d_matrix = rows * cols;
  const BroadcastPlan batches = MakeBroadcastPlan(BatchShape(a), BatchShape(b), BatchShape(c));
  const int64_t count = Product(BatchShape(c));
  plan->stride_d = d_matrix;
  switch (batches.kind) {
    case BroadcastPlan::Kind::kEmpty:
      plan->empty = true;
      return Status::OK();
    case BroadcastPlan::Kind::kSameShape:
      plan->batch = count;
      plan->stride_a = b_matrix;
      plan->stride_b = a_matrix;
      return Status::OK();
    case BroadcastPlan::Kind::kLhsScalar:  // Ember's a is reused
      plan->batch = count;
      plan->stride_a = b_matrix;
      plan->stride_b = 0;
      return Status::OK();
    case BroadcastPlan::Kind::kRhsScalar:  // Ember's b is reused
      plan->batch = count;
      plan->stride_a = 0;
      plan->stride_b = a_matrix;
      return Status::OK();
    case BroadcastPlan::Kind::kGeneral:
      break;
  }
  // Walk the batch index space row-major, as the output is laid out.
  plan->batch = 1;
  const int rank = batches.rank();
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t off_a = 0, off_b = 0;
    for (int d = 0; d < rank; ++d) {
      off_a += index[d] * batches.lhs_strides.dim(d);
      off_b += index[d] * batches.rhs_strides.dim(d);
    }
    plan->offsets_a.push_back(off_b * b_matrix);
    plan->offsets_b.push_back(off_a * a_matrix);
    plan->offsets_d.push_back(i * d_matrix);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < batches.dims.dim(d)) break;
      index[d] = 0;
    }
  }
  return Status::OK();
}

}  // namespace ember::cuda

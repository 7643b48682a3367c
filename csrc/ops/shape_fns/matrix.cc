// This file implements the shape functions of the matrix decompositions and
// solvers (inverse, determinants, solves, cholesky, qr, svd, eigh, lstsq):
// the last two dims are the matrices, the leading ones a batch.
#include <algorithm>

#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

bool Known(int64_t d) { return d != Shape::kUnknownDim; }

Shape Batch(const Shape& s) { return Shape(s.data(), s.rank() - 2); }

Shape WithDims(Shape s, std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) s.AddDim(d);
  return s;
}

Status NeedMatrices(const Shape& s, const char* what) {
  if (s.rank() < 2) {
    return InvalidArgument(std::string(what) + " must have rank >= 2, got shape " + s.ToString());
  }
  return Status::OK();
}

Status NeedSquare(const Shape& s, const char* what) {
  EMBER_RETURN_IF_ERROR(NeedMatrices(s, what));
  const int64_t m = s.dim(s.rank() - 2), n = s.dim(s.rank() - 1);
  if (Known(m) && Known(n) && m != n) {
    return InvalidArgument(std::string(what) + " must be square matrices, got shape " + s.ToString());
  }
  return Status::OK();
}

int64_t Rows(const Shape& s) { return s.dim(s.rank() - 2); }
int64_t Cols(const Shape& s) { return s.dim(s.rank() - 1); }

int64_t MinDim(int64_t a, int64_t b) {
  if (!Known(a) || !Known(b)) return Known(a) && a == 0 ? 0 : Known(b) && b == 0 ? 0 : Shape::kUnknownDim;
  return std::min(a, b);
}

// matrix [..., M, M|N] and rhs [..., M, K]: the row counts must agree, and
// the batches too unless `broadcast` (then *batch is the broadcast batch).
Status SolveOperands(const Shape& matrix, const Shape& rhs, bool square, bool broadcast, Shape* batch) {
  EMBER_RETURN_IF_ERROR(square ? NeedSquare(matrix, "matrix") : NeedMatrices(matrix, "matrix"));
  EMBER_RETURN_IF_ERROR(NeedMatrices(rhs, "rhs"));
  if (Known(Rows(matrix)) && Known(Rows(rhs)) && Rows(matrix) != Rows(rhs)) {
    return InvalidArgument("matrix and rhs must have the same number of rows, got shapes " + matrix.ToString() +
                           " and " + rhs.ToString());
  }
  const Shape a = Batch(matrix), b = Batch(rhs);
  if (broadcast) {
    if (!BroadcastShapes(a, b, batch).ok()) {
      return InvalidArgument("batch dims of matrix " + matrix.ToString() + " and rhs " + rhs.ToString() +
                             " do not broadcast");
    }
    return Status::OK();
  }
  if (!a.IsCompatibleWith(b)) {
    return InvalidArgument("matrix and rhs must have the same batch dims, got shapes " + matrix.ToString() +
                           " and " + rhs.ToString());
  }
  *batch = a;
  return Status::OK();
}

}  // namespace

Status SquareMatrix(ShapeContext& ctx) {
  EMBER_RETURN_IF_ERROR(NeedSquare(ctx.input_shape(0), "input"));
  ctx.set_output_shape(0, ctx.input_shape(0));
  return Status::OK();
}

Status MatrixBatch(ShapeContext& ctx) {
  EMBER_RETURN_IF_ERROR(NeedSquare(ctx.input_shape(0), "input"));
  for (size_t i = 0; i < ctx.op().outputs.size(); ++i) {
    ctx.set_output_shape(static_cast<int>(i), Batch(ctx.input_shape(0)));
  }
  return Status::OK();
}

// Attr 0: adjoint (the shape is the same either way).
Status MatrixSolve(ShapeContext& ctx) {
  const Shape& rhs = ctx.input_shape(1);
  Shape batch;
  EMBER_RETURN_IF_ERROR(SolveOperands(ctx.input_shape(0), rhs, true, false, &batch));
  ctx.set_output_shape(0, WithDims(std::move(batch), {Rows(rhs), Cols(rhs)}));
  return Status::OK();
}

// Attrs: 0 lower, 1 adjoint.
Status TriangularSolve(ShapeContext& ctx) {
  const Shape& rhs = ctx.input_shape(1);
  Shape batch;
  EMBER_RETURN_IF_ERROR(SolveOperands(ctx.input_shape(0), rhs, true, true, &batch));
  ctx.set_output_shape(0, WithDims(std::move(batch), {Rows(rhs), Cols(rhs)}));
  return Status::OK();
}

// Attrs: 0 l2_regularizer, 1 fast.
Status MatrixSolveLs(ShapeContext& ctx) {
  const Shape& matrix = ctx.input_shape(0);
  const double l2 = ctx.attr(0).as_float();
  if (!(l2 >= 0)) return InvalidArgument("l2_regularizer must be non-negative, got " + std::to_string(l2));
  Shape batch;
  EMBER_RETURN_IF_ERROR(SolveOperands(matrix, ctx.input_shape(1), false, false, &batch));
  ctx.set_output_shape(0, WithDims(std::move(batch), {Cols(matrix), Cols(ctx.input_shape(1))}));
  return Status::OK();
}

// Attr 0: full_matrices.
Status Qr(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  EMBER_RETURN_IF_ERROR(NeedMatrices(in, "input"));
  const int64_t m = Rows(in), n = Cols(in);
  const int64_t p = ctx.attr(0).as_bool() ? m : MinDim(m, n);
  ctx.set_output_shape(0, WithDims(Batch(in), {m, p}));
  ctx.set_output_shape(1, WithDims(Batch(in), {p, n}));
  return Status::OK();
}

// Attrs: 0 compute_uv, 1 full_matrices. Without compute_uv u and v are [0].
Status Svd(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  EMBER_RETURN_IF_ERROR(NeedMatrices(in, "input"));
  const int64_t m = Rows(in), n = Cols(in), p = MinDim(m, n);
  const bool full = ctx.attr(1).as_bool();
  ctx.set_output_shape(0, WithDims(Batch(in), {p}));
  if (ctx.attr(0).as_bool()) {
    ctx.set_output_shape(1, WithDims(Batch(in), {m, full ? m : p}));
    ctx.set_output_shape(2, WithDims(Batch(in), {n, full ? n : p}));
  } else {
    ctx.set_output_shape(1, WithDims(Shape(), {0}));
    ctx.set_output_shape(2, WithDims(Shape(), {0}));
  }
  return Status::OK();
}

// Attr 0: compute_v. Without it v is [0].
Status SelfAdjointEig(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  EMBER_RETURN_IF_ERROR(NeedSquare(in, "input"));
  ctx.set_output_shape(0, WithDims(Batch(in), {Rows(in)}));
  ctx.set_output_shape(1, ctx.attr(0).as_bool() ? in : WithDims(Shape(), {0}));
  return Status::OK();
}

}  // namespace ember::shape_fns

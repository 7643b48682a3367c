// Tests the shape functions of the matrix decompositions and solvers
// (ops/shape_fns/matrix.cc): every output's shape and the error messages.
#include <vector>

#include <gtest/gtest.h>

#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

constexpr int64_t kU = Shape::kUnknownDim;

struct Result {
  Status status;
  std::vector<Shape> shapes;
};

// Runs `fn` for an op with `num_outputs` outputs.
Result RunShapeFn(ShapeFn fn, std::vector<Shape> inputs, AttrList attrs = {}, int num_outputs = 1) {
  OpDef def;
  def.name = "test_op";
  def.outputs.resize(num_outputs);
  std::vector<DType> dtypes(inputs.size(), DType::kFloat32);
  Shape out[3];
  ShapeContext ctx(def, inputs.data(), dtypes.data(), static_cast<int>(inputs.size()), attrs, out);
  Result r;
  r.status = fn(ctx);
  r.shapes.assign(out, out + num_outputs);
  return r;
}

void ExpectShapes(const Result& r, const std::vector<Shape>& want) {
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.shapes.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r.shapes[i], want[i]) << i << ": " << r.shapes[i].ToString();
}

void ExpectError(const Result& r, const std::string& message) {
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status.message(), message);
}

AttrValue B(bool v) { return AttrValue(v); }

TEST(MatrixShapeFnsTest, SquareMatrixAndBatch) {
  ExpectShapes(RunShapeFn(SquareMatrix, {Shape{2, 3, 3}}), {Shape{2, 3, 3}});
  ExpectShapes(RunShapeFn(SquareMatrix, {Shape{0, 0}}), {Shape{0, 0}});
  ExpectShapes(RunShapeFn(SquareMatrix, {Shape{kU, 3}}), {Shape{kU, 3}});
  ExpectError(RunShapeFn(SquareMatrix, {Shape{2, 3}}), "input must be square matrices, got shape [2, 3]");
  ExpectError(RunShapeFn(SquareMatrix, {Shape{3}}), "input must have rank >= 2, got shape [3]");
  ExpectShapes(RunShapeFn(MatrixBatch, {Shape{4, 2, 2}}, {}, 2), {Shape{4}, Shape{4}});
  ExpectShapes(RunShapeFn(MatrixBatch, {Shape{2, 2}}), {Shape{}});
  ExpectError(RunShapeFn(MatrixBatch, {Shape{2, 1}}), "input must be square matrices, got shape [2, 1]");
}

TEST(MatrixShapeFnsTest, Solves) {
  ExpectShapes(RunShapeFn(MatrixSolve, {Shape{2, 3, 3}, Shape{2, 3, 5}}, {B(false)}), {Shape{2, 3, 5}});
  ExpectError(RunShapeFn(MatrixSolve, {Shape{2, 3, 3}, Shape{1, 3, 5}}, {B(false)}),
              "matrix and rhs must have the same batch dims, got shapes [2, 3, 3] and [1, 3, 5]");
  ExpectError(RunShapeFn(MatrixSolve, {Shape{3, 3}, Shape{2, 5}}, {B(false)}),
              "matrix and rhs must have the same number of rows, got shapes [3, 3] and [2, 5]");
  ExpectError(RunShapeFn(MatrixSolve, {Shape{3, 3}, Shape{3}}, {B(false)}), "rhs must have rank >= 2, got shape [3]");
  // Triangular solves broadcast the batch dims.
  ExpectShapes(RunShapeFn(TriangularSolve, {Shape{2, 1, 3, 3}, Shape{4, 3, 2}}, {B(true), B(false)}), {Shape{2, 4, 3, 2}});
  ExpectError(RunShapeFn(TriangularSolve, {Shape{2, 3, 3}, Shape{3, 3, 2}}, {B(true), B(false)}),
              "batch dims of matrix [2, 3, 3] and rhs [3, 3, 2] do not broadcast");
  ExpectShapes(RunShapeFn(MatrixSolveLs, {Shape{5, 3}, Shape{5, 2}}, {AttrValue(0.0), B(true)}), {Shape{3, 2}});
  ExpectError(RunShapeFn(MatrixSolveLs, {Shape{5, 3}, Shape{5, 2}}, {AttrValue(-1.0), B(true)}),
              "l2_regularizer must be non-negative, got -1.000000");
}

TEST(MatrixShapeFnsTest, Decompositions) {
  ExpectShapes(RunShapeFn(Qr, {Shape{2, 5, 3}}, {B(false)}, 2), {Shape{2, 5, 3}, Shape{2, 3, 3}});
  ExpectShapes(RunShapeFn(Qr, {Shape{5, 3}}, {B(true)}, 2), {Shape{5, 5}, Shape{5, 3}});
  ExpectShapes(RunShapeFn(Qr, {Shape{3, 5}}, {B(false)}, 2), {Shape{3, 3}, Shape{3, 5}});
  ExpectShapes(RunShapeFn(Svd, {Shape{2, 5, 3}}, {B(true), B(false)}, 3), {Shape{2, 3}, Shape{2, 5, 3}, Shape{2, 3, 3}});
  ExpectShapes(RunShapeFn(Svd, {Shape{5, 3}}, {B(true), B(true)}, 3), {Shape{3}, Shape{5, 5}, Shape{3, 3}});
  ExpectShapes(RunShapeFn(Svd, {Shape{5, 3}}, {B(false), B(false)}, 3), {Shape{3}, Shape{0}, Shape{0}});
  ExpectShapes(RunShapeFn(Svd, {Shape{kU, 0}}, {B(true), B(false)}, 3), {Shape{0}, Shape{kU, 0}, Shape{0, 0}});
  ExpectShapes(RunShapeFn(SelfAdjointEig, {Shape{2, 4, 4}}, {B(true)}, 2), {Shape{2, 4}, Shape{2, 4, 4}});
  ExpectShapes(RunShapeFn(SelfAdjointEig, {Shape{4, 4}}, {B(false)}, 2), {Shape{4}, Shape{0}});
  ExpectError(RunShapeFn(SelfAdjointEig, {Shape{4, 3}}, {B(true)}, 2), "input must be square matrices, got shape [4, 3]");
  ExpectError(RunShapeFn(Svd, {Shape{4}}, {B(true), B(true)}, 3), "input must have rank >= 2, got shape [4]");
}

}  // namespace
}  // namespace ember::shape_fns

// Tests the shape functions of the segment, counting and searching ops and
// of the random permutation and sampling ops (ops/shape_fns/segments.cc,
// random.cc): result shapes, unknown dims and error messages.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ops/op_ids.gen.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

constexpr int64_t kU = Shape::kUnknownDim;

struct Result {
  Status status;
  Shape shape;
};

Result RunFn(ShapeFn fn, std::vector<Shape> inputs, AttrList attrs = {}) {
  static const OpDef* def = [] {
    auto* d = new OpDef();
    d->id = OpId::kAdd;
    d->name = "test_op";
    return d;
  }();
  std::vector<DType> dtypes(inputs.size(), DType::kFloat32);
  Shape out[1];
  ShapeContext ctx(*def, inputs.data(), dtypes.data(), static_cast<int>(inputs.size()), attrs, out);
  Result r{fn(ctx), out[0]};
  return r;
}

AttrValue Int(int64_t v) { return AttrValue(v); }

void ExpectShape(const Result& r, const Shape& want) {
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.shape, want) << r.shape.ToString();
}

void ExpectError(const Result& r, const std::string& message) {
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status.message(), message);
}

TEST(SegmentShapeFnsTest, SortedSegments) {
  ExpectShape(RunFn(SegmentReduce, {Shape{6, 3}, Shape{6}}, {Int(4)}), Shape{4, 3});
  ExpectShape(RunFn(SegmentReduce, {Shape{kU, 3}, Shape{6}}, {Int(4)}), Shape{4, 3});
  ExpectError(RunFn(SegmentReduce, {Shape{6, 3}, Shape{6, 1}}, {Int(4)}), "segment_ids must be 1-D, got shape [6, 1]");
  ExpectError(RunFn(SegmentReduce, {Shape{6}, Shape{6}}, {Int(-1)}), "num_segments must be >= 0, got -1");
}

TEST(SegmentShapeFnsTest, UnsortedSegments) {
  ExpectShape(RunFn(UnsortedSegmentReduce, {Shape{4, 3, 2}, Shape{4, 3}}, {Int(5)}), Shape{5, 2});
  ExpectShape(RunFn(UnsortedSegmentReduce, {Shape{}, Shape{}}, {Int(2)}), Shape{2});
  ExpectError(RunFn(UnsortedSegmentReduce, {Shape{4, 3}, Shape{3}}, {Int(2)}),
              "segment_ids.shape = [3] must be a prefix of data.shape = [4, 3]");
}

TEST(SegmentShapeFnsTest, CountingAndSearching) {
  ExpectShape(RunFn(DenseBincount, {Shape{2, 5}, Shape{0}}, {Int(7), AttrValue(false)}), Shape{2, 7});
  ExpectError(RunFn(DenseBincount, {Shape{2, 5}, Shape{2, 4}}, {Int(7), AttrValue(false)}),
              "weights must have the input's shape [2, 5] or no elements, got [2, 4]");
  ExpectShape(RunFn(HistogramFixedWidth, {Shape{3, 3}, Shape{2}}, {Int(10), AttrValue(DType::kInt32)}), Shape{10});
  ExpectError(RunFn(HistogramFixedWidth, {Shape{3}, Shape{2}}, {Int(0), AttrValue(DType::kInt32)}),
              "nbins should be a positive number, but got 0");
  ExpectShape(RunFn(Searchsorted, {Shape{4, 5}, Shape{2, 2, 3}}, {AttrValue(std::string("left")),
                                                               AttrValue(DType::kInt32)}),
              Shape{2, 2, 3});
  ExpectError(RunFn(Searchsorted, {Shape{2, 5}, Shape{3, 1}}, {AttrValue(std::string("right")),
                                                            AttrValue(DType::kInt32)}),
              "Leading dim_size of both tensors must match: sorted_sequence [2, 5] has 2 rows, values [3, 1] has 3");
  ExpectShape(RunFn(UniqueIndex, {Shape{9}}, {AttrValue(DType::kInt64)}), Shape{9});
}

TEST(SegmentShapeFnsTest, ReverseSequence) {
  ExpectShape(RunFn(ReverseSequence, {Shape{2, 3, 4}, Shape{4}}, {Int(1), Int(-1)}), Shape{2, 3, 4});
  ExpectError(RunFn(ReverseSequence, {Shape{2, 3}, Shape{2}}, {AttrValue(), AttrValue()}), "seq_axis is required");
  ExpectError(RunFn(ReverseSequence, {Shape{2, 3}, Shape{3}}, {Int(1), AttrValue()}),
              "seq_lengths has 3 entries, input.shape[batch_axis] = 2");
}

TEST(SegmentShapeFnsTest, RandomShuffleAndCategorical) {
  ExpectShape(RunFn(RandomShuffle, {Shape{5, 2}, Shape{2}}), Shape{5, 2});
  ExpectError(RunFn(RandomShuffle, {Shape{5}, Shape{3}}), "seed must have shape [2], got [3]");
  ExpectShape(RunFn(Categorical, {Shape{3, 4}, Shape{2}}, {Int(8), AttrValue(DType::kInt64)}), Shape{3, 8});
  ExpectError(RunFn(Categorical, {Shape{4}, Shape{2}}, {Int(8), AttrValue(DType::kInt64)}),
              "logits should be a matrix, got shape [4]");
}

}  // namespace
}  // namespace ember::shape_fns

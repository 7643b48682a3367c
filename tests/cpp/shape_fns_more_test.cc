// Tests the newer shape functions (movement, sorting, nn, lists, random):
// a few result shapes each and one error message, including list inputs
// (arg_starts) and list outputs (set_num_outputs).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ops/op_ids.gen.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

// The status and every output shape of one shape-function call.
struct Result {
  Status status;
  std::vector<Shape> shapes;
};

// Runs `fn` through the runtime's form of ShapeContext: `num_outputs` fixed
// outputs to start with (a list output resizes them), and `arg_starts` when
// input 0 is a list (empty: no list inputs).
Result RunFn(ShapeFn fn, std::vector<Shape> inputs, AttrList attrs = {}, int num_outputs = 1,
           std::vector<int> arg_starts = {}) {
  static const OpDef* def = [] {
    auto* d = new OpDef();
    d->id = OpId::kAdd;
    d->name = "test_op";
    return d;
  }();
  std::vector<DType> dtypes(inputs.size(), DType::kFloat32);
  Result r;
  r.shapes.resize(num_outputs);
  ShapeContext ctx(*def, inputs.data(), dtypes.data(), static_cast<int>(inputs.size()), attrs,
                   &r.shapes, arg_starts.empty() ? nullptr : arg_starts.data());
  r.status = fn(ctx);
  return r;
}

// A list input of every input: arg_starts {0, n}.
Result RunList(ShapeFn fn, std::vector<Shape> inputs, AttrList attrs = {}) {
  const int n = static_cast<int>(inputs.size());
  return RunFn(fn, std::move(inputs), std::move(attrs), 1, {0, n});
}

AttrValue I(int64_t v) { return AttrValue(v); }
AttrValue B(bool v) { return AttrValue(v); }
AttrValue S(const char* v) { return AttrValue(std::string(v)); }
AttrValue L(std::vector<int64_t> v) { return AttrValue(std::move(v)); }
AttrValue None() { return AttrValue(); }

void ExpectShapes(const Result& r, const std::vector<Shape>& expected) {
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.shapes.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.shapes[i], expected[i]) << "output " << i << ": " << r.shapes[i].ToString();
  }
}

#define EXPECT_SHAPE(result, ...) ExpectShapes((result), {Shape(__VA_ARGS__)})

void ExpectError(const Result& r, const std::string& message) {
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status.message(), message);
}

// --- Movement -------------------------------------------------------------------

TEST(MovementShapeFnsTest, ExpandDims) {
  EXPECT_SHAPE(RunFn(ExpandDims, {Shape{2, 3}}, {I(0)}), {1, 2, 3});
  EXPECT_SHAPE(RunFn(ExpandDims, {Shape{2, 3}}, {I(-1)}), {2, 3, 1});
  EXPECT_SHAPE(RunFn(ExpandDims, {Shape{}}, {I(0)}), {1});
  ExpectError(RunFn(ExpandDims, {Shape{2, 3}}, {I(3)}),
              "axis 3 is out of range for inserting a dimension into rank 2 (expected [-3, 2])");
}

TEST(MovementShapeFnsTest, Squeeze) {
  EXPECT_SHAPE(RunFn(Squeeze, {Shape{1, 2, 1}}, {None()}), {2});
  EXPECT_SHAPE(RunFn(Squeeze, {Shape{1, 2, 1}}, {L({0})}), {2, 1});
  EXPECT_SHAPE(RunFn(Squeeze, {Shape{1, 2, 1}}, {L({-1})}), {1, 2});
  ExpectError(RunFn(Squeeze, {Shape{1, 2, 1}}, {L({1})}),
              "Can not squeeze dim[1], expected a dimension of 1, got 2 (input shape [1, 2, 1])");
}

TEST(MovementShapeFnsTest, Tile) {
  EXPECT_SHAPE(RunFn(Tile, {Shape{2, 3}}, {L({2, 1})}), {4, 3});
  EXPECT_SHAPE(RunFn(Tile, {Shape{2, 3}}, {L({0, 2})}), {0, 6});
  ExpectError(RunFn(Tile, {Shape{2, 3}}, {L({2})}),
              "multiples [2] must have one entry per dimension of the input, shape [2, 3]");
}

TEST(MovementShapeFnsTest, Pad) {
  EXPECT_SHAPE(RunFn(Pad, {Shape{2, 3}}, {L({1, 1, 0, 2}), S("CONSTANT")}), {4, 5});
  EXPECT_SHAPE(RunFn(Pad, {Shape{3}}, {L({2, 2}), S("REFLECT")}), {7});
  EXPECT_SHAPE(RunFn(Pad, {Shape{3}}, {L({3, 3}), S("symmetric")}), {9});
  ExpectError(RunFn(Pad, {Shape{3}}, {L({3, 0}), S("REFLECT")}),
              "paddings 3, 0 of dimension 0 must be at most 2 in REFLECT mode for input shape [3]");
  ExpectError(RunFn(Pad, {Shape{3}}, {L({1, 1}), S("wrap")}),
              "mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got 'wrap'");
}

TEST(MovementShapeFnsTest, Slice) {
  EXPECT_SHAPE(RunFn(Slice, {Shape{4, 5}}, {L({1, 0}), L({2, -1})}), {2, 5});
  EXPECT_SHAPE(RunFn(Slice, {Shape{4, 5}}, {L({4, 0}), L({0, 5})}), {0, 5});
  ExpectError(RunFn(Slice, {Shape{4, 5}}, {L({5, 0}), L({1, 1})}),
              "begin[0] = 5 is not in [0, 4] for input shape [4, 5]");
}

// Attrs: begin, end, strides, begin_mask, end_mask, ellipsis_mask,
// new_axis_mask, shrink_axis_mask.
Result RunStridedSlice(Shape in, std::vector<int64_t> begin, std::vector<int64_t> end,
                       std::vector<int64_t> strides, int64_t begin_mask = 0, int64_t end_mask = 0,
                       int64_t ellipsis_mask = 0, int64_t new_axis_mask = 0,
                       int64_t shrink_axis_mask = 0) {
  return RunFn(StridedSlice, {in},
             {L(begin), L(end), L(strides), I(begin_mask), I(end_mask), I(ellipsis_mask),
              I(new_axis_mask), I(shrink_axis_mask)});
}

TEST(MovementShapeFnsTest, StridedSlice) {
  EXPECT_SHAPE(RunStridedSlice({5, 6}, {1, 0}, {4, 6}, {1, 2}), {3, 3});
  // x[::-1]: a masked end with a negative stride runs to the front.
  EXPECT_SHAPE(RunStridedSlice({5, 6}, {-1}, {0}, {-1}, 0, 1), {5, 6});
  // x[2] shrinks the first dim; x[None] adds one; x[..., 1:3] slices the last.
  EXPECT_SHAPE(RunStridedSlice({5, 6}, {2}, {3}, {1}, 0, 0, 0, 0, 1), {6});
  EXPECT_SHAPE(RunStridedSlice({5, 6}, {0}, {0}, {1}, 0, 0, 0, 1), {1, 5, 6});
  EXPECT_SHAPE(RunStridedSlice({4, 5, 6}, {0, 1}, {0, 3}, {1, 1}, 0, 0, 1), {4, 5, 2});
  // Out-of-range bounds clamp, as in Python.
  EXPECT_SHAPE(RunStridedSlice({5}, {-10}, {10}, {2}), {3});
  ExpectError(RunStridedSlice({5, 6}, {0}, {5}, {0}), "strides[0] must be non-zero");
  ExpectError(RunStridedSlice({5, 6}, {7}, {8}, {1}, 0, 0, 0, 0, 1),
              "slice index 7 of dimension 0 out of bounds for shape [5, 6]");
  // A traced input's unknown dim (Note [Unknown dims in strided_slice]): a
  // shrunk index is checked when the graph runs; a slice's length is unknown.
  constexpr int64_t kU = Shape::kUnknownDim;
  EXPECT_SHAPE(RunStridedSlice({kU, 2}, {-1}, {0}, {1}, 0, 0, 0, 0, 1), {2});
  EXPECT_SHAPE(RunStridedSlice({kU, 2}, {1}, {0}, {1}, 0, 1), {kU, 2});
  EXPECT_SHAPE(RunStridedSlice({2, kU}, {0, 1}, {1, 2}, {1, 1}, 0, 0, 0, 0, 3), {});
  ExpectError(RunStridedSlice({kU, 2}, {0}, {1}, {0}), "strides[0] must be non-zero");
}

TEST(MovementShapeFnsTest, Gather) {
  EXPECT_SHAPE(RunFn(Gather, {Shape{5, 3}, Shape{2, 4}}, {None(), I(0)}), {2, 4, 3});
  EXPECT_SHAPE(RunFn(Gather, {Shape{5, 3}, Shape{2, 4}}, {I(1), I(0)}), {5, 2, 4});
  EXPECT_SHAPE(RunFn(Gather, {Shape{5, 3}, Shape{}}, {I(-1), I(0)}), {5});
  EXPECT_SHAPE(RunFn(Gather, {Shape{2, 5, 3}, Shape{2, 4}}, {I(1), I(1)}), {2, 4, 3});
  ExpectError(RunFn(Gather, {Shape{}, Shape{2}}, {None(), I(0)}),
              "params must be at least a vector, got a scalar");
  ExpectError(RunFn(Gather, {Shape{3, 5}, Shape{2, 4}}, {I(1), I(1)}),
              "params.shape[:1] [3] must equal indices.shape[:1] [2]");
}

TEST(MovementShapeFnsTest, GatherNd) {
  EXPECT_SHAPE(RunFn(GatherNd, {Shape{4, 5, 6}, Shape{3, 2}}, {I(0)}), {3, 6});
  EXPECT_SHAPE(RunFn(GatherNd, {Shape{4, 5, 6}, Shape{3}}, {I(0)}), {});
  EXPECT_SHAPE(RunFn(GatherNd, {Shape{4, 5, 6}, Shape{4, 7, 1}}, {I(1)}), {4, 7, 6});
  ExpectError(RunFn(GatherNd, {Shape{4, 5}, Shape{3, 3}}, {I(0)}),
              "indices.shape[-1] = 3 must be at most the rank of params (2) minus batch_dims (0)");
}

TEST(MovementShapeFnsTest, BroadcastToAndReverse) {
  EXPECT_SHAPE(RunFn(BroadcastTo, {Shape{3, 1}}, {L({2, 3, 4})}), {2, 3, 4});
  ExpectError(RunFn(BroadcastTo, {Shape{3, 2}}, {L({3, 4})}),
              "Unable to broadcast a tensor of shape [3, 2] to shape [3, 4]");
  EXPECT_SHAPE(RunFn(Reverse, {Shape{3, 2}}, {L({0, -1})}), {3, 2});
  ExpectError(RunFn(Reverse, {Shape{3, 2}}, {L({0, -2})}), "axis [0, -2] has a duplicate dimension 0");
}

TEST(MovementShapeFnsTest, Concat) {
  EXPECT_SHAPE(RunList(Concat, {Shape{2, 3}, Shape{4, 3}}, {I(0)}), {6, 3});
  EXPECT_SHAPE(RunList(Concat, {Shape{2, 3}, Shape{2, 0}, Shape{2, 1}}, {I(-1)}), {2, 4});
  EXPECT_SHAPE(RunList(Concat, {Shape{2, 3}}, {I(1)}), {2, 3});
  ExpectError(RunList(Concat, {Shape{2, 3}, Shape{2, 4}}, {I(0)}),
              "values[0] has shape [2, 3] and values[1] has shape [2, 4]: all dimensions but axis 0 must match");
  ExpectError(RunList(Concat, {Shape{}, Shape{}}, {I(0)}), "Can't concatenate scalars (use stack instead)");
}

TEST(MovementShapeFnsTest, Stack) {
  EXPECT_SHAPE(RunList(Stack, {Shape{2, 3}, Shape{2, 3}, Shape{2, 3}}, {I(0)}), {3, 2, 3});
  EXPECT_SHAPE(RunList(Stack, {Shape{2, 3}, Shape{2, 3}}, {I(-1)}), {2, 3, 2});
  EXPECT_SHAPE(RunList(Stack, {Shape{}, Shape{}}, {I(0)}), {2});
  ExpectError(RunList(Stack, {Shape{2, 3}, Shape{3, 2}}, {I(0)}),
              "values[0] has shape [2, 3] and values[1] has shape [3, 2]: all shapes must match");
}

TEST(MovementShapeFnsTest, ListInputsFollowArgStarts) {
  // Only the inputs of argument 0 count, wherever they start.
  ExpectShapes(RunFn(Concat, {Shape{1, 3}, Shape{2, 3}}, {I(0)}, 1, {0, 2}), {Shape{3, 3}});
  ExpectShapes(RunFn(Concat, {Shape{1, 3}, Shape{2, 3}}, {I(0)}, 1, {1, 2}), {Shape{2, 3}});
}

TEST(MovementShapeFnsTest, UnstackSetsTheNumberOfOutputs) {
  ExpectShapes(RunFn(Unstack, {Shape{3, 2}}, {None(), I(0)}), {Shape{2}, Shape{2}, Shape{2}});
  ExpectShapes(RunFn(Unstack, {Shape{3, 2}}, {I(2), I(-1)}), {Shape{3}, Shape{3}});
  ExpectShapes(RunFn(Unstack, {Shape{0, 2}}, {None(), I(0)}), {});
  ExpectError(RunFn(Unstack, {Shape{3, 2}}, {I(3), I(1)}),
              "num 3 does not match dimension 1 of the input, shape [3, 2]");
  ExpectError(RunFn(Unstack, {Shape{}}, {None(), I(0)}), "Can't unstack a scalar");
}

TEST(MovementShapeFnsTest, SplitSetsTheNumberOfOutputs) {
  ExpectShapes(RunFn(Split, {Shape{6, 2}}, {L({1, 2, 3}), I(0)}), {Shape{1, 2}, Shape{2, 2}, Shape{3, 2}});
  ExpectShapes(RunFn(Split, {Shape{6, 5}}, {L({2, -1}), I(1)}), {Shape{6, 2}, Shape{6, 3}});
  ExpectError(RunFn(Split, {Shape{6, 2}}, {L({1, 2}), I(0)}),
              "size_splits [1, 2] must sum to the size of dimension 0 (6) of the input, shape [6, 2]");
  ExpectError(RunFn(Split, {Shape{6, 2}}, {L({2, 2}), I(2)}),
              "axis 2 is out of range for a tensor of rank 2 (expected [-2, 2))");
}

// --- Sorting ----------------------------------------------------------------------

TEST(SortingShapeFnsTest, TopKSetsBothOutputs) {
  ExpectShapes(RunFn(TopK, {Shape{3, 5}}, {I(2), B(true)}, 2), {Shape{3, 2}, Shape{3, 2}});
  ExpectShapes(RunFn(TopK, {Shape{5}}, {I(0), B(false)}, 2), {Shape{0}, Shape{0}});
  ExpectError(RunFn(TopK, {Shape{3, 5}}, {I(6), B(true)}, 2),
              "input must have at least k=6 columns, got shape [3, 5]");
  ExpectError(RunFn(TopK, {Shape{}}, {I(1), B(true)}, 2), "input must have rank >= 1, got shape []");
}

TEST(SortingShapeFnsTest, ArgReduce) {
  EXPECT_SHAPE(RunFn(ArgReduce, {Shape{3, 4}}, {None(), AttrValue(DType::kInt64)}), {4});
  EXPECT_SHAPE(RunFn(ArgReduce, {Shape{3, 4}}, {I(-1), AttrValue(DType::kInt32)}), {3});
  EXPECT_SHAPE(RunFn(ArgReduce, {Shape{3}}, {I(0), AttrValue(DType::kInt64)}), {});
  ExpectError(RunFn(ArgReduce, {Shape{3, 0}}, {I(1), AttrValue(DType::kInt64)}),
              "Reduction axis 1 is empty in shape [3, 0]");
  ExpectError(RunFn(ArgReduce, {Shape{3, 4}}, {I(2), AttrValue(DType::kInt64)}),
              "axis 2 is out of range for input of rank 2 (axis must be in [-2, 2))");
}

// --- Neural networks -----------------------------------------------------------------

// Attrs: strides, padding, data_format, dilations, explicit_paddings.
Result RunConv(Shape input, Shape filters, std::vector<int64_t> strides, const char* padding,
               const char* format = "NHWC", std::vector<int64_t> dilations = {1, 1},
               std::vector<int64_t> explicit_paddings = {}) {
  return RunFn(Conv2d, {input, filters},
             {L(strides), S(padding), S(format), L(dilations), L(explicit_paddings)});
}

TEST(NnShapeFnsTest, Conv2d) {
  EXPECT_SHAPE(RunConv({2, 5, 5, 3}, {3, 3, 3, 8}, {1, 1}, "SAME"), {2, 5, 5, 8});
  EXPECT_SHAPE(RunConv({2, 5, 5, 3}, {3, 3, 3, 8}, {1, 1}, "VALID"), {2, 3, 3, 8});
  EXPECT_SHAPE(RunConv({2, 5, 5, 3}, {3, 3, 3, 8}, {2, 2}, "SAME"), {2, 3, 3, 8});
  EXPECT_SHAPE(RunConv({2, 7, 6, 3}, {3, 3, 3, 8}, {2, 1}, "VALID"), {2, 3, 4, 8});
  // Dilation 2 makes a 3x3 window cover 5x5.
  EXPECT_SHAPE(RunConv({1, 7, 7, 3}, {3, 3, 3, 4}, {1, 1}, "VALID", "NHWC", {2, 2}), {1, 3, 3, 4});
  EXPECT_SHAPE(RunConv({1, 3, 7, 7}, {3, 3, 3, 4}, {1, 1, 1, 1}, "VALID", "NCHW"), {1, 4, 5, 5});
  EXPECT_SHAPE(RunConv({1, 5, 5, 3}, {3, 3, 3, 4}, {1, 1}, "EXPLICIT", "NHWC", {1, 1},
                       {0, 0, 1, 2, 0, 1, 0, 0}),
               {1, 6, 4, 4});
  // Grouped: 6 input channels, filters of depth 3 -> 2 groups.
  EXPECT_SHAPE(RunConv({1, 4, 4, 6}, {1, 1, 3, 4}, {1, 1}, "VALID"), {1, 4, 4, 4});
  ExpectError(RunConv({1, 2, 2, 3}, {3, 3, 3, 4}, {1, 1}, "VALID"),
              "the height dim of the input (2) is smaller than the effective window size 3");
  ExpectError(RunConv({1, 5, 5, 3}, {3, 3, 3, 4}, {1, 1}, "FULL"),
              "padding must be 'SAME', 'VALID' or 'EXPLICIT', got 'FULL'");
  ExpectError(RunConv({1, 5, 5, 4}, {3, 3, 3, 4}, {1, 1}, "SAME"),
              "input depth 4 is not a multiple of the filters' input depth 3 (input [1, 5, 5, 4], filters [3, 3, 3, 4])");
  ExpectError(RunConv({5, 5, 3}, {3, 3, 3, 4}, {1, 1}, "SAME"), "input must be 4-D, got shape [5, 5, 3]");
}

// Attrs: ksize, strides, padding, data_format, explicit_paddings.
Result RunPool(Shape input, std::vector<int64_t> ksize, std::vector<int64_t> strides, const char* padding,
               const char* format = "NHWC", std::vector<int64_t> explicit_paddings = {}) {
  return RunFn(Pool2d, {input}, {L(ksize), L(strides), S(padding), S(format), L(explicit_paddings)});
}

TEST(NnShapeFnsTest, Pool2d) {
  EXPECT_SHAPE(RunPool({2, 6, 6, 3}, {2, 2}, {2, 2}, "VALID"), {2, 3, 3, 3});
  EXPECT_SHAPE(RunPool({2, 5, 5, 3}, {3}, {2}, "SAME"), {2, 3, 3, 3});
  EXPECT_SHAPE(RunPool({2, 3, 6, 6}, {1, 1, 2, 2}, {1, 1, 2, 2}, "VALID", "NCHW"), {2, 3, 3, 3});
  ExpectError(RunPool({2, 6, 6, 3}, {2, 2, 1, 1}, {2, 2}, "VALID"),
              "ksize [2, 2, 1, 1] must be 1 in the batch and channel dims");
  ExpectError(RunPool({2, 6, 6, 3}, {2, 2}, {2, 2}, "EXPLICIT", "NHWC", {0, 0, 2, 0, 0, 0, 0, 0}),
              "explicit padding of the height dim (2, 0) must be smaller than the window size 2");
}

TEST(NnShapeFnsTest, Softmax) {
  EXPECT_SHAPE(RunFn(Softmax, {Shape{2, 5}}, {I(-1)}), {2, 5});
  EXPECT_SHAPE(RunFn(Softmax, {Shape{2, 5, 3}}, {I(1)}), {2, 5, 3});
  ExpectError(RunFn(Softmax, {Shape{}}, {I(-1)}), "logits must have rank >= 1, got shape []");
  ExpectError(RunFn(Softmax, {Shape{2, 5}}, {I(2)}), "axis 2 is out of range for rank 2");
}

// --- Element-wise and lists ---------------------------------------------------------------

TEST(ListShapeFnsTest, AddN) {
  EXPECT_SHAPE(RunFn(AddN, {Shape{2, 3}, Shape{2, 3}, Shape{2, 3}}), {2, 3});
  EXPECT_SHAPE(RunFn(AddN, {Shape{}}), {});
  ExpectError(RunFn(AddN, {Shape{2, 3}, Shape{3}}),
              "all inputs must have the same shape: inputs[0] is [2, 3], inputs[1] is [3]");
}

TEST(ListShapeFnsTest, BroadcastAll) {
  EXPECT_SHAPE(RunFn(BroadcastAll, {Shape{2, 1}, Shape{3}, Shape{}}), {2, 3});
  EXPECT_SHAPE(RunFn(BroadcastAll, {Shape{4, 1, 1}, Shape{1, 5, 1}, Shape{1, 1, 6}}), {4, 5, 6});
  EXPECT_SHAPE(RunFn(BroadcastAll, {Shape{0, 1}, Shape{1, 3}}), {0, 3});
  ExpectError(RunFn(BroadcastAll, {Shape{2, 1}, Shape{3}, Shape{4}}),
              "Incompatible shapes: [2, 1] vs. [3] vs. [4]");
}

TEST(ListShapeFnsTest, IdentityNSetsOneOutputPerInput) {
  ExpectShapes(RunFn(IdentityN, {Shape{2}, Shape{}, Shape{0, 3}}, {}, 1, {0, 3}),
               {Shape{2}, Shape{}, Shape{0, 3}});
  ExpectShapes(RunFn(IdentityN, {Shape{4, 1}}, {}, 1, {0, 1}), {Shape{4, 1}});
}

// --- Random -----------------------------------------------------------------------------

TEST(RandomShapeFnsTest, StatelessRandom) {
  EXPECT_SHAPE(RunFn(StatelessRandom, {Shape{2}}, {L({3, 4}), AttrValue(0.0), AttrValue(1.0)}), {3, 4});
  EXPECT_SHAPE(RunFn(StatelessRandom, {Shape{2}}, {L({})}), {});
  EXPECT_SHAPE(RunFn(StatelessRandom, {Shape{2}}, {L({0, 5})}), {0, 5});
  EXPECT_SHAPE(RunFn(StatelessRandom, {Shape{Shape::kUnknownDim}}, {L({7})}), {7});
  ExpectError(RunFn(StatelessRandom, {Shape{3}}, {L({4})}), "seed must have shape [2], got [3]");
  ExpectError(RunFn(StatelessRandom, {Shape{1, 2}}, {L({4})}), "seed must have shape [2], got [1, 2]");
  ExpectError(RunFn(StatelessRandom, {Shape{}}, {L({4})}), "seed must have shape [2], got []");
  ExpectError(RunFn(StatelessRandom, {Shape{2}}, {L({4, -1})}),
              "shape must have non-negative dimensions, got [4, -1]");
}

// --- Fourier transforms and image resizing ---------------------------------------

TEST(SignalShapeFnsTest, Fft) {
  EXPECT_SHAPE(RunFn(Fft, {Shape{3, 7}}), {3, 7});
  EXPECT_SHAPE(RunFn(Fft, {Shape{0}}), {0});
  ExpectError(RunFn(Fft, {Shape{}}), "input must have rank >= 1, got a scalar");
}

TEST(SignalShapeFnsTest, RfftAndIrfft) {
  EXPECT_SHAPE(RunFn(Rfft, {Shape{2, 8}}, {None()}), {2, 5});
  EXPECT_SHAPE(RunFn(Rfft, {Shape{2, 7}}, {None()}), {2, 4});
  EXPECT_SHAPE(RunFn(Rfft, {Shape{2, 7}}, {L({12})}), {2, 7});
  EXPECT_SHAPE(RunFn(Rfft, {Shape{2, 0}}, {None()}), {2, 1});
  EXPECT_SHAPE(RunFn(Irfft, {Shape{2, 5}}, {None()}), {2, 8});
  EXPECT_SHAPE(RunFn(Irfft, {Shape{2, 5}}, {L({9})}), {2, 9});
  EXPECT_SHAPE(RunFn(Irfft, {Shape{4, 1}}, {None()}), {4, 0});
  ExpectError(RunFn(Rfft, {Shape{4}}, {L({2, 2})}), "fft_length must hold exactly one int, got [2, 2]");
  ExpectError(RunFn(Rfft, {Shape{4}}, {L({-1})}), "fft_length must be non-negative, got -1");
  ExpectError(RunFn(Irfft, {Shape{4}}, {L({int64_t{1} << 40})}),
              "fft_length 1099511627776 is too large (at most 2^31 - 1)");
  ExpectError(RunFn(Irfft, {Shape{3, 0}}, {None()}),
              "an input of shape [3, 0] has no frequency terms: give fft_length or at least one term");
}

TEST(ImageShapeFnsTest, Resize) {
  EXPECT_SHAPE(RunFn(ImageResize, {Shape{2, 3, 4, 5}}, {L({6, 7})}), {2, 6, 7, 5});
  EXPECT_SHAPE(RunFn(ImageResize, {Shape{0, 3, 4, 0}}, {L({1, 1})}), {0, 1, 1, 0});
  EXPECT_SHAPE(RunFn(ImageResizeGrad, {Shape{2, 6, 7, 5}}, {L({3, 4})}), {2, 3, 4, 5});
  ExpectError(RunFn(ImageResize, {Shape{3, 4, 5}}, {L({6, 7})}),
              "images must have rank 4 [batch, height, width, channels], got shape [3, 4, 5]");
  ExpectError(RunFn(ImageResize, {Shape{1, 0, 4, 1}}, {L({6, 7})}),
              "images must have a height and width in [1, 2^31 - 1], got shape [1, 0, 4, 1]");
  ExpectError(RunFn(ImageResize, {Shape{1, 2, 4, 1}}, {L({6, 0})}),
              "size must be positive (and below 2^31), got [6, 0]");
  ExpectError(RunFn(ImageResizeGrad, {Shape{1, 2, 4, 1}}, {L({6})}), "original_size must be [height, width], got [6]");
}

}  // namespace
}  // namespace ember::shape_fns

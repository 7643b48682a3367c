// Tests the shared shape functions (ops/shape_fns/): results, unknown dims
// and error messages.
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "ops/shape_fns/shape_fns.h"
#include "ops/op_ids.gen.h"

namespace ember::shape_fns {
namespace {

constexpr int64_t kU = Shape::kUnknownDim;

// Runs `fn` on input shapes and attrs; returns the status and output 0.
struct Result {
  Status status;
  Shape shape;
};
Result RunShapeFn(ShapeFn fn, std::vector<Shape> inputs, AttrList attrs = {}) {
  static const OpDef* def = [] {
    auto* d = new OpDef();
    d->id = OpId::kAdd;
    d->name = "test_op";
    return d;
  }();
  std::vector<DType> dtypes(inputs.size(), DType::kFloat32);
  Shape out[1];
  ShapeContext ctx(*def, inputs.data(), dtypes.data(), static_cast<int>(inputs.size()), attrs, out);
  Result r;
  r.status = fn(ctx);
  r.shape = out[0];
  return r;
}

AttrValue List(std::vector<int64_t> v) { return AttrValue(std::move(v)); }
AttrValue None() { return AttrValue(); }

#define EXPECT_SHAPE(result, ...)                               \
  do {                                                          \
    Result _r = (result);                                       \
    ASSERT_TRUE(_r.status.ok()) << _r.status.ToString();        \
    EXPECT_EQ(_r.shape, Shape(__VA_ARGS__)) << _r.shape.ToString(); \
  } while (0)

void ExpectError(const Result& r, const std::string& message) {
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status.message(), message);
}

TEST(ShapeFnsTest, Unchanged) {
  EXPECT_SHAPE(RunShapeFn(Unchanged, {Shape{2, 3}}), {2, 3});
  EXPECT_SHAPE(RunShapeFn(Unchanged, {Shape{}}), {});
}

struct BroadcastCase {
  Shape a, b, expected;
};

TEST(ShapeFnsTest, BroadcastTable) {
  const BroadcastCase cases[] = {
      {{}, {}, {}},
      {{3}, {}, {3}},
      {{}, {2, 3}, {2, 3}},
      {{2, 3}, {3}, {2, 3}},
      {{2, 1}, {1, 3}, {2, 3}},
      {{4, 1, 5}, {3, 1}, {4, 3, 5}},
      {{1, 1}, {1}, {1, 1}},
      {{0}, {1}, {0}},
      {{0, 3}, {1, 3}, {0, 3}},
      {{1}, {0}, {0}},
      {{5, 1, 0}, {4, 1}, {5, 4, 0}},
      // Unknown dims: against 1 or unknown stay unknown, against d take d.
      {{kU, 3}, {2, 3}, {2, 3}},
      {{kU}, {1}, {kU}},
      {{kU}, {kU}, {kU}},
      {{1}, {kU}, {kU}},
      {{kU, 1}, {5}, {kU, 5}},
      {{2, kU}, {kU, 4}, {2, 4}},
  };
  for (const BroadcastCase& c : cases) {
    Shape out;
    ASSERT_TRUE(BroadcastShapes(c.a, c.b, &out).ok()) << c.a.ToString() << " " << c.b.ToString();
    EXPECT_EQ(out, c.expected) << c.a.ToString() << " vs " << c.b.ToString() << " -> " << out.ToString();
    ASSERT_TRUE(BroadcastShapes(c.b, c.a, &out).ok());
    EXPECT_EQ(out, c.expected) << "swapped " << c.a.ToString() << " vs " << c.b.ToString();
  }
}

TEST(ShapeFnsTest, BroadcastErrors) {
  ExpectError(RunShapeFn(BroadcastBinary, {Shape{2, 3}, Shape{4}}), "Incompatible shapes: [2, 3] vs. [4]");
  ExpectError(RunShapeFn(BroadcastBinary, {Shape{2}, Shape{3}}), "Incompatible shapes: [2] vs. [3]");
  ExpectError(RunShapeFn(BroadcastBinary, {Shape{0}, Shape{2}}), "Incompatible shapes: [0] vs. [2]");
  ExpectError(RunShapeFn(BroadcastBinary, {Shape{kU, 2}, Shape{3}}), "Incompatible shapes: [?, 2] vs. [3]");
  EXPECT_SHAPE(RunShapeFn(BroadcastBinary, {Shape{4, 1}, Shape{3}}), {4, 3});
}

TEST(ShapeFnsTest, Matmul) {
  auto mm = [](Shape a, Shape b, bool ta = false, bool tb = false) {
    return RunShapeFn(Matmul, {a, b}, {AttrValue(ta), AttrValue(tb)});
  };
  EXPECT_SHAPE(mm({2, 3}, {3, 4}), {2, 4});
  EXPECT_SHAPE(mm({3, 2}, {3, 4}, true, false), {2, 4});
  EXPECT_SHAPE(mm({2, 3}, {4, 3}, false, true), {2, 4});
  EXPECT_SHAPE(mm({3, 2}, {4, 3}, true, true), {2, 4});
  EXPECT_SHAPE(mm({5, 2, 3}, {3, 4}), {5, 2, 4});
  EXPECT_SHAPE(mm({2, 3}, {7, 3, 4}), {7, 2, 4});
  EXPECT_SHAPE(mm({5, 1, 2, 3}, {4, 3, 6}), {5, 4, 2, 6});
  EXPECT_SHAPE(mm({0, 2, 3}, {3, 4}), {0, 2, 4});
  EXPECT_SHAPE(mm({2, 0}, {0, 4}), {2, 4});
  // Unknown dims are not checked and flow through.
  EXPECT_SHAPE(mm({kU, 3}, {kU, 4}), {kU, 4});
  EXPECT_SHAPE(mm({kU, 2, 3}, {3, 4}), {kU, 2, 4});

  ExpectError(mm({2, 3}, {4, 5}), "Matrix size-incompatible: In[0]: [2, 3], In[1]: [4, 5]");
  ExpectError(mm({2, 3}, {2, 3}, false, false), "Matrix size-incompatible: In[0]: [2, 3], In[1]: [2, 3]");
  ExpectError(mm({2, 3}, {3, 4}, true, false),
              "Matrix size-incompatible: In[0]: [2, 3], In[1]: [3, 4] (transpose_a=true, transpose_b=false)");
  ExpectError(mm({3}, {3, 4}), "Inputs must have rank >= 2, got In[0]: [3], In[1]: [3, 4]");
  ExpectError(mm({2, 3}, {}), "Inputs must have rank >= 2, got In[0]: [2, 3], In[1]: []");
  ExpectError(mm({2, 2, 3}, {3, 3, 4}),
              "Incompatible batch dimensions: In[0]: [2, 2, 3], In[1]: [3, 3, 4]");
}

TEST(ShapeFnsTest, Reduce) {
  EXPECT_SHAPE(RunShapeFn(Reduce, {Shape{2, 3}}, {None(), AttrValue(false)}), {});
  EXPECT_SHAPE(RunShapeFn(Reduce, {Shape{2, 3}}, {None(), AttrValue(true)}), {1, 1});
  EXPECT_SHAPE(RunShapeFn(Reduce, {Shape{2, 3}}, {List({}), AttrValue(false)}), {2, 3});
  EXPECT_SHAPE(RunShapeFn(Reduce, {Shape{2, 3, 4}}, {List({1}), AttrValue(false)}), {2, 4});
  EXPECT_SHAPE(RunShapeFn(Reduce, {Shape{2, 3, 4}}, {List({-1}), AttrValue(true)}), {2, 3, 1});
  EXPECT_SHAPE(RunShapeFn(Reduce, {Shape{2, 3, 4}}, {List({2, 0}), AttrValue(false)}), {3});
  EXPECT_SHAPE(RunShapeFn(Reduce, {Shape{kU, 3}}, {List({1}), AttrValue(false)}), {kU});
  EXPECT_SHAPE(RunShapeFn(Reduce, {Shape{}}, {None(), AttrValue(false)}), {});

  ExpectError(RunShapeFn(Reduce, {Shape{2, 3}}, {List({2}), AttrValue(false)}),
              "Invalid reduction axis 2 for input of rank 2 (axis must be in [-2, 2))");
  ExpectError(RunShapeFn(Reduce, {Shape{2, 3}}, {List({-3}), AttrValue(false)}),
              "Invalid reduction axis -3 for input of rank 2 (axis must be in [-2, 2))");
  ExpectError(RunShapeFn(Reduce, {Shape{2, 3, 4}}, {List({0, -3}), AttrValue(false)}),
              "Duplicate reduction axis -3 in [0, -3]");
  ExpectError(RunShapeFn(Reduce, {Shape{}}, {List({0}), AttrValue(false)}),
              "Invalid reduction axis 0 for input of rank 0 (axis must be in [0, 0))");
}

TEST(ShapeFnsTest, NormalizeAxes) {
  std::vector<bool> reduced;
  ASSERT_TRUE(NormalizeAxes(std::nullopt, 3, &reduced).ok());
  EXPECT_EQ(reduced, std::vector<bool>({true, true, true}));
  ASSERT_TRUE(NormalizeAxes(std::optional<std::vector<int64_t>>(std::vector<int64_t>{}), 3, &reduced).ok());
  EXPECT_EQ(reduced, std::vector<bool>({false, false, false}));
  ASSERT_TRUE(NormalizeAxes(List({-1, 0}), 3, &reduced).ok());
  EXPECT_EQ(reduced, std::vector<bool>({true, false, true}));
  EXPECT_FALSE(NormalizeAxes(List({1, 1}), 3, &reduced).ok());
}

TEST(ShapeFnsTest, Reshape) {
  EXPECT_SHAPE(RunShapeFn(Reshape, {Shape{2, 3}}, {List({3, 2})}), {3, 2});
  EXPECT_SHAPE(RunShapeFn(Reshape, {Shape{2, 3}}, {List({-1})}), {6});
  EXPECT_SHAPE(RunShapeFn(Reshape, {Shape{2, 3}}, {List({3, -1})}), {3, 2});
  EXPECT_SHAPE(RunShapeFn(Reshape, {Shape{}}, {List({1, 1})}), {1, 1});
  EXPECT_SHAPE(RunShapeFn(Reshape, {Shape{1}}, {List({})}), {});
  EXPECT_SHAPE(RunShapeFn(Reshape, {Shape{0, 3}}, {List({3, 0})}), {3, 0});
  EXPECT_SHAPE(RunShapeFn(Reshape, {Shape{0, 3}}, {List({-1, 3})}), {0, 3});
  // Unknown input dims (graph mode): the -1 stays unknown.
  EXPECT_SHAPE(RunShapeFn(Reshape, {Shape{kU, 3}}, {List({-1, 3})}), {kU, 3});

  ExpectError(RunShapeFn(Reshape, {Shape{2, 3}}, {List({4})}),
              "Cannot reshape a tensor of shape [2, 3] (6 elements) into shape [4] (4 elements)");
  ExpectError(RunShapeFn(Reshape, {Shape{2, 3}}, {List({4, -1})}),
              "Cannot reshape a tensor of shape [2, 3] (6 elements) into shape [4, -1]: 6 is not a "
              "multiple of 4");
  ExpectError(RunShapeFn(Reshape, {Shape{2, 3}}, {List({-1, -1})}),
              "Only one dimension of the new shape can be -1, got [-1, -1]");
  ExpectError(RunShapeFn(Reshape, {Shape{2, 3}}, {List({-2, 3})}), "Invalid dimension -2 in new shape [-2, 3]");
  ExpectError(RunShapeFn(Reshape, {Shape{0, 3}}, {List({0, -1})}),
              "Cannot infer the -1 in new shape [0, -1] for a tensor of shape [0, 3] when another "
              "dimension is 0");
}

TEST(ShapeFnsTest, Transpose) {
  EXPECT_SHAPE(RunShapeFn(Transpose, {Shape{2, 3, 4}}, {None()}), {4, 3, 2});
  EXPECT_SHAPE(RunShapeFn(Transpose, {Shape{2, 3, 4}}, {List({1, 0, 2})}), {3, 2, 4});
  EXPECT_SHAPE(RunShapeFn(Transpose, {Shape{}}, {None()}), {});
  EXPECT_SHAPE(RunShapeFn(Transpose, {Shape{kU, 3}}, {List({1, 0})}), {3, kU});

  ExpectError(RunShapeFn(Transpose, {Shape{2, 3}}, {List({0})}),
              "Permutation [0] has 1 entries, but the input has rank 2");
  ExpectError(RunShapeFn(Transpose, {Shape{2, 3}}, {List({0, 2})}),
              "Permutation [0, 2] has entry 2 outside [0, 2)");
  ExpectError(RunShapeFn(Transpose, {Shape{2, 3}}, {List({-1, 0})}),
              "Permutation [-1, 0] has entry -1 outside [0, 2)");
  ExpectError(RunShapeFn(Transpose, {Shape{2, 3}}, {List({1, 1})}), "Permutation [1, 1] repeats 1");
}

TEST(ShapeFnsTest, ShapeFromAttr) {
  EXPECT_SHAPE(RunShapeFn(ShapeFromAttr, {}, {List({2, 3})}), {2, 3});
  EXPECT_SHAPE(RunShapeFn(ShapeFromAttr, {}, {List({})}), {});
  EXPECT_SHAPE(RunShapeFn(ShapeFromAttr, {}, {List({0, 5})}), {0, 5});
  ExpectError(RunShapeFn(ShapeFromAttr, {}, {List({2, -1})}), "shape must have non-negative dimensions, got [2, -1]");
  // fill(dims, value): the value input must be a scalar.
  EXPECT_SHAPE(RunShapeFn(ShapeFromAttr, {Shape{}}, {List({2})}), {2});
  ExpectError(RunShapeFn(ShapeFromAttr, {Shape{1}}, {List({2})}), "value must be a scalar, got shape [1]");
}

}  // namespace
}  // namespace ember::shape_fns

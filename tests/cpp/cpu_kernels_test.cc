// Tests the CPU kernels (kernels/cpu/) directly: each kernel is found in a
// local registry, its output allocated from the op's shape function, run on
// a real CpuDevice and compared with a simple reference.
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/broadcast.h"
#include "ops/op_kernel.h"
#include "ops/shape_fns/shape_fns.h"
#include "ops/op_ids.gen.h"

namespace ember {
namespace {

CpuDevice* TestDevice() {
  static CpuDevice* device = new CpuDevice(0, 2);
  return device;
}

const KernelRegistry& Registry() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    RegisterCpuElementwiseKernels(*r);
    RegisterCpuReductionKernels(*r);
    RegisterCpuMatmulKernels(*r);
    RegisterCpuShapeKernels(*r);
    return r;
  }();
  return *registry;
}

Tensor Allocate(DType dtype, const Shape& shape) {
  const size_t bytes = static_cast<size_t>(shape.NumElements()) * DTypeSize(dtype);
  return Tensor(dtype, shape, Buffer::Allocate(HostAllocator(), bytes));
}

template <typename T>
Tensor Make(const Shape& shape, const std::vector<T>& values) {
  Tensor t = Allocate(DTypeOf<T>::value, shape);
  EXPECT_EQ(static_cast<int64_t>(values.size()), shape.NumElements());
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DTypeOf<T>::value);
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

template <typename T>
std::vector<T> Iota(int64_t n, T start = T(0)) {
  std::vector<T> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + static_cast<T>(i));
  return v;
}

// One kernel call: shape function -> allocate -> kernel.
struct Call {
  OpId op;
  ShapeFn shape_fn;
  std::vector<DType> bindings;  // one per type variable
  DType out_dtype;
  AttrList attrs;
  Tensor* alias = nullptr;      // if set, output 0 uses this tensor's buffer
  Device* device = TestDevice();
};

Status RunKernel(const Call& call, std::vector<Tensor> inputs, Tensor* out) {
  OpDef def;
  def.id = call.op;
  def.name = "test_op";
  std::vector<Shape> shapes;
  std::vector<DType> dtypes;
  for (const Tensor& t : inputs) {
    shapes.push_back(t.shape());
    dtypes.push_back(t.dtype());
  }
  Shape out_shape[1];
  ShapeContext sctx(def, shapes.data(), dtypes.data(), static_cast<int>(inputs.size()), call.attrs, out_shape);
  EMBER_RETURN_IF_ERROR(call.shape_fn(sctx));
  KernelFactory factory = Registry().Find(call.op, kCpuDeviceType,
                                          PackTypeKey(call.bindings.data(), static_cast<int>(call.bindings.size())));
  if (factory == nullptr) return NotFound("no kernel");
  KernelInit init{def, call.device, call.attrs, call.bindings.data()};
  std::unique_ptr<OpKernel> kernel = factory(init);
  std::vector<Tensor> outputs;
  if (call.alias) {
    outputs.emplace_back(call.out_dtype, out_shape[0], call.alias->buffer());
  } else {
    outputs.push_back(Allocate(call.out_dtype, out_shape[0]));
  }
  KernelContext ctx(def, call.device, call.attrs, &inputs, &outputs);
  EMBER_RETURN_IF_ERROR(kernel->Compute(ctx));
  *out = outputs[0];
  return Status::OK();
}

Tensor MustRun(const Call& call, std::vector<Tensor> inputs) {
  Tensor out;
  Status s = RunKernel(call, std::move(inputs), &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

Call Binary(OpId op, DType t, DType out) { return Call{op, shape_fns::BroadcastBinary, {t}, out, {}}; }
Call Unary(OpId op, DType t) { return Call{op, shape_fns::Unchanged, {t}, t, {}}; }

// The reference: out[i] = f(lhs[index of i], rhs[index of i]) by explicit
// NumPy index arithmetic.
template <typename T, typename Out, typename F>
std::vector<Out> ReferenceBinary(const Tensor& a, const Tensor& b, const Shape& out, F f) {
  std::vector<Out> result(out.NumElements());
  const int rank = out.rank();
  std::vector<int64_t> idx(rank, 0);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    int64_t rest = i;
    for (int d = rank - 1; d >= 0; --d) {
      idx[d] = rest % out.dim(d);
      rest /= out.dim(d);
    }
    auto offset = [&](const Shape& s) {
      int64_t off = 0;
      for (int d = 0; d < s.rank(); ++d) {
        const int64_t k = s.dim(d) == 1 ? 0 : idx[d + rank - s.rank()];
        off = off * s.dim(d) + k;
      }
      return off;
    };
    result[i] = f(a.data<T>()[offset(a.shape())], b.data<T>()[offset(b.shape())]);
  }
  return result;
}

// --- Element-wise ----------------------------------------------------------

TEST(CpuKernelsTest, BroadcastPlanCollapses) {
  BroadcastPlan p = MakeBroadcastPlan(Shape{8, 4, 5}, Shape{5}, Shape{8, 4, 5});
  ASSERT_EQ(p.kind, BroadcastPlan::Kind::kGeneral);
  EXPECT_EQ(p.dims, Shape({32, 5}));
  EXPECT_EQ(p.lhs_strides, Shape({5, 1}));
  EXPECT_EQ(p.rhs_strides, Shape({0, 1}));
  EXPECT_EQ(MakeBroadcastPlan(Shape{3}, Shape{1, 3}, Shape{1, 3}).kind, BroadcastPlan::Kind::kSameShape);
  EXPECT_EQ(MakeBroadcastPlan(Shape{1, 1}, Shape{4}, Shape{1, 4}).kind, BroadcastPlan::Kind::kLhsScalar);
  EXPECT_EQ(MakeBroadcastPlan(Shape{4}, Shape{}, Shape{4}).kind, BroadcastPlan::Kind::kRhsScalar);
  EXPECT_EQ(MakeBroadcastPlan(Shape{0, 4}, Shape{4}, Shape{0, 4}).kind, BroadcastPlan::Kind::kEmpty);
  p = MakeBroadcastPlan(Shape{2, 1, 3, 1}, Shape{1, 4, 1, 1}, Shape{2, 4, 3, 1});
  EXPECT_EQ(p.dims, Shape({2, 4, 3}));
  EXPECT_EQ(p.lhs_strides, Shape({3, 0, 1}));
  EXPECT_EQ(p.rhs_strides, Shape({0, 1, 0}));
}

TEST(CpuKernelsTest, AddBroadcastMatchesReference) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{2, 3}, {2, 3}}, {{2, 3}, {3}},       {{3, 1}, {1, 4}},       {{}, {5}},
      {{5}, {}},        {{2, 1, 3}, {4, 1}}, {{2, 1, 3, 1}, {4, 1, 2}}, {{1, 7}, {6, 1}},
      {{0, 3}, {3}},    {{4, 1, 5}, {3, 5}}, {{600, 1000}, {1000}},  {{1000, 1}, {1, 700}},
  };
  for (const auto& [sa, sb] : cases) {
    Tensor a = Make<int32_t>(sa, Iota<int32_t>(sa.NumElements()));
    Tensor b = Make<int32_t>(sb, Iota<int32_t>(sb.NumElements(), 1000));
    Tensor out = MustRun(Binary(OpId::kAdd, DType::kInt32, DType::kInt32), {a, b});
    EXPECT_EQ(Values<int32_t>(out), (ReferenceBinary<int32_t, int32_t>(a, b, out.shape(), std::plus<>())))
        << sa.ToString() << " + " << sb.ToString();
    Tensor diff = MustRun(Binary(OpId::kSubtract, DType::kInt32, DType::kInt32), {b, a});
    EXPECT_EQ(Values<int32_t>(diff), (ReferenceBinary<int32_t, int32_t>(b, a, diff.shape(), std::minus<>())))
        << sb.ToString() << " - " << sa.ToString();
  }
}

TEST(CpuKernelsTest, ArithmeticFloat) {
  Tensor a = Make<float>({2, 2}, {1, -2, 3, 8});
  Tensor b = Make<float>({2}, {2, 4});
  EXPECT_EQ(Values<float>(MustRun(Binary(OpId::kMultiply, DType::kFloat32, DType::kFloat32), {a, b})),
            std::vector<float>({2, -8, 6, 32}));
  EXPECT_EQ(Values<float>(MustRun(Binary(OpId::kDivide, DType::kFloat32, DType::kFloat32), {a, b})),
            std::vector<float>({0.5, -0.5, 1.5, 2}));
  EXPECT_EQ(Values<float>(MustRun(Binary(OpId::kMaximum, DType::kFloat32, DType::kFloat32), {a, b})),
            std::vector<float>({2, 4, 3, 8}));
  EXPECT_EQ(Values<float>(MustRun(Binary(OpId::kMinimum, DType::kFloat32, DType::kFloat32), {a, b})),
            std::vector<float>({1, -2, 2, 4}));
  // Maximum and minimum propagate NaN, like NumPy.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = Make<double>({3}, {nan, 1, 5});
  Tensor y = Make<double>({3}, {0, nan, 2});
  std::vector<double> mx = Values<double>(MustRun(Binary(OpId::kMaximum, DType::kFloat64, DType::kFloat64), {x, y}));
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_TRUE(std::isnan(mx[1]));
  EXPECT_EQ(mx[2], 5);
}

TEST(CpuKernelsTest, BinaryOutputMayAliasLhs) {
  Tensor a = Make<float>({3, 4}, Iota<float>(12));
  Tensor b = Make<float>({4}, {10, 20, 30, 40});
  Call call = Binary(OpId::kAdd, DType::kFloat32, DType::kFloat32);
  call.alias = &a;
  Tensor out = MustRun(call, {a, b});
  EXPECT_EQ(out.raw_data(), a.raw_data());
  EXPECT_EQ(Values<float>(out), std::vector<float>({10, 21, 32, 43, 14, 25, 36, 47, 18, 29, 40, 51}));
  Tensor big = Make<float>({300000}, std::vector<float>(300000, 1.5f));
  call.alias = &big;
  out = MustRun(call, {big, big});
  EXPECT_EQ(Values<float>(out), std::vector<float>(300000, 3.0f));
}

TEST(CpuKernelsTest, Comparisons) {
  Tensor a = Make<int64_t>({2, 3}, {1, 5, 3, 4, 2, 6});
  Tensor b = Make<int64_t>({3}, {3, 3, 3});
  auto cmp = [&](OpId op) { return Values<bool>(MustRun(Binary(op, DType::kInt64, DType::kBool), {a, b})); };
  EXPECT_EQ(cmp(OpId::kLess), std::vector<bool>({true, false, false, false, true, false}));
  EXPECT_EQ(cmp(OpId::kLessEqual), std::vector<bool>({true, false, true, false, true, false}));
  EXPECT_EQ(cmp(OpId::kGreater), std::vector<bool>({false, true, false, true, false, true}));
  EXPECT_EQ(cmp(OpId::kGreaterEqual), std::vector<bool>({false, true, true, true, false, true}));
  EXPECT_EQ(cmp(OpId::kEqual), std::vector<bool>({false, false, true, false, false, false}));
  EXPECT_EQ(cmp(OpId::kNotEqual), std::vector<bool>({true, true, false, true, true, true}));
  Tensor p = Make<bool>({2, 1}, {true, false});
  Tensor q = Make<bool>({2}, {true, false});
  EXPECT_EQ(Values<bool>(MustRun(Binary(OpId::kEqual, DType::kBool, DType::kBool), {p, q})),
            std::vector<bool>({true, false, false, true}));
}

TEST(CpuKernelsTest, Unary) {
  Tensor f = Make<float>({4}, {-1, 0, 0.5, 2});
  EXPECT_EQ(Values<float>(MustRun(Unary(OpId::kNegative, DType::kFloat32), {f})),
            std::vector<float>({1, -0.0f, -0.5, -2}));
  EXPECT_EQ(Values<float>(MustRun(Unary(OpId::kAbs, DType::kFloat32), {f})), std::vector<float>({1, 0, 0.5, 2}));
  EXPECT_EQ(Values<float>(MustRun(Unary(OpId::kRelu, DType::kFloat32), {f})), std::vector<float>({0, 0, 0.5, 2}));
  Tensor i = Make<int32_t>({3}, {-3, 0, 7});
  EXPECT_EQ(Values<int32_t>(MustRun(Unary(OpId::kRelu, DType::kInt32), {i})), std::vector<int32_t>({0, 0, 7}));
  EXPECT_EQ(Values<int32_t>(MustRun(Unary(OpId::kAbs, DType::kInt32), {i})), std::vector<int32_t>({3, 0, 7}));
  Tensor d = Make<double>({3}, {-1, 0, 2});
  const std::map<OpId, double (*)(double)> refs = {
      {OpId::kExp, [](double x) { return std::exp(x); }},
      {OpId::kTanh, [](double x) { return std::tanh(x); }},
      {OpId::kSigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }},
  };
  for (const auto& [op, ref] : refs) {
    std::vector<double> got = Values<double>(MustRun(Unary(op, DType::kFloat64), {d}));
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[k], ref(d.data<double>()[k]), 1e-12);
  }
  Tensor pos = Make<float>({2}, {4, 1});
  EXPECT_EQ(Values<float>(MustRun(Unary(OpId::kSqrt, DType::kFloat32), {pos})), std::vector<float>({2, 1}));
  EXPECT_EQ(Values<float>(MustRun(Unary(OpId::kLog, DType::kFloat32), {pos}))[1], 0.0f);
}

TEST(CpuKernelsTest, UnaryInPlaceAndLarge) {
  const int64_t n = 1 << 18;  // big enough to run on the pool
  std::vector<float> values(n);
  for (int64_t k = 0; k < n; ++k) values[k] = static_cast<float>(k % 17) * 0.1f;
  Tensor x = Make<float>({n}, values);
  Call call = Unary(OpId::kExp, DType::kFloat32);
  call.alias = &x;
  Tensor out = MustRun(call, {x});
  EXPECT_EQ(out.raw_data(), x.raw_data());
  for (int64_t k = 0; k < n; k += 997) EXPECT_NEAR(out.data<float>()[k], std::exp(values[k]), 1e-5f * std::exp(values[k]));
}

// --- Reductions ------------------------------------------------------------

Call Reduce(OpId op, DType t, AttrValue axis, bool keepdims = false) {
  return Call{op, shape_fns::Reduce, {t}, t, {std::move(axis), AttrValue(keepdims)}};
}
AttrValue Axes(std::vector<int64_t> v) { return AttrValue(std::move(v)); }

// Reference sum over `axes` of a row-major tensor.
std::vector<double> ReferenceSum(const Tensor& t, const std::vector<bool>& reduced, const Shape& out_shape) {
  std::vector<double> out(out_shape.NumElements() ? out_shape.NumElements() : 0, 0.0);
  const Shape& s = t.shape();
  std::vector<int64_t> idx(s.rank());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    int64_t rest = i;
    for (int d = s.rank() - 1; d >= 0; --d) {
      idx[d] = rest % s.dim(d);
      rest /= s.dim(d);
    }
    int64_t o = 0;
    for (int d = 0; d < s.rank(); ++d) {
      if (!reduced[d]) o = o * s.dim(d) + idx[d];
    }
    out[o] += t.data<double>()[i];
  }
  return out;
}

TEST(CpuKernelsTest, ReduceSumAllAxisPatterns) {
  const Shape shape{3, 4, 5, 2};
  Tensor x = Make<double>(shape, Iota<double>(shape.NumElements()));
  // Every subset of axes: covers [R], [K,R], [R,K], [K,R,K] and the
  // transposing general path.
  for (int mask = 0; mask < 16; ++mask) {
    std::vector<int64_t> axes;
    std::vector<bool> reduced(4);
    for (int d = 0; d < 4; ++d) {
      if (mask >> d & 1) axes.push_back(d);
      reduced[d] = mask >> d & 1;
    }
    Tensor out = MustRun(Reduce(OpId::kReduceSum, DType::kFloat64, Axes(axes)), {x});
    EXPECT_EQ(Values<double>(out), ReferenceSum(x, reduced, out.shape())) << "mask " << mask;
  }
}

TEST(CpuKernelsTest, ReduceMeanMax) {
  Tensor x = Make<float>({2, 3}, {1, 2, 3, 4, 5, 9});
  EXPECT_EQ(Values<float>(MustRun(Reduce(OpId::kReduceMean, DType::kFloat32, Axes({1})), {x})),
            std::vector<float>({2, 6}));
  Tensor m = MustRun(Reduce(OpId::kReduceMax, DType::kFloat32, Axes({0}), true), {x});
  EXPECT_EQ(m.shape(), Shape({1, 3}));
  EXPECT_EQ(Values<float>(m), std::vector<float>({4, 5, 9}));
  EXPECT_EQ(Values<float>(MustRun(Reduce(OpId::kReduceMax, DType::kFloat32, AttrValue()), {x})), std::vector<float>({9}));
  // Integer means truncate toward zero.
  Tensor i = Make<int32_t>({2, 2}, {1, 2, -1, -2});
  EXPECT_EQ(Values<int32_t>(MustRun(Reduce(OpId::kReduceMean, DType::kInt32, Axes({1})), {i})),
            std::vector<int32_t>({1, -1}));
  // No axes: a copy.
  EXPECT_EQ(Values<int32_t>(MustRun(Reduce(OpId::kReduceSum, DType::kInt32, Axes({})), {i})),
            std::vector<int32_t>({1, 2, -1, -2}));
}

TEST(CpuKernelsTest, ReduceEmpty) {
  Tensor e = Make<float>({0, 3}, {});
  EXPECT_EQ(Values<float>(MustRun(Reduce(OpId::kReduceSum, DType::kFloat32, Axes({0})), {e})), std::vector<float>(3, 0));
  for (float v : Values<float>(MustRun(Reduce(OpId::kReduceMean, DType::kFloat32, Axes({0})), {e}))) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(Values<float>(MustRun(Reduce(OpId::kReduceMax, DType::kFloat32, Axes({0})), {e})),
            std::vector<float>(3, -std::numeric_limits<float>::infinity()));
  Tensor ei = Make<int64_t>({2, 0}, {});
  EXPECT_EQ(Values<int64_t>(MustRun(Reduce(OpId::kReduceMax, DType::kInt64, Axes({1})), {ei})),
            std::vector<int64_t>(2, std::numeric_limits<int64_t>::lowest()));
  EXPECT_EQ(MustRun(Reduce(OpId::kReduceSum, DType::kInt64, Axes({0})), {ei}).NumElements(), 0);
}

TEST(CpuKernelsTest, ReduceLargeParallel) {
  const int64_t n = 3 << 20;
  Tensor ones = Make<float>({n}, std::vector<float>(n, 1.0f));
  EXPECT_EQ(Values<float>(MustRun(Reduce(OpId::kReduceSum, DType::kFloat32, AttrValue()), {ones}))[0], static_cast<float>(n));
  Tensor rows = Make<int64_t>({1024, 2048}, Iota<int64_t>(1024 * 2048));
  std::vector<int64_t> col_max = Values<int64_t>(MustRun(Reduce(OpId::kReduceMax, DType::kInt64, Axes({0})), {rows}));
  for (int64_t c = 0; c < 2048; ++c) ASSERT_EQ(col_max[c], 1023 * 2048 + c);
  std::vector<int64_t> row_sum = Values<int64_t>(MustRun(Reduce(OpId::kReduceSum, DType::kInt64, Axes({1})), {rows}));
  for (int64_t r = 0; r < 1024; ++r) ASSERT_EQ(row_sum[r], r * 2048 * 2048 + 2047 * 2048 / 2);
}

TEST(CpuKernelsTest, ReduceRejectsBadAxis) {
  Tensor x = Make<float>({2, 3}, Iota<float>(6));
  Tensor out;
  EXPECT_EQ(RunKernel(Reduce(OpId::kReduceSum, DType::kFloat32, Axes({2})), {x}, &out).code(),
            StatusCode::kInvalidArgument);
}

// --- Matmul ----------------------------------------------------------------

Call Matmul(DType t, bool ta = false, bool tb = false) {
  return Call{OpId::kMatmul, shape_fns::Matmul, {t}, t, {AttrValue(ta), AttrValue(tb)}};
}

// c = op(a) * op(b) with broadcast batches, by triple loop.
template <typename T>
std::vector<T> ReferenceMatmul(const Tensor& a, const Tensor& b, const Shape& c_shape, bool ta, bool tb) {
  const int r = c_shape.rank();
  const int64_t m = c_shape.dim(r - 2), n = c_shape.dim(r - 1);
  const int64_t k = a.dim(a.rank() - (ta ? 2 : 1));
  Shape batch(c_shape.data(), r - 2);
  Shape ab(a.shape().data(), a.rank() - 2), bb(b.shape().data(), b.rank() - 2);
  BroadcastPlan plan = MakeBroadcastPlan(ab, bb, batch);
  std::vector<T> out(c_shape.NumElements());
  cpu::ForEachBroadcastElement(plan, 0, batch.NumElements(), [&](int64_t o, int64_t ia, int64_t ib) {
    const T* pa = a.data<T>() + ia * m * k;
    const T* pb = b.data<T>() + ib * k * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        T acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += (ta ? pa[p * m + i] : pa[i * k + p]) * (tb ? pb[j * k + p] : pb[p * n + j]);
        out[o * m * n + i * n + j] = acc;
      }
    }
  });
  return out;
}

TEST(CpuKernelsTest, MatmulSmall) {
  Tensor a = Make<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = Make<float>({3, 2}, {7, 8, 9, 10, 11, 12});
  EXPECT_EQ(Values<float>(MustRun(Matmul(DType::kFloat32), {a, b})), std::vector<float>({58, 64, 139, 154}));
  Tensor s = Make<int32_t>({1, 1}, {3});
  EXPECT_EQ(Values<int32_t>(MustRun(Matmul(DType::kInt32), {s, s})), std::vector<int32_t>({9}));
  Tensor empty_k_a = Make<double>({2, 0}, {});
  Tensor empty_k_b = Make<double>({0, 3}, {});
  EXPECT_EQ(Values<double>(MustRun(Matmul(DType::kFloat64), {empty_k_a, empty_k_b})), std::vector<double>(6, 0));
}

TEST(CpuKernelsTest, MatmulTransposesAndBatches) {
  struct Case {
    Shape a, b;
    bool ta, tb;
  };
  const Case cases[] = {
      {{4, 3}, {3, 5}, false, false}, {{3, 4}, {3, 5}, true, false},  {{4, 3}, {5, 3}, false, true},
      {{3, 4}, {5, 3}, true, true},   {{2, 4, 3}, {3, 5}, false, false}, {{2, 1, 4, 3}, {3, 3, 5}, false, false},
      {{3, 4}, {2, 5, 3}, true, true}, {{300, 64}, {64, 200}, false, false}, {{64, 300}, {200, 64}, true, true},
      {{3, 40, 64}, {64, 50}, false, false},
  };
  for (const Case& c : cases) {
    Tensor a = Make<int64_t>(c.a, Iota<int64_t>(c.a.NumElements(), -7));
    Tensor b = Make<int64_t>(c.b, Iota<int64_t>(c.b.NumElements(), 3));
    Tensor out = MustRun(Matmul(DType::kInt64, c.ta, c.tb), {a, b});
    EXPECT_EQ(Values<int64_t>(out), ReferenceMatmul<int64_t>(a, b, out.shape(), c.ta, c.tb))
        << c.a.ToString() << " x " << c.b.ToString() << " ta=" << c.ta << " tb=" << c.tb;
  }
  // Floats on the large (parallel) path.
  Tensor a = Make<float>({256, 128}, std::vector<float>(256 * 128, 0.5f));
  Tensor b = Make<float>({128, 96}, std::vector<float>(128 * 96, 2.0f));
  EXPECT_EQ(Values<float>(MustRun(Matmul(DType::kFloat32), {a, b})), std::vector<float>(256 * 96, 128.0f));
}

// --- Shape kernels ---------------------------------------------------------

TEST(CpuKernelsTest, ReshapeAndIdentityAreViews) {
  Tensor x = Make<int32_t>({2, 3}, Iota<int32_t>(6));
  Tensor r = MustRun(Call{OpId::kReshape, shape_fns::Reshape, {DType::kInt32}, DType::kInt32, {Axes({3, -1})}}, {x});
  EXPECT_EQ(r.shape(), Shape({3, 2}));
  EXPECT_EQ(r.raw_data(), x.raw_data());
  Tensor i = MustRun(Call{OpId::kIdentity, shape_fns::Unchanged, {DType::kInt32}, DType::kInt32, {}}, {x});
  EXPECT_EQ(i.raw_data(), x.raw_data());
  EXPECT_EQ(i.shape(), x.shape());
}

// Reference transpose by index arithmetic.
template <typename T>
std::vector<T> ReferenceTranspose(const Tensor& x, const std::vector<int>& perm) {
  const Shape& s = x.shape();
  const int r = s.rank();
  std::vector<int64_t> in_strides = ContiguousStrides(s);
  Shape out_shape;
  for (int p : perm) out_shape.AddDim(s.dim(p));
  std::vector<T> out(s.NumElements());
  std::vector<int64_t> idx(r);
  for (int64_t i = 0; i < s.NumElements(); ++i) {
    int64_t rest = i, src = 0;
    for (int d = r - 1; d >= 0; --d) {
      idx[d] = rest % out_shape.dim(d);
      rest /= out_shape.dim(d);
      src += idx[d] * in_strides[perm[d]];
    }
    out[i] = x.data<T>()[src];
  }
  return out;
}

TEST(CpuKernelsTest, Transpose) {
  auto transpose = [](DType t, AttrValue perm) {
    return Call{OpId::kTranspose, shape_fns::Transpose, {t}, t, {std::move(perm)}};
  };
  struct Case {
    Shape shape;
    std::vector<int> perm;
  };
  const Case cases[] = {
      {{2, 3}, {1, 0}},          {{2, 3, 4}, {2, 0, 1}},     {{2, 3, 4}, {0, 2, 1}},   {{2, 3, 4}, {1, 0, 2}},
      {{2, 1, 4, 3}, {3, 1, 0, 2}}, {{5, 6, 7, 8}, {3, 2, 1, 0}}, {{2, 3}, {0, 1}},       {{70, 45}, {1, 0}},
      {{300, 500}, {1, 0}},      {{4, 100, 130}, {0, 2, 1}}, {{3, 1, 1}, {2, 1, 0}},  {{}, {}},
  };
  for (const Case& c : cases) {
    Tensor x = Make<int64_t>(c.shape, Iota<int64_t>(c.shape.NumElements()));
    std::vector<int64_t> perm(c.perm.begin(), c.perm.end());
    Tensor out = MustRun(transpose(DType::kInt64, Axes(perm)), {x});
    EXPECT_EQ(Values<int64_t>(out), ReferenceTranspose<int64_t>(x, c.perm)) << c.shape.ToString();
    Tensor xf = Make<float>(c.shape, Iota<float>(c.shape.NumElements()));
    EXPECT_EQ(Values<float>(MustRun(transpose(DType::kFloat32, Axes(perm)), {xf})), ReferenceTranspose<float>(xf, c.perm));
  }
  Tensor b = Make<bool>({2, 3}, {true, false, false, true, true, false});
  EXPECT_EQ(Values<bool>(MustRun(transpose(DType::kBool, AttrValue()), {b})),
            std::vector<bool>({true, true, false, true, false, false}));
}

TEST(CpuKernelsTest, Cast) {
  auto cast = [](DType src, DType dst) { return Call{OpId::kCast, shape_fns::Unchanged, {src, dst}, dst, {AttrValue(dst)}}; };
  Tensor f = Make<float>({4}, {-1.7f, 0.0f, 0.2f, 2.9f});
  EXPECT_EQ(Values<int32_t>(MustRun(cast(DType::kFloat32, DType::kInt32), {f})), std::vector<int32_t>({-1, 0, 0, 2}));
  EXPECT_EQ(Values<bool>(MustRun(cast(DType::kFloat32, DType::kBool), {f})), std::vector<bool>({true, false, true, true}));
  Tensor b = Make<bool>({2}, {true, false});
  EXPECT_EQ(Values<double>(MustRun(cast(DType::kBool, DType::kFloat64), {b})), std::vector<double>({1, 0}));
  Tensor i = Make<int64_t>({2}, {5, 0});
  EXPECT_EQ(Values<bool>(MustRun(cast(DType::kInt64, DType::kBool), {i})), std::vector<bool>({true, false}));
  Tensor same = MustRun(cast(DType::kInt64, DType::kInt64), {i});
  EXPECT_EQ(same.raw_data(), i.raw_data());
}

TEST(CpuKernelsTest, ZerosOnesFill) {
  auto from_attr = [](OpId op, DType t, AttrList attrs) { return Call{op, shape_fns::ShapeFromAttr, {t}, t, std::move(attrs)}; };
  EXPECT_EQ(Values<double>(MustRun(from_attr(OpId::kZeros, DType::kFloat64, {Axes({2, 2}), AttrValue(DType::kFloat64)}), {})),
            std::vector<double>(4, 0));
  EXPECT_EQ(Values<bool>(MustRun(from_attr(OpId::kOnes, DType::kBool, {Axes({3}), AttrValue(DType::kBool)}), {})),
            std::vector<bool>(3, true));
  EXPECT_EQ(Values<int32_t>(MustRun(from_attr(OpId::kOnes, DType::kInt32, {Axes({2}), AttrValue(DType::kInt32)}), {})),
            std::vector<int32_t>(2, 1));
  Tensor value = Make<float>({}, {2.5f});
  EXPECT_EQ(Values<float>(MustRun(from_attr(OpId::kFill, DType::kFloat32, {Axes({2, 3})}), {value})),
            std::vector<float>(6, 2.5f));
  // A non-scalar value: the shape function rejects it, and so does the
  // kernel when called past it.
  Tensor not_scalar = Make<float>({1}, {2.5f});
  Call call = from_attr(OpId::kFill, DType::kFloat32, {Axes({2})});
  Tensor out;
  Status s = RunKernel(call, {not_scalar}, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "value must be a scalar, got shape [1]");
  call.shape_fn = [](ShapeContext& ctx) {
    ctx.set_output_shape(0, Shape(ctx.attr(0).as_int_list()));
    return Status::OK();
  };
  s = RunKernel(call, {not_scalar}, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "value must be a scalar, got shape [1]");
}

// --- Registration ----------------------------------------------------------

TEST(CpuKernelsTest, EveryPromisedKernelIsRegistered) {
  const std::vector<DType> all = {DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64};
  const std::vector<DType> numeric = {DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64};
  const std::vector<DType> floats = {DType::kFloat32, DType::kFloat64};
  const std::vector<std::pair<std::vector<OpId>, std::vector<DType>>> table = {
      {{OpId::kNegative, OpId::kAbs, OpId::kRelu, OpId::kAdd, OpId::kSubtract, OpId::kMultiply, OpId::kMaximum,
        OpId::kMinimum, OpId::kLess, OpId::kLessEqual, OpId::kGreater, OpId::kGreaterEqual, OpId::kReduceSum,
        OpId::kReduceMean, OpId::kReduceMax, OpId::kMatmul},
       numeric},
      {{OpId::kExp, OpId::kLog, OpId::kSqrt, OpId::kTanh, OpId::kSigmoid, OpId::kDivide}, floats},
      {{OpId::kEqual, OpId::kNotEqual, OpId::kReshape, OpId::kIdentity, OpId::kTranspose, OpId::kZeros, OpId::kOnes,
        OpId::kFill},
       all},
  };
  for (const auto& [ops, dtypes] : table) {
    for (OpId op : ops) {
      for (DType t : dtypes) {
        EXPECT_NE(Registry().Find(op, kCpuDeviceType, PackTypeKey(&t, 1)), nullptr)
            << "op " << static_cast<int>(op) << " " << DTypeName(t);
      }
    }
  }
  for (DType src : all) {
    for (DType dst : all) {
      const DType key[2] = {src, dst};
      EXPECT_NE(Registry().Find(OpId::kCast, kCpuDeviceType, PackTypeKey(key, 2)), nullptr);
    }
  }
  // Completeness against op_defs/ is checked from Python (test_coverage.py),
  // which reads the op table instead of a hand-kept count.
}

}  // namespace
}  // namespace ember

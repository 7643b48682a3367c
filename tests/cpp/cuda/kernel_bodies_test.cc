// Runs the CUDA kernels' per-element bodies on the host (Note [Kernel
// bodies on the host]) for every element of many cases and compares them
// with references written from the ops' definitions: pooling (NHWC and
// NCHW, any padding, NaN), the filter re-layout and padding around cuDNN
// convolutions, and reductions with their accumulators (integer wrapping,
// truncating integer means, NaN-propagating extrema, empty reductions).
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <utility>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cuda/copy_indexing.h"
#include "kernels/cuda/elementwise_body.h"
#include "kernels/cuda/fused_code.h"
#include "kernels/cuda/indexing_body.h"
#include "kernels/cuda/movement_body.h"
#include "kernels/cuda/reduce_body.h"
#include "kernels/cuda/window.h"
#include "kernels/cuda/window_body.h"
#include "ops/plans/copy_plan.h"
#include "ops/plans/reduce_plan.h"
#include "ops/shape_fns/movement.h"

namespace ember::cuda {
namespace {

// Element (b, y, x, c) of a batch in either layout.
int64_t At(bool nchw, int64_t b, int64_t y, int64_t x, int64_t c, int64_t h, int64_t w, int64_t channels) {
  return nchw ? ((b * channels + c) * h + y) * w + x : ((b * h + y) * w + x) * channels + c;
}

TEST(KernelBodiesTest, PoolingMatchesItsDefinition) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  int cases = 0;
  for (bool nchw : {false, true}) {
    for (bool max : {true, false}) {
      for (int64_t k : {1, 2, 3}) {
        for (int64_t stride : {1, 2}) {
          for (int64_t pad : {0, 1}) {
            WindowGeometry g;
            g.nchw = nchw;
            g.batch = 2, g.in_h = 7, g.in_w = 6, g.channels = 3;
            g.k_h = k, g.k_w = k + 1, g.stride_h = stride, g.stride_w = 1;
            g.pad_top = pad < k ? pad : 0, g.pad_left = 0;
            // One more row of padding after where the window is taller than
            // it (padding is smaller than the window: the shape function's
            // rule, so no window is all padding).
            const int64_t bottom = k > 1 ? 1 : 0;
            g.out_h = (g.in_h + g.pad_top + bottom - k) / stride + 1;
            g.out_w = g.in_w - g.k_w + 1;
            std::vector<float> in(g.batch * g.in_h * g.in_w * g.channels);
            for (float& v : in) v = normal(rng);
            in[5] = std::numeric_limits<float>::quiet_NaN();
            for (int64_t b = 0; b < g.batch; ++b) {
              for (int64_t oy = 0; oy < g.out_h; ++oy) {
                for (int64_t ox = 0; ox < g.out_w; ++ox) {
                  for (int64_t c = 0; c < g.channels; ++c) {
                    double best = -INFINITY, sum = 0;
                    int count = 0;
                    bool nan = false;
                    for (int64_t y = oy * stride - g.pad_top; y < oy * stride - g.pad_top + g.k_h; ++y) {
                      for (int64_t x = ox - 0; x < ox + g.k_w; ++x) {
                        if (y < 0 || y >= g.in_h || x < 0 || x >= g.in_w) continue;
                        const float v = in[At(nchw, b, y, x, c, g.in_h, g.in_w, g.channels)];
                        nan = nan || std::isnan(v);
                        best = std::max(best, static_cast<double>(v));
                        sum += v;
                        ++count;
                      }
                    }
                    ASSERT_GT(count, 0);
                    const int64_t i = At(nchw, b, oy, ox, c, g.out_h, g.out_w, g.channels);
                    const float got = PoolElement<float>(in.data(), i, g, max);
                    if (nan) {
                      EXPECT_TRUE(std::isnan(got));
                    } else if (max) {
                      EXPECT_EQ(got, static_cast<float>(best));
                    } else {
                      EXPECT_NEAR(got, sum / count, 1e-5);
                    }
                  }
                }
              }
            }
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 48);
}

TEST(KernelBodiesTest, FilterRelayoutIsTheTranspose) {
  const int64_t kh = 3, kw = 2, in = 4, filters = 5;
  for (bool nchw : {false, true}) {
    std::vector<int> seen(kh * kw * in * filters, 0);
    for (int64_t r = 0; r < kh; ++r) {
      for (int64_t s = 0; s < kw; ++s) {
        for (int64_t c = 0; c < in; ++c) {
          for (int64_t k = 0; k < filters; ++k) {
            const int64_t hwio = ((r * kw + s) * in + c) * filters + k;
            const int64_t want = nchw ? ((k * in + c) * kh + r) * kw + s : ((k * kh + r) * kw + s) * in + c;
            EXPECT_EQ(FilterToCudnnIndex(hwio, kh, kw, in, filters, nchw), want);
            ++seen[want];
          }
        }
      }
    }
    for (int n : seen) EXPECT_EQ(n, 1);
  }
}

TEST(KernelBodiesTest, PaddingPlacesTheInput) {
  const int64_t n = 2, h = 3, w = 4, c = 2, top = 1, bottom = 2, left = 0, right = 3;
  const int64_t out_h = h + top + bottom, out_w = w + left + right;
  for (bool nchw : {false, true}) {
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t y = 0; y < out_h; ++y) {
        for (int64_t x = 0; x < out_w; ++x) {
          for (int64_t ch = 0; ch < c; ++ch) {
            const int64_t i = At(nchw, b, y, x, ch, out_h, out_w, c);
            const bool inside = y >= top && y < top + h && x >= left && x < left + w;
            const int64_t want = inside ? At(nchw, b, y - top, x - left, ch, h, w, c) : -1;
            EXPECT_EQ(PadSourceIndex(i, h, w, c, nchw, top, left, out_h, out_w), want);
          }
        }
      }
    }
  }
}

template <typename T, typename R>
std::vector<T> ReduceAll(const std::vector<T>& in, const Shape& shape, const std::vector<bool>& axes) {
  ReduceIndexing ix;
  EXPECT_TRUE(MakeReduceIndexing(shape, MakeReducePlan(shape, axes), &ix).ok());
  std::vector<T> out(ix.num_outputs);
  for (int64_t o = 0; o < ix.num_outputs; ++o) out[o] = ReduceOutput<T, R>(in.data(), o, ix);
  return out;
}

TEST(KernelBodiesTest, ReductionsKeepTheCpuAccumulators) {
  const Shape shape({2, 3});
  // Integer sums wrap once, on the store (NumPy's sum(dtype=int32)).
  const std::vector<int32_t> big = {INT32_MAX, 1, 1, -5, 7, 9};
  EXPECT_EQ((ReduceAll<int32_t, Sum<int32_t>>(big, shape, {false, true})),
            (std::vector<int32_t>{INT32_MIN + 1, 11}));
  // Integer means truncate toward zero and do not overflow.
  EXPECT_EQ((ReduceAll<int32_t, Mean<int32_t>>(big, shape, {false, true})),
            (std::vector<int32_t>{static_cast<int32_t>((int64_t{INT32_MAX} + 2) / 3), 3}));
  EXPECT_EQ((ReduceAll<int32_t, Mean<int32_t>>({-7, 0, 0, 0, 0, 0}, shape, {false, true})),
            (std::vector<int32_t>{-2, 0}));
  // Extrema propagate NaN; the mean of nothing is NaN, the sum 0, the max -inf.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> with_nan = {1, nan, 3, 4, 5, 6};
  const auto maxes = ReduceAll<float, Max<float>>(with_nan, shape, {true, false});
  EXPECT_EQ(maxes[0], 4);
  EXPECT_TRUE(std::isnan(maxes[1]));
  EXPECT_EQ(maxes[2], 6);
  EXPECT_EQ((ReduceAll<float, Min<float>>({3, 2, 1, 6, 5, 4}, shape, {true, true})), (std::vector<float>{1}));
  const Shape empty({2, 0});
  EXPECT_EQ((ReduceAll<float, Sum<float>>({}, empty, {false, true})), (std::vector<float>{0, 0}));
  const auto means = ReduceAll<float, Mean<float>>({}, empty, {false, true});
  ASSERT_EQ(means.size(), 2u);
  EXPECT_TRUE(std::isnan(means[0]));
  EXPECT_EQ((ReduceAll<float, Max<float>>({}, empty, {false, true}))[0], -INFINITY);
  EXPECT_EQ((ReduceAll<int64_t, Prod<int64_t>>({2, 3, 4, 5, 6, 7}, shape, {true, false})),
            (std::vector<int64_t>{10, 18, 28}));
}

// Broadcasting by definition: NumPy's rule, shapes aligned at the right.
int64_t BroadcastSource(const std::vector<int64_t>& out, const std::vector<int64_t>& in, int64_t i) {
  int64_t offset = 0, stride = 1;
  for (int d = static_cast<int>(out.size()) - 1, e = static_cast<int>(in.size()) - 1; d >= 0; --d, --e) {
    const int64_t coordinate = i % out[d];
    i /= out[d];
    if (e < 0) continue;
    if (in[e] != 1) offset += coordinate * stride;
    stride *= in[e];
  }
  return offset;
}

TEST(KernelBodiesTest, BroadcastAddressingMatchesNumpysRule) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{3, 1, 5}, {1, 4, 5}}, {{2, 3, 4, 5}, {3, 1, 5}}, {{33, 65}, {65}}, {{4, 1}, {1, 6}}, {{2, 1, 3, 1, 2}, {1, 5, 1, 4, 1}},
      {{5}, {2, 3, 5}}, {{1, 1, 7}, {3, 1, 1}}, {{2, 3}, {2, 3}}, {{}, {4}}, {{6, 1, 1}, {6, 2, 2}}};
  int general = 0;
  for (const auto& [a, b] : cases) {
    std::vector<int64_t> out(std::max(a.size(), b.size()));
    for (size_t k = 0; k < out.size(); ++k) {
      const int64_t da = k < out.size() - a.size() ? 1 : a[k - (out.size() - a.size())];
      const int64_t db = k < out.size() - b.size() ? 1 : b[k - (out.size() - b.size())];
      out[k] = std::max(da, db);
    }
    const BroadcastPlan plan = MakeBroadcastPlan(Shape(a), Shape(b), Shape(out));
    int64_t n = 1;
    for (int64_t d : out) n *= d;
    for (int64_t i = 0; i < n; ++i) {
      int64_t l = 0, r = 0;
      switch (plan.kind) {
        case BroadcastPlan::Kind::kEmpty: break;
        case BroadcastPlan::Kind::kSameShape: l = r = i; break;  // the flat launches' steps 1 and 1
        case BroadcastPlan::Kind::kLhsScalar: l = 0, r = i; break;
        case BroadcastPlan::Kind::kRhsScalar: l = i, r = 0; break;
        case BroadcastPlan::Kind::kGeneral: {
          BroadcastIndexing indexing;
          ASSERT_TRUE(MakeBroadcastIndexing(plan, &indexing));
          BroadcastOffsets(i, indexing, &l, &r);
          break;
        }
      }
      EXPECT_EQ(l, BroadcastSource(out, a, i)) << Shape(a).ToString() << " " << Shape(b).ToString() << " at " << i;
      EXPECT_EQ(r, BroadcastSource(out, b, i)) << Shape(a).ToString() << " " << Shape(b).ToString() << " at " << i;
    }
    general += plan.kind == BroadcastPlan::Kind::kGeneral;
  }
  EXPECT_GE(general, 6);
}

// Pads a 1-D [0, 1, 2, 3] by (2, 2) and reads the sources back.
std::vector<int64_t> Pad1d(int mode) {
  PadIndexing p;
  p.rank = 1, p.mode = mode;
  p.in_dims[0] = 4, p.out_dims[0] = 8, p.before[0] = 2, p.in_strides[0] = 1;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < 8; ++i) out.push_back(PadSource(i, p));
  return out;
}

TEST(KernelBodiesTest, PadModesFollowTheirDefinitions) {
  // NumPy's np.pad([0, 1, 2, 3], 2, mode) (TensorFlow's modes of the same names).
  EXPECT_EQ(Pad1d(0), (std::vector<int64_t>{-1, -1, 0, 1, 2, 3, -1, -1}));
  EXPECT_EQ(Pad1d(1), (std::vector<int64_t>{2, 1, 0, 1, 2, 3, 2, 1}));
  EXPECT_EQ(Pad1d(2), (std::vector<int64_t>{1, 0, 0, 1, 2, 3, 3, 2}));
  // 2-D: each dim mirrors on its own; [2, 3] padded by (1, 0) and (0, 2).
  PadIndexing p;
  p.rank = 2, p.mode = 2;
  p.in_dims[0] = 2, p.in_dims[1] = 3, p.out_dims[0] = 3, p.out_dims[1] = 5;
  p.before[0] = 1, p.before[1] = 0, p.in_strides[0] = 3, p.in_strides[1] = 1;
  const std::vector<int64_t> rows[3] = {{0, 1, 2, 2, 1}, {0, 1, 2, 2, 1}, {3, 4, 5, 5, 4}};
  for (int64_t y = 0; y < 3; ++y) {
    for (int64_t x = 0; x < 5; ++x) EXPECT_EQ(PadSource(y * 5 + x, p), rows[y][x]) << y << "," << x;
  }
}

TEST(KernelBodiesTest, ConcatPlacesEachInputInItsColumns) {
  // [2, 3, 4] ++ [2, 1, 4] ++ [2, 2, 4] along axis 1: rows of widths 12, 4, 8.
  const int64_t outer = 2, inner = 4, out_width = 6 * inner;
  const int64_t axis_sizes[3] = {3, 1, 2};
  std::vector<int> hits(outer * out_width, -1);
  int64_t start = 0;
  for (int k = 0; k < 3; ++k) {
    const int64_t width = axis_sizes[k] * inner;
    for (int64_t j = 0; j < outer * width; ++j) {
      const int64_t to = ConcatDestination(j, width, start, out_width);
      ASSERT_GE(to, 0);
      ASSERT_LT(to, outer * out_width);
      EXPECT_EQ(hits[to], -1);
      hits[to] = k;
      // Row j / width, column start + j % width.
      EXPECT_EQ(to / out_width, j / width);
      EXPECT_EQ(to % out_width, start + j % width);
    }
    start += width;
  }
  for (int h : hits) EXPECT_NE(h, -1);
}

TEST(KernelBodiesTest, WhereAddressesThreeOperandsByNumpysRule) {
  const std::vector<std::vector<int64_t>> out_shapes = {{2, 3, 4}, {5, 1, 6}, {7}, {2, 2, 2, 2}};
  const std::vector<std::vector<std::vector<int64_t>>> operands = {
      {{2, 1, 4}, {3, 1}, {}}, {{1, 1, 6}, {5, 1, 1}, {5, 1, 6}}, {{7}, {1}, {}}, {{2, 1, 2, 1}, {2, 2}, {2, 1, 1, 2}}};
  for (size_t c = 0; c < out_shapes.size(); ++c) {
    const auto& out = out_shapes[c];
    const int64_t* dims[3] = {operands[c][0].data(), operands[c][1].data(), operands[c][2].data()};
    const int ranks[3] = {static_cast<int>(operands[c][0].size()), static_cast<int>(operands[c][1].size()),
                          static_cast<int>(operands[c][2].size())};
    NaryIndexing ix;
    ASSERT_TRUE(MakeNaryIndexing(out.data(), static_cast<int>(out.size()), dims, ranks, 3, &ix));
    int64_t n = 1;
    for (int64_t d : out) n *= d;
    for (int64_t i = 0; i < n; ++i) {
      for (int k = 0; k < 3; ++k) EXPECT_EQ(NaryOffset(i, ix, k), BroadcastSource(out, operands[c][k], i)) << c << "/" << k;
    }
  }
}

TEST(KernelBodiesTest, OneHotMarksEachIndexAndSkipsOutOfRange) {
  // indices [2, 3] with depth 4 on axis 1: out [2, 4, 3] = [outer, depth, inner].
  const std::vector<int64_t> indices = {0, 3, -1, 2, 4, 1};
  const int64_t outer = 2, depth = 4, inner = 3;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t d = 0; d < depth; ++d) {
      for (int64_t j = 0; j < inner; ++j) {
        const int64_t i = (o * depth + d) * inner + j;
        EXPECT_EQ(OneHotIsOn(indices.data(), i, depth, inner), indices[o * inner + j] == d);
      }
    }
  }
}

// gather with batch_dims 1 and axis 2 over params [2, 3, 4, 5] and indices
// [2, 6]: out[b, p, i, r] = params[b, p, indices[b, i], r], with the plan
// the shape function makes.
TEST(KernelBodiesTest, GatherAddressesMatchTheDefinition) {
  const int64_t B = 2, P = 3, A = 4, R = 5, N = 6;
  shape_fns::GatherPlan plan;
  ASSERT_TRUE(shape_fns::MakeGatherPlan(Shape({B, P, A, R}), Shape({B, N}), 2, 1, &plan).ok());
  const GatherIndexing g{plan.outer, plan.axis_dim, plan.num_indices, plan.inner};
  std::vector<int64_t> indices(B * N);
  std::mt19937 rng(7);
  for (auto& v : indices) v = static_cast<int64_t>(rng() % A);
  int64_t o = 0;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t p = 0; p < P; ++p) {
      for (int64_t i = 0; i < N; ++i) {
        for (int64_t r = 0; r < R; ++r, ++o) {
          int64_t position, base;
          GatherAddress(o, g, &position, &base);
          ASSERT_EQ(position, b * N + i);
          const int64_t v = indices[position];
          EXPECT_EQ(base + v * g.inner, ((b * P + p) * A + v) * R + r) << "output element " << o;
        }
      }
    }
  }
  EXPECT_EQ(o, plan.out.NumElements());
}

// gather_nd and the scatters with batch_dims 1 over params [2, 3, 4, 5]
// and indices [2, 6, 2]: row (b, n) names params[b, i0, i1, :]; a bad
// index is found at its depth.
TEST(KernelBodiesTest, NdSlotsMatchTheDefinitionAndFindBadIndices) {
  const int64_t B = 2, D0 = 3, D1 = 4, R = 5, N = 6;
  shape_fns::GatherNdPlan plan;
  ASSERT_TRUE(shape_fns::MakeGatherNdPlan(Shape({B, D0, D1, R}), Shape({B, N, 2}), 1, &plan).ok());
  NdIndexing nd;
  nd.depth = static_cast<int>(plan.index_depth);
  for (int m = 0; m < nd.depth; ++m) nd.dims[m] = plan.indexed_dims[m];
  nd.num_indices = plan.num_indices;
  nd.inner = plan.inner;
  nd.slots_per_batch = D0 * D1;
  std::vector<int32_t> indices(B * N * 2);
  std::mt19937 rng(11);
  for (int64_t j = 0; j < B * N; ++j) {
    indices[2 * j] = static_cast<int32_t>(rng() % D0);
    indices[2 * j + 1] = static_cast<int32_t>(rng() % D1);
  }
  for (int64_t j = 0; j < B * N; ++j) {
    int bad = -1;
    const int64_t slot = NdSlot(indices.data(), j, nd, &bad);
    ASSERT_GE(slot, 0);
    const int64_t b = j / N;
    EXPECT_EQ(NdRow(j, slot, nd) * R, ((b * D0 + indices[2 * j]) * D1 + indices[2 * j + 1]) * R);
  }
  indices[2 * 5 + 1] = static_cast<int32_t>(D1);  // row 5, depth 1: one past the end
  indices[2 * 7] = -1;                             // row 7, depth 0: negative
  int bad = -1;
  EXPECT_EQ(NdSlot(indices.data(), 5, nd, &bad), -1);
  EXPECT_EQ(bad, 1);
  EXPECT_EQ(NdSlot(indices.data(), 7, nd, &bad), -1);
  EXPECT_EQ(bad, 0);
}

// Note [GPU fused programs]: the interpreter, run on the host over every
// element, against the program's math written out; one argument is a
// broadcast single element.
TEST(KernelBodiesTest, FusedProgramRunsEachElementAsWritten) {
  FusedProgram program;
  ASSERT_TRUE(FusedProgram::Parse("multiply(a0, a1); add(v0, a2); tanh(v1); leaky_relu[0.25](v0); "
                                  "maximum(v2, v3)",
                                  {4, 1}, &program)
                  .ok());
  FusedCode code;
  ASSERT_TRUE(CompileFusedCode(program, &code));
  const int64_t n = 257;
  std::vector<float> a0(n), a1(n), out0(n), out1(n);
  const float a2 = 0.5f;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  for (int64_t i = 0; i < n; ++i) a0[i] = dist(rng), a1[i] = dist(rng);
  FusedOperands<float> ops;
  ops.args[0] = a0.data();
  ops.args[1] = a1.data();
  ops.args[2] = &a2;
  ops.arg_run = 0b011;
  ops.outputs[0] = out0.data();
  ops.outputs[1] = out1.data();
  for (int64_t i = 0; i < n; ++i) RunFusedElement(code, ops, i);
  for (int64_t i = 0; i < n; ++i) {
    const float v0 = a0[i] * a1[i], v1 = v0 + a2, v2 = std::tanh(v1);
    const float v3 = v0 > 0 ? v0 : v0 * 0.25f;
    EXPECT_EQ(out0[i], std::max(v2, v3)) << i;
    EXPECT_EQ(out1[i], v1) << i;
  }
}

// Note [Element-wise fusion]: a channel vector (batch norm's scale, a
// bias) is read at the element's position along the last dim.
TEST(KernelBodiesTest, FusedChannelVectorsRepeatAlongTheLastDim) {
  FusedProgram program;
  ASSERT_TRUE(FusedProgram::Parse("multiply(a0, a1); add(v0, a2); relu(v1)", {2}, &program).ok());
  FusedCode code;
  ASSERT_TRUE(CompileFusedCode(program, &code));
  const int64_t rows = 37, channels = 5, n = rows * channels;
  std::vector<float> x(n), out(n);
  const float scale[channels] = {0.5f, -1.0f, 2.0f, 0.0f, 3.0f};
  const float shift = -0.25f;
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 11) - 5.0f;
  FusedOperands<float> ops;
  ops.args[0] = x.data();
  ops.args[1] = scale;
  ops.args[2] = &shift;
  ops.arg_run = 0b001;
  ops.arg_channel = 0b010;
  ops.channels = channels;
  ops.outputs[0] = out.data();
  for (int64_t i = 0; i < n; ++i) RunFusedElement(code, ops, i);
  for (int64_t i = 0; i < n; ++i) EXPECT_EQ(out[i], std::max(x[i] * scale[i % channels] + shift, 0.0f)) << i;
}

// A long chain reuses slots (40 instructions in 2 slots); a program with
// more values alive at once than the register file does not fit, and its
// instructions run one at a time give the same values.
TEST(KernelBodiesTest, FusedSlotsAreReusedAndLongProgramsRunByInstruction) {
  std::string chain = "add(a0, a1)";
  for (int k = 1; k < 40; ++k) chain += k % 2 ? "; multiply(v" + std::to_string(k - 1) + ", a1)"
                                              : "; add(v" + std::to_string(k - 1) + ", a0)";
  FusedProgram program;
  ASSERT_TRUE(FusedProgram::Parse(chain, {39}, &program).ok());
  FusedCode code;
  ASSERT_TRUE(CompileFusedCode(program, &code));
  int slots = 0;
  for (int k = 0; k < code.num_code; ++k) slots = std::max(slots, code.dst[k] + 1);
  EXPECT_LE(slots, 2);
  double x = 0.75, y = 1.0009, out = 0;
  FusedOperands<double> ops;
  ops.args[0] = &x;
  ops.args[1] = &y;
  ops.outputs[0] = &out;
  RunFusedElement(code, ops, 0);
  double want = x + y;
  for (int k = 1; k < 40; ++k) want = k % 2 ? want * y : want + x;
  EXPECT_EQ(out, want);

  // 13 values, all read by the last instructions: more than 12 slots.
  std::string wide;
  for (int k = 0; k < 13; ++k) wide += (k ? "; " : "") + std::string("add(a0, a0)");
  std::string sum = "v0";
  for (int k = 1; k < 13; ++k) {
    wide += "; add(" + sum + ", v" + std::to_string(k) + ")";
    sum = "v" + std::to_string(12 + k);
  }
  FusedProgram big;
  ASSERT_TRUE(FusedProgram::Parse(wide, {24}, &big).ok());
  EXPECT_FALSE(CompileFusedCode(big, &code));
  // One instruction at a time, values kept (as the kernel keeps them in scratch).
  std::vector<double> values(big.code.size());
  for (size_t k = 0; k < big.code.size(); ++k) {
    const FusedInstruction& in = big.code[k];
    FusedOperands<double> one;
    one.args[0] = IsFusedArg(in.a) ? &x : &values[in.a];
    one.args[1] = IsFusedArg(in.b) ? &x : &values[in.b];
    one.outputs[0] = &values[k];
    RunFusedElement(SingleInstructionCode(in), one, 0);
  }
  EXPECT_EQ(values[24], 13 * (x + x));
}

// The GPU's strided copy, over the plans the CPU kernels use, against the
// ops' definitions: x[1:, ::-2] of a [3, 5] tensor, tile([2, 3], [2, 2]),
// and stacking two [2, 3] tensors along axis 1.
TEST(KernelBodiesTest, StridedCopiesMoveTheElementsTheOpsDefine) {
  auto run = [](const CopyPlan& plan, const std::vector<int>& src, size_t out_size) {
    StridedCopyIndexing ix;
    int64_t n = 0;
    EXPECT_TRUE(StridedCopyIndexingFor(plan, &ix, &n));
    std::vector<int> out(out_size, -1);
    for (int64_t i = 0; i < n; ++i) {
      int64_t from, to;
      StridedCopyOffsets(i, ix, &from, &to);
      out[to] = src[from];
    }
    return out;
  };
  std::vector<int> x(15);
  for (int i = 0; i < 15; ++i) x[i] = i;  // x[r, c] = 5 r + c

  shape_fns::StridedSliceSpec spec;
  spec.begin = {1, 0};
  spec.end = {0, 0};
  spec.strides = std::vector<int64_t>{1, -2};
  spec.end_mask = 0b11;
  spec.begin_mask = 0b10;
  shape_fns::StridedView view;
  Shape final_shape;
  ASSERT_TRUE(shape_fns::StridedSliceView(Shape({3, 5}), spec, &view, &final_shape).ok());
  EXPECT_EQ(run(CopyPlanForView(view), x, 6), (std::vector<int>{9, 7, 5, 14, 12, 10}));

  shape_fns::StridedView tile;
  ASSERT_TRUE(shape_fns::TileView(Shape({2, 3}), {2, 2}, &tile, &final_shape).ok());
  // tile of [[0, 1, 2], [3, 4, 5]] by (2, 2): rows 0 1 0 1, columns repeated.
  EXPECT_EQ(run(CopyPlanForView(tile), x, 24),
            (std::vector<int>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));

  std::vector<int> stacked(12, -1);
  const std::vector<int> a = {0, 1, 2, 3, 4, 5}, b = {10, 11, 12, 13, 14, 15};
  for (int part = 0; part < 2; ++part) {
    const std::vector<int> moved = run(StackPartPlan(Shape({2, 3}), Shape({2, 2, 3}), 1, part), part ? b : a, 12);
    for (int i = 0; i < 12; ++i) {
      if (moved[i] >= 0) stacked[i] = moved[i];
    }
  }
  EXPECT_EQ(stacked, (std::vector<int>{0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15}));
}

// Pooling gradients gathered per input element, against the CPU's
// scatter over windows (ForWindow/WindowArgmax in kernels/cpu/nn_grad.cc,
// written out here), ties and NaN included, in both layouts, with padding
// on one side.
TEST(KernelBodiesTest, PoolGradientsGatherWhatTheWindowsScatter) {
  for (bool nchw : {false, true}) {
    WindowGeometry g;
    g.nchw = nchw;
    g.batch = 2, g.in_h = 5, g.in_w = 6, g.channels = 3;
    g.k_h = 3, g.k_w = 2, g.stride_h = 2, g.stride_w = 1, g.pad_top = 1, g.pad_left = 0;
    g.out_h = 3, g.out_w = 5;
    const int64_t in_n = g.batch * g.in_h * g.in_w * g.channels, out_n = g.batch * g.out_h * g.out_w * g.channels;
    std::mt19937 rng(5);
    std::vector<float> x(in_n), dy(out_n);
    for (auto& v : x) v = static_cast<float>(rng() % 4);  // many ties
    x[7] = std::numeric_limits<float>::quiet_NaN();
    for (auto& v : dy) v = static_cast<float>(rng() % 1000) / 7.0f;
    auto in_at = [&](int64_t b, int64_t y, int64_t xx, int64_t ch) {
      return nchw ? ((b * g.channels + ch) * g.in_h + y) * g.in_w + xx : ((b * g.in_h + y) * g.in_w + xx) * g.channels + ch;
    };
    auto out_at = [&](int64_t b, int64_t y, int64_t xx, int64_t ch) {
      return nchw ? ((b * g.channels + ch) * g.out_h + y) * g.out_w + xx
                  : ((b * g.out_h + y) * g.out_w + xx) * g.channels + ch;
    };
    for (bool max : {true, false}) {
      std::vector<float> want(in_n, 0.0f);
      for (int64_t b = 0; b < g.batch; ++b) {
        for (int64_t oy = 0; oy < g.out_h; ++oy) {
          for (int64_t ox = 0; ox < g.out_w; ++ox) {
            const int64_t y0 = std::max<int64_t>(oy * g.stride_h - g.pad_top, 0);
            const int64_t y1 = std::min<int64_t>(oy * g.stride_h - g.pad_top + g.k_h, g.in_h);
            const int64_t x0 = std::max<int64_t>(ox * g.stride_w - g.pad_left, 0);
            const int64_t x1 = std::min<int64_t>(ox * g.stride_w - g.pad_left + g.k_w, g.in_w);
            for (int64_t ch = 0; ch < g.channels; ++ch) {
              const float grad = dy[out_at(b, oy, ox, ch)];
              if (!max) {
                const float share = 1.0f / static_cast<float>((y1 - y0) * (x1 - x0));
                for (int64_t iy = y0; iy < y1; ++iy) {
                  for (int64_t ix = x0; ix < x1; ++ix) want[in_at(b, iy, ix, ch)] += grad * share;
                }
                continue;
              }
              int64_t best = -1;
              float best_value = 0;
              for (int64_t iy = y0; iy < y1 && !(best >= 0 && std::isnan(best_value)); ++iy) {
                for (int64_t ix = x0; ix < x1; ++ix) {
                  const float v = x[in_at(b, iy, ix, ch)];
                  if (std::isnan(v)) {
                    best = in_at(b, iy, ix, ch), best_value = v;
                    break;
                  }
                  if (best < 0 || v > best_value) best = in_at(b, iy, ix, ch), best_value = v;
                }
              }
              want[best] += grad;
            }
          }
        }
      }
      // Max moves values exactly; an average's products may be fused into
      // multiply-adds by one compiler and not the other.
      for (int64_t i = 0; i < in_n; ++i) {
        const float got = PoolGradElement<float>(x.data(), dy.data(), i, g, max);
        if (max) {
          ASSERT_EQ(got, want[i]) << (nchw ? "NCHW" : "NHWC") << " element " << i;
        } else {
          ASSERT_NEAR(got, want[i], 1e-6f * std::abs(want[i])) << (nchw ? "NCHW" : "NHWC") << " element " << i;
        }
      }
    }
  }
}

template <typename E>
double AsDouble(E x) {
  return static_cast<double>(static_cast<ComputeType<E>>(x));
}

// A flat kernel's grid on the host: every thread's share, packed when the
// launcher would pack. Each output element is written once, with F's
// value, and nothing past n is touched.
template <typename T, typename Out, typename F>
void ExpectPackedUnaryCoversEachElementOnce(const std::vector<T>& storage, int64_t offset, int64_t n) {
  using C = ComputeType<T>;
  constexpr int N = kPackOf<T, Out>;
  std::vector<Out> out_storage(storage.size() + 8, Out(0));
  const T* in = storage.data() + offset;
  Out* out = out_storage.data() + offset;
  const bool packed = PackAligned(in, N) && PackAligned(out, N);
  EXPECT_EQ(packed, offset % N == 0) << "vectors are 16-byte aligned; offset " << offset;
  for (int64_t stride : {1, 3, 8}) {
    std::fill(out_storage.begin(), out_storage.end(), Out(7));
    for (int64_t first = 0; first < stride; ++first) UnaryThread<T, Out, F>(in, out, n, packed, first, stride);
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(AsDouble(out[i]), AsDouble(static_cast<Out>(F()(static_cast<C>(in[i])))))
          << "element " << i << " of " << n << " stride " << stride;
    }
    for (size_t i = offset + n; i < out_storage.size(); ++i) EXPECT_EQ(AsDouble(out_storage[i]), 7.0);
  }
}

TEST(KernelBodiesTest, PackedUnaryRunsCoverEachElementOnce) {
  static_assert(kPackOf<float, float> == 4 && kPackOf<double, double> == 2 && kPackOf<__half, __half> == 4 &&
                kPackOf<float, bool> == 4 && kPackOf<int8_t, double> == 2 && kPackOf<int64_t, int64_t> == 2);
  std::vector<float> f(40);
  std::vector<double> d(40);
  std::vector<__half> h(40);
  for (size_t i = 0; i < f.size(); ++i) {
    f[i] = static_cast<float>(i) * 0.25f - 3;
    d[i] = f[i];
    h[i] = __float2half(f[i]);
  }
  for (int64_t offset : {0, 1, 2, 4}) {
    for (int64_t n : {0, 1, 3, 4, 5, 17, 31}) {
      ExpectPackedUnaryCoversEachElementOnce<float, float, math::Exp>(f, offset, n);
      ExpectPackedUnaryCoversEachElementOnce<double, double, math::Exp>(d, offset, n);
      ExpectPackedUnaryCoversEachElementOnce<__half, __half, math::Exp>(h, offset, n);
    }
  }
}

TEST(KernelBodiesTest, PackedBinaryRunsRepeatScalarsAndCoverEachElementOnce) {
  std::vector<float> a(64), b(64);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i % 7) - 3;
    b[i] = static_cast<float>(i % 5) - 2;
  }
  for (int64_t lhs_step : {0, 1}) {
    for (int64_t rhs_step : {0, 1}) {
      for (int64_t n : {1, 4, 6, 23}) {
        for (int64_t stride : {1, 5}) {
          std::vector<float> sum(72, -1);
          std::vector<uint8_t> less(72, 9);
          for (int64_t first = 0; first < stride; ++first) {
            BinaryFlatThread<float, float, math::Add>(a.data(), lhs_step, b.data(), rhs_step, sum.data(), n, true,
                                                      first, stride);
            BinaryFlatThread<float, bool, math::Less>(a.data(), lhs_step, b.data(), rhs_step,
                                                      reinterpret_cast<bool*>(less.data()), n, true, first, stride);
          }
          for (int64_t i = 0; i < n; ++i) {
            const float l = a[i * lhs_step], r = b[i * rhs_step];
            EXPECT_EQ(sum[i], l + r) << i;
            EXPECT_EQ(less[i], l < r ? 1 : 0) << i;
          }
          for (size_t i = n; i < sum.size(); ++i) {
            EXPECT_EQ(sum[i], -1);
            EXPECT_EQ(less[i], 9);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace ember::cuda

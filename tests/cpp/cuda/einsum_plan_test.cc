// Tests MakeEinsumGpuPlan (Note [GPU einsum]) without a GPU: each plan is
// run on the host, its rearrangements through the reduction kernels' own
// per-output body (reduce_body.h) and its products as plain loops, and
// must give what a direct evaluation of the equation gives (a sum over
// every assignment of the labels).
#include "kernels/cuda/einsum_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cuda/reduce_body.h"

namespace ember::cuda {
namespace {

using shape_fns::EinsumSpec;

std::vector<double> Values(const Shape& shape, int seed) {
  std::vector<double> v(shape.NumElements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(1.0 + seed * 7.0 + static_cast<double>(i) * 0.37);
  return v;
}

// The plan, run on the host.
std::vector<double> RunPlan(const EinsumGpuPlan& plan, const std::vector<std::vector<double>>& inputs,
                            int64_t output_elements) {
  std::vector<std::vector<double>> scratch;
  for (int64_t e : plan.scratch_elements) scratch.emplace_back(e, std::nan(""));
  std::vector<double> out(output_elements, std::nan(""));
  auto buffer = [&](int id) -> double* {
    if (id == EinsumGpuPlan::kOutput) return out.data();
    if (id < plan.num_inputs) return const_cast<double*>(inputs[id].data());
    return scratch[id - plan.num_inputs].data();
  };
  for (const EinsumStep& step : plan.steps) {
    double* dst = buffer(step.dst);
    EXPECT_TRUE(step.dst == EinsumGpuPlan::kOutput || step.dst >= plan.num_inputs) << "a step writes an input";
    switch (step.kind) {
      case EinsumStep::Kind::kArrange:
        for (int64_t o = 0; o < step.arrange.num_outputs; ++o) {
          dst[o] = ReduceOutput<double, Sum<double>>(buffer(step.src), o, step.arrange);
        }
        break;
      case EinsumStep::Kind::kZero:
        for (int64_t i = 0; i < step.elements; ++i) dst[i] = 0;
        break;
      case EinsumStep::Kind::kGemm: {
        const double* a = buffer(step.src);
        const double* b = buffer(step.src2);
        for (int64_t p = 0; p < step.batch; ++p) {
          for (int64_t i = 0; i < step.m; ++i) {
            for (int64_t j = 0; j < step.n; ++j) {
              double acc = 0;
              for (int64_t l = 0; l < step.k; ++l) acc += a[(p * step.m + i) * step.k + l] * b[(p * step.k + l) * step.n + j];
              dst[(p * step.m + i) * step.n + j] = acc;
            }
          }
        }
        break;
      }
    }
  }
  return out;
}

// The equation by definition: every assignment of the labels adds the
// product of the operands' entries (a broadcast dim of size 1 reads index
// 0) to the output entry of the output labels.
std::vector<double> Direct(const EinsumSpec& spec, const std::vector<Shape>& shapes,
                           const std::vector<std::vector<double>>& inputs) {
  const int num_labels = spec.num_labels();
  // Only the labels the equation uses (the spec has a slot for every letter).
  std::vector<int64_t> sizes(num_labels, 1);
  for (const auto& labels : spec.inputs) {
    for (int l : labels) sizes[l] = spec.sizes[l];
  }
  int64_t assignments = 1, out_elements = 1;
  for (int64_t s : sizes) assignments *= s;
  for (int l : spec.output) out_elements *= spec.sizes[l];
  std::vector<double> out(out_elements, 0.0);
  std::vector<int64_t> value(num_labels);
  for (int64_t a = 0; a < assignments; ++a) {
    int64_t rest = a;
    for (int l = num_labels - 1; l >= 0; --l) {
      value[l] = rest % sizes[l];
      rest /= sizes[l];
    }
    double product = 1;
    for (size_t i = 0; i < inputs.size(); ++i) {
      int64_t offset = 0;
      for (int d = 0; d < shapes[i].rank(); ++d) {
        offset = offset * shapes[i].dim(d) + (shapes[i].dim(d) == 1 ? 0 : value[spec.inputs[i][d]]);
      }
      product *= inputs[i][offset];
    }
    int64_t o = 0;
    for (int l : spec.output) o = o * spec.sizes[l] + value[l];
    out[o] += product;
  }
  return out;
}

struct Case {
  std::string equation;
  std::vector<Shape> shapes;
};

TEST(EinsumPlanTest, PlansRunOnTheHostMatchTheDirectSum) {
  const std::vector<Case> cases = {
      {"ij,jk->ik", {Shape({3, 4}), Shape({4, 5})}},
      {"ij,jk", {Shape({3, 4}), Shape({4, 5})}},
      {"bij,bjk->bik", {Shape({2, 3, 4}), Shape({2, 4, 5})}},
      {"btd,dhk->bthk", {Shape({2, 3, 4}), Shape({4, 2, 3})}},   // Keras MultiHeadAttention's projections
      {"bthk,bshk->bhts", {Shape({2, 3, 2, 4}), Shape({2, 5, 2, 4})}},
      {"bhts,bshk->bthk", {Shape({2, 2, 3, 5}), Shape({2, 5, 2, 4})}},
      {"bthk,hko->bto", {Shape({2, 3, 2, 4}), Shape({2, 4, 6})}},
      {"ii->i", {Shape({4, 4})}},
      {"ii", {Shape({4, 4})}},
      {"ij->ji", {Shape({3, 5})}},
      {"ij->", {Shape({3, 5})}},
      {"i,i->", {Shape({6}), Shape({6})}},
      {"i,j->ij", {Shape({3}), Shape({4})}},
      {"ijk->kji", {Shape({2, 3, 4})}},
      {"iij,jk->ik", {Shape({3, 3, 4}), Shape({4, 2})}},
      {"ij,jk,kl->il", {Shape({2, 3}), Shape({3, 4}), Shape({4, 5})}},
      {"ab,cd->", {Shape({2, 3}), Shape({4, 5})}},
      {"...ij,...jk->...ik", {Shape({2, 1, 3, 4}), Shape({5, 4, 2})}},  // '...' broadcasts
      {"...i,i->...", {Shape({2, 3, 4}), Shape({4})}},
      {"ij,jk->ik", {Shape({3, 0}), Shape({0, 5})}},  // an empty contraction: zeros
      {"bij,bjk->bki", {Shape({3, 2, 4}), Shape({3, 4, 2})}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation);
    EinsumSpec spec;
    ASSERT_TRUE(shape_fns::ParseEinsum(c.equation, c.shapes.data(), static_cast<int>(c.shapes.size()), &spec).ok());
    EinsumGpuPlan plan;
    const Status s = MakeEinsumGpuPlan(spec, c.shapes, &plan);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::vector<std::vector<double>> inputs;
    for (size_t i = 0; i < c.shapes.size(); ++i) inputs.push_back(Values(c.shapes[i], static_cast<int>(i)));
    const std::vector<double> want = Direct(spec, c.shapes, inputs);
    const std::vector<double> got = RunPlan(plan, inputs, static_cast<int64_t>(want.size()));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-9) << "element " << i;
  }
}

TEST(EinsumPlanTest, ProductsInTheOutputsOrderAreWrittenInPlace) {
  const std::vector<Shape> shapes = {Shape({2, 3, 2, 4}), Shape({2, 5, 2, 4})};
  EinsumSpec spec;
  ASSERT_TRUE(shape_fns::ParseEinsum("bthk,bshk->bhts", shapes.data(), 2, &spec).ok());
  EinsumGpuPlan plan;
  ASSERT_TRUE(MakeEinsumGpuPlan(spec, shapes, &plan).ok());
  ASSERT_FALSE(plan.steps.empty());
  EXPECT_EQ(plan.steps.back().kind, EinsumStep::Kind::kGemm);
  EXPECT_EQ(plan.steps.back().dst, EinsumGpuPlan::kOutput);
  EXPECT_EQ(plan.steps.size(), 3u);  // both sides rearranged, one GEMM, no copy out
}

// The first pair's product [i, j] is larger than any input: past int64_t
// the plan fails instead of wrapping.
TEST(EinsumPlanTest, AnIntermediatePastInt64IsAnError) {
  const int64_t big = int64_t{1} << 33;
  const std::vector<Shape> shapes = {Shape({big}), Shape({big}), Shape({big, 1}), Shape({big, 1})};
  EinsumSpec spec;
  ASSERT_TRUE(shape_fns::ParseEinsum("i,j,ik,jk->", shapes.data(), 4, &spec).ok());
  EinsumGpuPlan plan;
  const Status s = MakeEinsumGpuPlan(spec, shapes, &plan);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("more elements than fit in int64"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace ember::cuda

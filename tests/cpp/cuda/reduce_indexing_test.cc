// Tests MakeReduceIndexing (Note [GPU reductions]) without a GPU: for every
// subset of axes of many shapes, summing the input through the indexing, as
// the kernels address it, gives the reduction computed directly over
// multi-indices.
#include "kernels/cuda/reduce_indexing.h"

#include <gtest/gtest.h>

#include <vector>

namespace ember::cuda {
namespace {

// The kernels' addressing (reduce.cu's Offset), on the host.
int64_t Offset(int64_t index, int rank, const int64_t* dims, const int64_t* strides) {
  int64_t offset = 0;
  for (int d = rank - 1; d >= 0; --d) {
    offset += (index % dims[d]) * strides[d];
    index /= dims[d];
  }
  return offset;
}

// The reduction by definition: each input element's value (its index, so
// every element differs) added to the output element of its kept
// coordinates.
std::vector<int64_t> Direct(const std::vector<int64_t>& shape, const std::vector<bool>& reduced) {
  int64_t total = 1, outputs = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    total *= shape[d];
    if (!reduced[d]) outputs *= shape[d];
  }
  std::vector<int64_t> out(outputs, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t rest = i, o = 0, scale = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      const int64_t coordinate = rest % shape[d];
      rest /= shape[d];
      if (!reduced[d]) {
        o += coordinate * scale;
        scale *= shape[d];
      }
    }
    out[o] += i;
  }
  return out;
}

std::vector<int64_t> ThroughIndexing(const ReduceIndexing& ix) {
  std::vector<int64_t> out(ix.num_outputs, 0);
  for (int64_t o = 0; o < ix.num_outputs; ++o) {
    const int64_t base = Offset(o, ix.kept_rank, ix.kept_dims, ix.kept_strides);
    for (int64_t r = 0; r < ix.num_reduced; ++r) {
      out[o] += base + Offset(r, ix.reduced_rank, ix.reduced_dims, ix.reduced_strides);
    }
  }
  return out;
}

TEST(ReduceIndexingTest, EveryAxisSubsetOfManyShapes) {
  const std::vector<std::vector<int64_t>> shapes = {
      {7}, {1}, {3, 4}, {1, 5}, {4, 1}, {2, 3, 4}, {2, 1, 3}, {3, 2, 2, 3}, {2, 3, 1, 2, 2}, {2, 2, 2, 2, 2, 2},
      {0, 3}, {3, 0}, {2, 0, 2}};
  int checked = 0;
  for (const auto& dims : shapes) {
    const int rank = static_cast<int>(dims.size());
    for (int mask = 0; mask < (1 << rank); ++mask) {
      std::vector<bool> reduced(rank);
      for (int d = 0; d < rank; ++d) reduced[d] = (mask >> d) & 1;
      const Shape shape(dims);
      const ReducePlan plan = MakeReducePlan(shape, reduced);
      ReduceIndexing ix;
      ASSERT_TRUE(MakeReduceIndexing(shape, plan, &ix).ok());
      const std::vector<int64_t> want = Direct(dims, reduced);
      ASSERT_EQ(ix.num_outputs, static_cast<int64_t>(want.size())) << shape.ToString() << " mask " << mask;
      EXPECT_EQ(ThroughIndexing(ix), want) << shape.ToString() << " mask " << mask;
      ++checked;
    }
  }
  EXPECT_GT(checked, 150);
}

}  // namespace
}  // namespace ember::cuda

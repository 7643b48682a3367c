// Tests MakeTransposeIndexing (Note [GPU transpose]) without a GPU: moving
// elements through the indexing, as the kernel does, gives the transpose
// by definition, for every permutation of many shapes.
#include "kernels/cuda/transpose_indexing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace ember::cuda {
namespace {

std::vector<int64_t> ThroughIndexing(const std::vector<int64_t>& in, const TransposeIndexing& ix) {
  std::vector<int64_t> out(ix.num_elements);
  for (int64_t i = 0; i < ix.num_elements; ++i) {
    int64_t rest = i, from = 0;
    for (int d = ix.rank - 1; d >= 0; --d) {
      from += (rest % ix.out_dims[d]) * ix.in_strides[d];
      rest /= ix.out_dims[d];
    }
    out[i] = in[from];
  }
  return out;
}

// out[j...] = in[j permuted back], by walking the output's multi-indices.
std::vector<int64_t> Direct(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> in_strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * dims[d + 1];
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  std::vector<int64_t> out(total), index(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t from = 0;
    for (int d = 0; d < rank; ++d) from += index[d] * in_strides[perm[d]];
    out[i] = from;  // the input holds its own offsets
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < dims[perm[d]]) break;
      index[d] = 0;
    }
  }
  return out;
}

TEST(TransposeIndexingTest, EveryPermutationOfManyShapes) {
  const std::vector<std::vector<int64_t>> shapes = {{5}, {2, 3}, {1, 4}, {3, 1, 2}, {2, 3, 4}, {2, 1, 3, 2},
                                                    {2, 3, 2, 2, 3}, {0, 3}, {2, 2, 1, 2, 2, 2}};
  int checked = 0;
  for (const auto& dims : shapes) {
    std::vector<int64_t> perm(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
    int64_t total = 1;
    for (int64_t d : dims) total *= d;
    std::vector<int64_t> input(total);
    std::iota(input.begin(), input.end(), 0);
    do {
      TransposeIndexing ix;
      ASSERT_TRUE(MakeTransposeIndexing(Shape(dims), perm, &ix).ok());
      EXPECT_EQ(ThroughIndexing(input, ix), Direct(dims, perm)) << Shape(dims).ToString();
      ++checked;
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  EXPECT_EQ(checked, 1 + 2 + 2 + 6 + 6 + 24 + 120 + 2 + 720);
  // An empty perm reverses the dims.
  TransposeIndexing ix;
  ASSERT_TRUE(MakeTransposeIndexing(Shape({2, 3, 4}), {}, &ix).ok());
  std::vector<int64_t> input(24);
  std::iota(input.begin(), input.end(), 0);
  EXPECT_EQ(ThroughIndexing(input, ix), Direct({2, 3, 4}, {2, 1, 0}));
}

TEST(TransposeIndexingTest, MergesDimsThatStayTogether) {
  TransposeIndexing ix;
  // [a, b, c, d] -> [c, d, a, b] is a 2-D transpose of [a*b, c*d].
  ASSERT_TRUE(MakeTransposeIndexing(Shape({2, 3, 4, 5}), {2, 3, 0, 1}, &ix).ok());
  EXPECT_EQ(ix.rank, 2);
  EXPECT_EQ(ix.out_dims[0], 20);
  EXPECT_EQ(ix.out_dims[1], 6);
}

}  // namespace
}  // namespace ember::cuda

// Tests Note [Matmul tiles] and Note [Vector-matrix splits]: how a product
// is cut into tiles for the intra-op pool.
#include <gtest/gtest.h>

#include "kernels/cpu/matmul_gemm.h"

namespace ember::cpu {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

MatmulDims Dims(int64_t m, int64_t k, int64_t n) { return MatmulDims{m, k, n, false, false}; }

TEST(MatmulSplitTest, VectorMatrixSplitsWhenTheMatrixFitsTheCoresL2sTogether) {
  // The MLP's 784x512 float32 layer at batch 1 (1.53 MiB) with 2 MiB per core.
  const MatmulSplit split = PlanMatmulSplit(Dims(1, 784, 512), 1, 2, 4, 2 * kMiB);
  EXPECT_EQ(split.row_parts, 1);
  EXPECT_EQ(split.col_parts, 2);
  // The parts cover every column once, on 64-byte boundaries.
  const MatmulTileRange first = split.Tile(Dims(1, 784, 512), 0), second = split.Tile(Dims(1, 784, 512), 1);
  EXPECT_EQ(first.col_begin, 0);
  EXPECT_EQ(first.col_end, second.col_begin);
  EXPECT_EQ(second.col_end, 512);
  EXPECT_EQ(first.col_end % 16, 0);
  // A matrix-vector product is cut by rows instead.
  const MatmulSplit rows = PlanMatmulSplit(Dims(512, 784, 1), 1, 2, 4, 2 * kMiB);
  EXPECT_EQ(rows.row_parts, 2);
  EXPECT_EQ(rows.col_parts, 1);
}

TEST(MatmulSplitTest, VectorMatrixStaysWholeOtherwise) {
  // Larger than half of the cores' L2s together (the EPYC's 1 MiB per core).
  EXPECT_EQ(PlanMatmulSplit(Dims(1, 784, 512), 1, 2, 4, kMiB).tiles(), 1);
  // Small enough for one core's L2 (a quarter of it or less).
  EXPECT_EQ(PlanMatmulSplit(Dims(1, 512, 256), 1, 2, 4, 2 * kMiB).tiles(), 1);
  // The cache size unknown, or one thread.
  EXPECT_EQ(PlanMatmulSplit(Dims(1, 784, 512), 1, 2, 4, 0).tiles(), 1);
  EXPECT_EQ(PlanMatmulSplit(Dims(1, 784, 512), 1, 1, 4, 2 * kMiB).tiles(), 1);
  // float64 doubles the bytes: 3.06 MiB is more than half of 2 x 2 MiB.
  EXPECT_EQ(PlanMatmulSplit(Dims(1, 784, 512), 1, 2, 8, 2 * kMiB).tiles(), 1);
}

TEST(MatmulSplitTest, ProductsCutTheirLongerSide) {
  // [64, 784] x [784, 512]: columns, so that each thread packs half of b.
  const MatmulSplit split = PlanMatmulSplit(Dims(64, 784, 512), 1, 2, 4, 2 * kMiB);
  EXPECT_EQ(split.row_parts, 1);
  EXPECT_EQ(split.col_parts, 2);
  // Enough products for every thread: each stays whole.
  EXPECT_EQ(PlanMatmulSplit(Dims(64, 784, 512), 4, 2, 4, 2 * kMiB).tiles(), 1);
}

}  // namespace
}  // namespace ember::cpu

// This file implements PlanMatmulSplit and MatmulSplit::Tile (Note [Matmul
// tiles] in matmul_gemm.h).
#include <algorithm>

#include "kernels/cpu/matmul_gemm.h"

namespace ember::cpu {
namespace {

// No tile is cut thinner than this many rows or columns: a thinner GEMM
// spends more on packing than it gains from another thread. A multiple of
// 16 keeps column cuts on 64-byte lines for float32.
constexpr int64_t kMinTileSide = 32;
// Products below this m * n * k stay whole: waking a thread costs more.
constexpr double kMinSplitVolume = 64.0 * 64.0 * 64.0;

// [begin, end) of part p of `parts` near-equal parts of `size`, each
// boundary rounded down to a multiple of `align`.
std::pair<int64_t, int64_t> Part(int64_t size, int64_t parts, int64_t p, int64_t align) {
  auto cut = [&](int64_t q) { return q == parts ? size : (size * q / parts) / align * align; };
  return {cut(p), cut(p + 1)};
}

}  // namespace

MatmulSplit PlanMatmulSplit(const MatmulDims& dims, int64_t batches, int threads) {
  MatmulSplit split;
  const double volume = static_cast<double>(dims.m) * static_cast<double>(dims.n) * static_cast<double>(dims.k);
  // A vector-matrix product (m or n of 1) streams its matrix once; on two
  // threads the wake-up cost more than the second thread saved (the MLP at
  // batch 1: 52 us whole, 67 us split), so it stays whole as before.
  if (batches >= threads || volume < kMinSplitVolume || dims.m == 1 || dims.n == 1) return split;
  const int64_t wanted = (threads + batches - 1) / batches;
  while (split.tiles() < wanted) {
    const bool rows_can = dims.m / (split.row_parts + 1) >= kMinTileSide;
    const bool cols_can = dims.n / (split.col_parts + 1) >= kMinTileSide;
    const bool rows_longer = dims.m * split.col_parts >= dims.n * split.row_parts;
    if (rows_can && (rows_longer || !cols_can)) {
      ++split.row_parts;
    } else if (cols_can) {
      ++split.col_parts;
    } else {
      break;
    }
  }
  return split;
}

MatmulTileRange MatmulSplit::Tile(const MatmulDims& dims, int64_t t) const {
  const auto [row_begin, row_end] = Part(dims.m, row_parts, t / col_parts, 1);
  const auto [col_begin, col_end] = Part(dims.n, col_parts, t % col_parts, 16);
  return MatmulTileRange{row_begin, row_end, col_begin, col_end};
}

}  // namespace ember::cpu

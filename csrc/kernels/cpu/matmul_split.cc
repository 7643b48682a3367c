// This file implements PlanMatmulSplit and MatmulSplit::Tile (Note [Matmul
// tiles] in matmul_gemm.h).
#include <unistd.h>

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

int64_t PerCoreL2Bytes() {
  static const int64_t bytes = [] {
#ifdef _SC_LEVEL2_CACHE_SIZE
    const long size = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return size > 0 ? static_cast<int64_t>(size) : int64_t{0};
#else
    return int64_t{0};
#endif
  }();
  return bytes;
}

MatmulSplit PlanMatmulSplit(const MatmulDims& dims, int64_t batches, int threads, int64_t element_bytes,
                            int64_t l2_bytes) {
  MatmulSplit split;
  const double volume = static_cast<double>(dims.m) * static_cast<double>(dims.n) * static_cast<double>(dims.k);
  if (batches >= threads || volume < kMinSplitVolume) return split;
  if (dims.m == 1 || dims.n == 1) {
    // Note [Vector-matrix splits]: a vector-matrix product (m or n of 1)
    // streams its matrix once, so a second thread helps only when the
    // matrix would otherwise come from L3: cut in one part per thread, each
    // thread keeps its part in its own L2 from one call to the next (the
    // pool's fixed shares, Note [Intra-op pool]). That holds when the
    // matrix fills more than a quarter of one core's L2 (so that two of
    // them do not fit one core) and at most half of all of them together. The MLP at batch 1 (784x512 and 512x512 float32,
    // 2.6 MiB) on the Xeon with 2 MiB of L2 per core: 93.8 us whole, 57.6
    // us split, in the suite (stop 44). On the EPYC, whose 1 MiB L2s the
    // 784x512 matrix does not fit, the wake-up cost more than the second
    // thread saved (52 us whole, 67 us split, stop 36): there it stays
    // whole.
    // The parts are slices of k, not of n, when the vector is on the left
    // (VectorMatrixByRows, matmul_gemm.h): a slice of n is half of every
    // row, and with rows of a power of two bytes (512 float32 is 2 KiB) the
    // halves map to half of L2's sets, so that one core's 1.3 MiB of MLP
    // weights did not stay in its 2 MiB L2: [1, 784] x [784, 512] then
    // [1, 512] x [512, 512] took 52-67 us in a loop, against 10 and 7 us
    // each alone. Slices of k are whole rows, contiguous: 22 us (stop 45).
    const int64_t matrix_bytes = (dims.m == 1 ? dims.n : dims.m) * dims.k * element_bytes;
    const int64_t side = dims.m == 1 ? dims.n : dims.m;
    if (l2_bytes <= 0 || 4 * matrix_bytes <= l2_bytes || 2 * matrix_bytes > threads * l2_bytes) return split;
    const int64_t parts = std::min<int64_t>(threads, side / kMinTileSide);
    (dims.m == 1 ? split.col_parts : split.row_parts) = std::max<int64_t>(parts, 1);
    return split;
  }
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

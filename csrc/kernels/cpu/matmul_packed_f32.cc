// This file implements the packed float32 GEMM (Note [Packed float32 GEMM]
// in matmul_packed.h).
#include <algorithm>
#include <cstring>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/matmul_packed.h"

namespace ember::cpu {
namespace {

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr int kLanes = Eigen::internal::packet_traits<float>::size;
// The kernel is written for AVX-512: four 16-lane packets per row of the
// tile, and 32 registers for its 24 accumulators.
constexpr bool kAvailable = kLanes == 16 && EIGEN_ARCH_DEFAULT_NUMBER_OF_REGISTERS >= 32;
constexpr int kPackets = 4;
constexpr int64_t kColumns = kPackedColumns;  // one block of c's columns
static_assert(!kAvailable || kColumns == kPackets * kLanes);
constexpr int kRows = 6;                   // rows of a tile
constexpr int64_t kDepth = kPackedDepth;  // one chunk of k: a [kDepth, kColumns] panel is 32 KiB
// Rows of b ahead of the copy that are prefetched: the rows are n floats
// apart, too far for the hardware prefetcher to follow within a page.
constexpr int64_t kPrefetchRows = 8;

// Limits of UsesPackedSgemm, measured on the 2-core Xeon (stop 45).
constexpr int64_t kMinRows = 12;
constexpr int64_t kMinDepth = kPackedMinDepth;
constexpr int64_t kMinColumns = kPackedMinColumns;
constexpr int64_t kMaxRowsForLongRows = 512;
constexpr int64_t kLongRow = 1024;

// c[0..kR, 0..kColumns) (+)= a's kR rows times the panel, over `depth`
// steps of k; `accumulate` adds to what c holds (a later chunk of k).
template <int kR>
void Tile(const float* a, int64_t row_stride, int64_t k_stride, const float* panel, float* c, int64_t ldc,
          int64_t depth, bool accumulate) {
  using Eigen::internal::pload;
  using Eigen::internal::ploadu;
  using Eigen::internal::pmadd;
  using Eigen::internal::pset1;
  Packet acc[kR][kPackets];
  _Pragma("GCC unroll 8") for (int r = 0; r < kR; ++r) {
    _Pragma("GCC unroll 4") for (int j = 0; j < kPackets; ++j) {
      acc[r][j] = accumulate ? ploadu<Packet>(c + r * ldc + j * kLanes) : pset1<Packet>(0.0f);
    }
  }
  for (int64_t p = 0; p < depth; ++p, panel += kColumns) {
    Packet b[kPackets];
    _Pragma("GCC unroll 4") for (int j = 0; j < kPackets; ++j) b[j] = pload<Packet>(panel + j * kLanes);
    const float* a_p = a + p * k_stride;
    _Pragma("GCC unroll 8") for (int r = 0; r < kR; ++r) {
      const Packet v = pset1<Packet>(a_p[r * row_stride]);
      _Pragma("GCC unroll 4") for (int j = 0; j < kPackets; ++j) acc[r][j] = pmadd(v, b[j], acc[r][j]);
    }
  }
  _Pragma("GCC unroll 8") for (int r = 0; r < kR; ++r) {
    _Pragma("GCC unroll 4") for (int j = 0; j < kPackets; ++j) {
      Eigen::internal::pstoreu(c + r * ldc + j * kLanes, acc[r][j]);
    }
  }
}

using TileFn = void (*)(const float*, int64_t, int64_t, const float*, float*, int64_t, int64_t, bool);
constexpr TileFn kTiles[kRows + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>, Tile<4>, Tile<5>, Tile<6>};

// panel[p, 0..kColumns) = b[p, 0..cols), zero past cols, for p < depth.
void PackPanel(const float* b, int64_t ldb, int64_t cols, int64_t depth, float* panel) {
  for (int64_t p = 0; p < depth; ++p, b += ldb, panel += kColumns) {
    if (p + kPrefetchRows < depth) {
      const char* ahead = reinterpret_cast<const char*>(b + kPrefetchRows * ldb);
      for (int64_t byte = 0; byte < cols * static_cast<int64_t>(sizeof(float)); byte += 64) {
        __builtin_prefetch(ahead + byte);
      }
    }
    if (cols == kColumns) {
      _Pragma("GCC unroll 4") for (int j = 0; j < kPackets; ++j) {
        Eigen::internal::pstore(panel + j * kLanes, Eigen::internal::ploadu<Packet>(b + j * kLanes));
      }
    } else {
      std::memcpy(panel, b, cols * sizeof(float));
      std::fill(panel + cols, panel + kColumns, 0.0f);
    }
  }
}

// panel[p, j] = b[j * ldb + p] (b transposed), zero past cols, for p <
// depth and j < kColumns: 16 x 16 blocks transposed in registers.
void PackPanelTransposed(const float* b, int64_t ldb, int64_t cols, int64_t depth, float* panel) {
  constexpr int64_t kSide = 16;
  for (int64_t j0 = 0; j0 < cols; j0 += kSide) {
    for (int64_t p0 = 0; p0 < depth; p0 += kSide) {
#if defined(EIGEN_VECTORIZE_AVX512)
      if (j0 + kSide <= cols && p0 + kSide <= depth) {
        // Packet16f carries vector attributes, which a template argument
        // drops (the warning is about that, and harmless here).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
        Eigen::internal::PacketBlock<Packet, kSide> block;
#pragma GCC diagnostic pop
        for (int i = 0; i < kSide; ++i) block.packet[i] = Eigen::internal::ploadu<Packet>(b + (j0 + i) * ldb + p0);
        Eigen::internal::ptranspose(block);
        for (int i = 0; i < kSide; ++i) Eigen::internal::pstore(panel + (p0 + i) * kColumns + j0, block.packet[i]);
        continue;
      }
#endif
      for (int64_t j = j0; j < std::min(cols, j0 + kSide); ++j) {
        for (int64_t p = p0; p < std::min(depth, p0 + kSide); ++p) panel[p * kColumns + j] = b[j * ldb + p];
      }
    }
  }
  for (int64_t p = 0; cols < kColumns && p < depth; ++p) {
    std::fill(panel + p * kColumns + cols, panel + (p + 1) * kColumns, 0.0f);
  }
}

// c[0..rows, 0..width) (+)= a's rows times one panel of `depth` steps of
// k; width is at most kColumns.
// The rows are shared out evenly over as few tiles as hold them, so no
// tile is left with one or two rows: each tile loads the same four packets
// of b per step whatever its rows, and 49 rows as 6 x 8 + 1 did 11% more
// loads per product than as 6 x 4 + 5 x 5.
void PanelProduct(const float* a, int64_t row_stride, int64_t k_stride, const float* panel, float* c, int64_t ldc,
                  int64_t rows, int64_t width, int64_t depth, bool accumulate) {
  if (rows <= 0) return;
  const int64_t tiles = (rows + kRows - 1) / kRows, base = rows / tiles, extra = rows % tiles;
  for (int64_t t = 0, i0 = 0; t < tiles; ++t) {
    const int r = static_cast<int>(base + (t < extra ? 1 : 0));
    const float* a_tile = a + i0 * row_stride;
    float* c_tile = c + i0 * ldc;
    i0 += r;
    if (width == kColumns) {
      kTiles[r](a_tile, row_stride, k_stride, panel, c_tile, ldc, depth, accumulate);
      continue;
    }
    // A ragged last block: the tile runs on a full-width copy of c.
    float lanes[kRows * kColumns];
    for (int i = 0; accumulate && i < r; ++i) {
      std::memcpy(lanes + i * kColumns, c_tile + i * ldc, width * sizeof(float));
    }
    kTiles[r](a_tile, row_stride, k_stride, panel, lanes, kColumns, depth, accumulate);
    for (int i = 0; i < r; ++i) std::memcpy(c_tile + i * ldc, lanes + i * kColumns, width * sizeof(float));
  }
}

}  // namespace

bool UsesPackedSgemm(int64_t rows, int64_t cols, int64_t k) {
  return kAvailable && rows >= kMinRows && cols >= kMinColumns && k >= kMinDepth &&
         (rows <= kMaxRowsForLongRows || k <= kLongRow);
}

bool PackedSgemmAvailable() { return kAvailable; }

bool UsesPrepackedSgemm(int64_t n) { return kAvailable && n >= kMinColumns; }

void PackedSgemm(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* b, int64_t ldb,
                 bool transpose_b, float* c, int64_t ldc, int64_t rows, int64_t cols, int64_t k) {
  alignas(64) float panel[kDepth * kColumns];
  for (int64_t p0 = 0; p0 < k; p0 += kDepth) {
    const int64_t depth = std::min(kDepth, k - p0);
    for (int64_t j0 = 0; j0 < cols; j0 += kColumns) {
      const int64_t width = std::min(kColumns, cols - j0);
      if (transpose_b) {
        PackPanelTransposed(b + j0 * ldb + p0, ldb, width, depth, panel);
      } else {
        PackPanel(b + p0 * ldb + j0, ldb, width, depth, panel);
      }
      PanelProduct(a + p0 * a_k_stride, a_row_stride, a_k_stride, panel, c + j0, ldc, rows, width, depth, p0 > 0);
    }
  }
}

void PackedSgemmPrepacked(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* packed_b,
                          const PackedLayout& layout, float* c, int64_t ldc, int64_t rows) {
  for (int64_t p0 = 0; p0 < layout.k; p0 += kDepth) {
    const int64_t depth = std::min(kDepth, layout.k - p0);
    for (int64_t blk = 0; blk < layout.blocks(); ++blk) {
      const int64_t j0 = blk * kColumns, width = std::min(kColumns, layout.n - j0);
      PanelProduct(a + p0 * a_k_stride, a_row_stride, a_k_stride, packed_b + layout.RowStart(p0, blk), c + j0, ldc,
                   rows, width, depth, p0 > 0);
    }
  }
}

}  // namespace ember::cpu

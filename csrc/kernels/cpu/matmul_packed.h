// This file declares Ember's own float32 GEMM for mid-sized products on
// CPUs with AVX-512 (Note [Packed float32 GEMM]); MatmulTile calls it
// before OpenBLAS.
#pragma once

#include <algorithm>
#include <cstdint>

namespace ember::cpu {

// Note [Packed float32 GEMM]
// The products of an MLP layer, a Transformer block and a convolution's
// im2col or Winograd stage are mid-sized: tens to hundreds of rows, a few
// hundred to a few thousand of k. There OpenBLAS's sgemm reached 60-74% of
// one Xeon core's peak (125-155 of about 209 GFLOP/s, stop 45) and
// PyTorch's MKL 68-80%; this kernel reaches 72-90% (150-187 GFLOP/s:
// [64, 784] x [784, 512] 152-164 against OpenBLAS's 125-138 and MKL's 141):
// - c is computed in tiles of 6 rows by 64 columns (four AVX-512
//   registers), 24 accumulators in registers; each step of k loads four
//   packets of b and broadcasts six values of a: 10 loads per 24 FMAs.
// - k is cut into chunks of 128. For each chunk and each block of 64
//   columns, the block's [128, 64] slice of b is copied into one
//   contiguous, 32 KiB, 64-byte aligned buffer on the stack, which stays
//   in L1 for all the tiles of rows. Read in place, b's rows are n floats
//   apart: with n a power of two they fall into a few L1 sets and evict
//   each other.
//   A transposed b (the backward pass's dX = dY W^T, attention's Q K^T) is
//   copied in 16 x 16 blocks transposed in registers.
// - a is read in place: six rows advance in step, each read sequentially.
// - later chunks add to the tile of c the earlier ones stored.
// Each element of c sums its k products in the same order whatever the
// tile or thread count, so results do not depend on the pool's size.
// Where it loses to OpenBLAS, the product goes there: many rows with a
// long k, whose rows of a then sit on separate pages (1024x1024x1024: 129
// against 153 GFLOP/s), few rows (nothing to amortize the copy of b over)
// and narrow c (a 64-column block would be mostly padding).
// UsesPackedSgemm says which, measured in docs/performance.md.

// b in the kernel's own layout, made once and read by many products (the
// Winograd convolution's transformed filters): for each chunk of
// kPackedDepth rows of k, for each block of kPackedColumns columns, the
// block's rows back to back, kPackedColumns floats each, zero past n.
inline constexpr int64_t kPackedDepth = 128;
inline constexpr int64_t kPackedColumns = 64;
// UsesPackedSgemm declines products narrower than these (measured, stop 45).
inline constexpr int64_t kPackedMinColumns = 64;
inline constexpr int64_t kPackedMinDepth = 16;
struct PackedLayout {
  int64_t k, n;

  int64_t blocks() const { return (n + kPackedColumns - 1) / kPackedColumns; }
  int64_t size() const { return k * blocks() * kPackedColumns; }
  // Where row p's columns [blk * kPackedColumns, ...) start.
  int64_t RowStart(int64_t p, int64_t blk) const {
    const int64_t chunk = p / kPackedDepth * kPackedDepth, depth = std::min(kPackedDepth, k - chunk);
    return chunk * blocks() * kPackedColumns + blk * depth * kPackedColumns + (p - chunk) * kPackedColumns;
  }
};

// Whether PackedSgemmPrepacked serves products with n columns (false on
// CPUs without AVX-512, and where a block would be mostly padding).
bool UsesPrepackedSgemm(int64_t n);

// c[i, 0..n) for i < rows, as PackedSgemm, with b already in `layout`.
void PackedSgemmPrepacked(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* packed_b,
                          const PackedLayout& layout, float* c, int64_t ldc, int64_t rows);

// Whether this build has the packed kernel (AVX-512).
bool PackedSgemmAvailable();

// Whether the packed kernel computes a tile of `rows` x `cols` of c with
// reduction length k (false on CPUs without AVX-512).
bool UsesPackedSgemm(int64_t rows, int64_t cols, int64_t k);

// c[i, j] = sum over p of a[i * a_row_stride + p * a_k_stride] * B[p, j]
// for i < rows, j < cols, where B[p, j] is b[p * ldb + j], or b[j * ldb + p]
// with transpose_b; c's rows are ldc apart. a_k_stride is 1 for a
// row-major a, and the row stride for a transposed one.
void PackedSgemm(const float* a, int64_t a_row_stride, int64_t a_k_stride, const float* b, int64_t ldb,
                 bool transpose_b, float* c, int64_t ldc, int64_t rows, int64_t cols, int64_t k);

}  // namespace ember::cpu

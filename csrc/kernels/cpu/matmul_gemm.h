// This file declares MatmulTile, the GEMM call behind the matmul, tensordot,
// einsum and convolution kernels, and ParallelMatmul, which splits products
// over the intra-op pool. MatmulTile is explicitly instantiated in
// matmul_gemm_{f32,f64,i32,i64,c64}.cc so that GEMM compiles once per dtype,
// in parallel.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/host_scratch.h"
#include "kernels/cpu/parallel.h"

namespace ember::cpu {

struct MatmulDims {
  int64_t m, k, n;  // c[m, n] = op(a)[m, k] * op(b)[k, n]
  bool transpose_a, transpose_b;
};

// Rows [row_begin, row_end) and columns [col_begin, col_end) of c.
struct MatmulTileRange {
  int64_t row_begin, row_end, col_begin, col_end;
};

// Writes one tile of one product c = op(a) * op(b), where a is stored
// [m, k] (or [k, m] if transpose_a) and b is [k, n] (or [n, k]), all
// row-major and contiguous. Large float32/float64/complex64 tiles go to
// BLAS when the build has it (Note [BLAS GEMM] in blas.h), others to Eigen.
template <typename T>
void MatmulTile(const T* a, const T* b, T* c, const MatmulDims& dims, const MatmulTileRange& tile);

extern template void MatmulTile<float>(const float*, const float*, float*, const MatmulDims&, const MatmulTileRange&);
extern template void MatmulTile<double>(const double*, const double*, double*, const MatmulDims&,
                                        const MatmulTileRange&);
extern template void MatmulTile<int32_t>(const int32_t*, const int32_t*, int32_t*, const MatmulDims&,
                                         const MatmulTileRange&);
extern template void MatmulTile<int64_t>(const int64_t*, const int64_t*, int64_t*, const MatmulDims&,
                                         const MatmulTileRange&);
extern template void MatmulTile<std::complex<float>>(const std::complex<float>*, const std::complex<float>*,
                                                     std::complex<float>*, const MatmulDims&, const MatmulTileRange&);

// Rows [row_begin, row_end) of c, all columns.
template <typename T>
void MatmulRows(const T* a, const T* b, T* c, const MatmulDims& dims, int64_t row_begin, int64_t row_end) {
  MatmulTile<T>(a, b, c, dims, MatmulTileRange{row_begin, row_end, 0, dims.n});
}

// MatmulTile for a c of element type T whose operands a and b are already
// ComputeType<T> (Note [Half compute]): float16 and bfloat16 tiles are
// computed by the float32 GEMM into the same tile of `scratch` (laid out like
// c) and rounded once into c. Other types write c directly; scratch is unused.
template <typename T>
void MatmulTileTo(const ComputeType<T>* a, const ComputeType<T>* b, T* c, ComputeType<T>* scratch,
                  const MatmulDims& dims, const MatmulTileRange& tile) {
  if constexpr (kIsWidened<T>) {
    MatmulTile(a, b, scratch, dims, tile);
    for (int64_t r = tile.row_begin; r < tile.row_end; ++r) {
      const int64_t first = r * dims.n + tile.col_begin;
      ConvertSpan(scratch + first, c + first, tile.col_end - tile.col_begin);
    }
  } else {
    MatmulTile(a, b, c, dims, tile);
  }
}

template <typename T>
void MatmulRowsTo(const ComputeType<T>* a, const ComputeType<T>* b, T* c, ComputeType<T>* scratch,
                  const MatmulDims& dims, int64_t row_begin, int64_t row_end) {
  MatmulTileTo<T>(a, b, c, scratch, dims, MatmulTileRange{row_begin, row_end, 0, dims.n});
}

// Note [Matmul tiles]
// A batch of products is split into batches * row_parts * col_parts tiles,
// the pool's unit of work. With at least as many products as threads each
// product is one tile. Otherwise each product is cut along its longer side
// (rows when m >= n) into about threads / batches tiles: a GEMM packs its
// operands once per call, and cutting the longer side re-reads the smaller
// operand, not the larger one. Cutting rows only, as before, made each
// thread of the [64, 784] x [784, 512] MLP product pack all of b, which was
// slower on two threads than on one.
// For a vector times an untransposed matrix (m of 1), ParallelMatmul cuts
// k into col_parts slices instead of n (Note [Vector-matrix splits]).
struct MatmulSplit {
  int64_t row_parts = 1, col_parts = 1;

  int64_t tiles() const { return row_parts * col_parts; }
  MatmulTileRange Tile(const MatmulDims& dims, int64_t t) const;
};
// element_bytes: of the compute type; l2_bytes: one core's L2 (0 when
// unknown), for vector-matrix products (Note [Vector-matrix splits]).
MatmulSplit PlanMatmulSplit(const MatmulDims& dims, int64_t batches, int threads, int64_t element_bytes,
                            int64_t l2_bytes);
// One core's L2 cache in bytes, from the system; 0 when it does not say.
int64_t PerCoreL2Bytes();

// c[1, n] = a[1, k] * b[k, n] in `parts` slices of k, one per block of
// the pool, each into its own row of partial sums, added in slice order
// (Note [Vector-matrix splits]).
template <typename T>
void VectorMatrixByRows(const DeviceContext* device, const MatmulDims& dims, int64_t parts, const T* a, const T* b,
                        T* c) {
  const int64_t n = dims.n;
  const HostScratch<T> partial(static_cast<size_t>(parts * n));  // Note [Kernel scratch]
  ParallelFor(device, parts, 2.0 * static_cast<double>(n) * static_cast<double>(dims.k) / parts,
              [&](int64_t first, int64_t last) {
                for (int64_t p = first; p < last; ++p) {
                  const int64_t k0 = dims.k * p / parts, k1 = dims.k * (p + 1) / parts;
                  MatmulTile<T>(a + k0, b + k0 * n, partial.data() + p * n, MatmulDims{1, k1 - k0, n, false, false},
                                MatmulTileRange{0, 1, 0, n});
                }
              });
  std::copy(partial.data(), partial.data() + n, c);
  for (int64_t p = 1; p < parts; ++p) {
    for (int64_t j = 0; j < n; ++j) c[j] += partial[p * n + j];
  }
}

// Computes products o in [0, batches): c[o] = op(a[ia]) * op(b[ib]), where
// for_batches(first, last, fn) calls fn(o, ia, ib) for each o in
// [first, last). a, b and c (and scratch, for widened T) hold whole
// products of dims' sizes back to back. Tiles run on `device`'s pool.
template <typename T, typename BatchFn>
void ParallelMatmul(const DeviceContext* device, const MatmulDims& dims, int64_t batches, BatchFn&& for_batches,
                    const ComputeType<T>* a, const ComputeType<T>* b, T* c, ComputeType<T>* scratch) {
  const MatmulSplit split = PlanMatmulSplit(dims, batches, NumThreads(device),
                                            static_cast<int64_t>(sizeof(ComputeType<T>)), PerCoreL2Bytes());
  if constexpr (std::is_floating_point_v<T>) {
    // One vector times a matrix: cut k, not n (Note [Vector-matrix splits]).
    if (batches == 1 && dims.m == 1 && dims.n > 1 && !dims.transpose_b && split.col_parts > 1) {
      return VectorMatrixByRows<T>(device, dims, split.col_parts, a, b, c);
    }
  }
  const int64_t tiles = split.tiles();
  const int64_t a_size = dims.m * dims.k, b_size = dims.k * dims.n, c_size = dims.m * dims.n;
  const double tile_cycles = 2.0 * static_cast<double>(dims.m * dims.n) * static_cast<double>(dims.k) / tiles + 1;
  ParallelFor(device, batches * tiles, tile_cycles, [&](int64_t first, int64_t last) {
    for_batches(first / tiles, (last + tiles - 1) / tiles, [&](int64_t o, int64_t ia, int64_t ib) {
      const int64_t t_end = std::min(last - o * tiles, tiles);
      for (int64_t t = std::max(first - o * tiles, int64_t{0}); t < t_end; ++t) {
        MatmulTileTo<T>(a + ia * a_size, b + ib * b_size, c + o * c_size,
                        kIsWidened<T> ? scratch + o * c_size : nullptr, dims, split.Tile(dims, t));
      }
    });
  });
}

// ParallelMatmul of one product.
template <typename T>
void ParallelMatmul(const DeviceContext* device, const MatmulDims& dims, const ComputeType<T>* a,
                    const ComputeType<T>* b, T* c, ComputeType<T>* scratch = nullptr) {
  ParallelMatmul<T>(
      device, dims, 1, [](int64_t first, int64_t last, auto&& fn) {
        for (int64_t o = first; o < last; ++o) fn(o, o, o);
      },
      a, b, c, scratch);
}

}  // namespace ember::cpu

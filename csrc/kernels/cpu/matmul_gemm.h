// This file declares MatmulRows, the Eigen GEMM call behind the matmul,
// tensordot and einsum kernels. It is explicitly instantiated in
// matmul_gemm_{f32,f64,i32,i64,c64}.cc so that GEMM compiles once per dtype,
// in parallel.
#pragma once

#include <complex>
#include <cstdint>

#include "kernels/cpu/compute_type.h"

namespace ember::cpu {

struct MatmulDims {
  int64_t m, k, n;  // c[m, n] = op(a)[m, k] * op(b)[k, n]
  bool transpose_a, transpose_b;
};

// Writes rows [row_begin, row_end) of one product c = op(a) * op(b), where a
// is stored [m, k] (or [k, m] if transpose_a) and b is [k, n] (or [n, k]),
// all row-major and contiguous.
template <typename T>
void MatmulRows(const T* a, const T* b, T* c, const MatmulDims& dims, int64_t row_begin,
                int64_t row_end);

extern template void MatmulRows<float>(const float*, const float*, float*, const MatmulDims&, int64_t, int64_t);
extern template void MatmulRows<double>(const double*, const double*, double*, const MatmulDims&, int64_t, int64_t);
extern template void MatmulRows<int32_t>(const int32_t*, const int32_t*, int32_t*, const MatmulDims&, int64_t, int64_t);
extern template void MatmulRows<int64_t>(const int64_t*, const int64_t*, int64_t*, const MatmulDims&, int64_t, int64_t);
extern template void MatmulRows<std::complex<float>>(const std::complex<float>*, const std::complex<float>*,
                                                     std::complex<float>*, const MatmulDims&, int64_t, int64_t);

// MatmulRows for a c of element type T whose operands a and b are already
// ComputeType<T> (Note [Half compute]): float16 and bfloat16 rows are
// computed by the float32 GEMM into the same rows of `scratch` (laid out like
// c) and rounded once into c. Other types write c directly; scratch is unused.
template <typename T>
void MatmulRowsTo(const ComputeType<T>* a, const ComputeType<T>* b, T* c, ComputeType<T>* scratch,
                  const MatmulDims& dims, int64_t row_begin, int64_t row_end) {
  if constexpr (kIsWidened<T>) {
    MatmulRows(a, b, scratch, dims, row_begin, row_end);
    const int64_t first = row_begin * dims.n;
    ConvertSpan(scratch + first, c + first, (row_end - row_begin) * dims.n);
  } else {
    MatmulRows(a, b, c, dims, row_begin, row_end);
  }
}

}  // namespace ember::cpu

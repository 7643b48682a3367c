// This file declares MatmulRows, the Eigen GEMM call behind the matmul
// kernel. It is explicitly instantiated in matmul_gemm_{f32,f64,i32,i64}.cc
// so that GEMM compiles once per dtype, in parallel.
#pragma once

#include <cstdint>

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

}  // namespace ember::cpu

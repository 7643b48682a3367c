// This file instantiates MatmulRows for int32 and int64.
#include "kernels/cpu/matmul_gemm_impl.h"

namespace ember::cpu {

template void MatmulRows<int32_t>(const int32_t*, const int32_t*, int32_t*, const MatmulDims&, int64_t, int64_t);
template void MatmulRows<int64_t>(const int64_t*, const int64_t*, int64_t*, const MatmulDims&, int64_t, int64_t);

}  // namespace ember::cpu

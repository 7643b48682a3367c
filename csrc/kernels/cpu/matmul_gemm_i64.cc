// This file instantiates MatmulTile for int64 (one dtype per file: GEMM is the
// slowest code to compile, so the dtypes compile in parallel).
#include "kernels/cpu/matmul_gemm_impl.h"

namespace ember::cpu {

template void MatmulTile<int64_t>(const int64_t*, const int64_t*, int64_t*, const MatmulDims&, const MatmulTileRange&);

}  // namespace ember::cpu

// This file instantiates MatmulTile for float32 (one dtype per file: GEMM is the
// slowest code to compile, so the dtypes compile in parallel).
#include "kernels/cpu/matmul_gemm_impl.h"

namespace ember::cpu {

template void MatmulTile<float>(const float*, const float*, float*, const MatmulDims&, const MatmulTileRange&);

}  // namespace ember::cpu

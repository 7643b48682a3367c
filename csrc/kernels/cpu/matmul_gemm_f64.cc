// This file instantiates MatmulTile for float64 (one dtype per file: GEMM is the
// slowest code to compile, so the dtypes compile in parallel).
#include "kernels/cpu/matmul_gemm_impl.h"

namespace ember::cpu {

template void MatmulTile<double>(const double*, const double*, double*, const MatmulDims&, const MatmulTileRange&);

}  // namespace ember::cpu

// This file instantiates MatmulTile for complex64 (one dtype per file: GEMM is the
// slowest code to compile, so the dtypes compile in parallel).
#include "kernels/cpu/matmul_gemm_impl.h"

namespace ember::cpu {

template void MatmulTile<std::complex<float>>(const std::complex<float>*, const std::complex<float>*,
                                              std::complex<float>*, const MatmulDims&, const MatmulTileRange&);

}  // namespace ember::cpu

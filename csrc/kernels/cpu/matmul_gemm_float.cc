// This file instantiates MatmulRows for float32 and float64.
#include "kernels/cpu/matmul_gemm_impl.h"

namespace ember::cpu {

template void MatmulRows<float>(const float*, const float*, float*, const MatmulDims&, int64_t, int64_t);
template void MatmulRows<double>(const double*, const double*, double*, const MatmulDims&, int64_t, int64_t);

}  // namespace ember::cpu

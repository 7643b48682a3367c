// This file instantiates the CUDA casts: the unary kernel with the shared
// cast functor (math::CastTo, Note [Cast semantics]) for every pair of the
// real dtypes. Complex casts run on the CPU.
#include "kernels/cuda/unary_kernel.cuh"

namespace ember::cuda {

#define EMBER_CAST(Src, Dst)                                                                           \
  template cudaError_t LaunchUnary<Src, Dst, math::CastTo<ComputeType<Dst>>>(const Src*, Dst*, int64_t, \
                                                                             cudaStream_t, int64_t);
#define EMBER_CASTS_FROM(Src)                                                                                 \
  EMBER_CAST(Src, bool) EMBER_CAST(Src, int8_t) EMBER_CAST(Src, int16_t) EMBER_CAST(Src, int32_t)           \
  EMBER_CAST(Src, int64_t) EMBER_CAST(Src, uint8_t) EMBER_CAST(Src, __half) EMBER_CAST(Src, __nv_bfloat16) \
  EMBER_CAST(Src, float) EMBER_CAST(Src, double)
EMBER_CASTS_FROM(bool)
EMBER_CASTS_FROM(int8_t)
EMBER_CASTS_FROM(int16_t)
EMBER_CASTS_FROM(int32_t)
EMBER_CASTS_FROM(int64_t)
EMBER_CASTS_FROM(uint8_t)
EMBER_CASTS_FROM(__half)
EMBER_CASTS_FROM(__nv_bfloat16)
EMBER_CASTS_FROM(float)
EMBER_CASTS_FROM(double)

}  // namespace ember::cuda

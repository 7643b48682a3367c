// This file defines the CUDA unary element-wise kernels and instantiates
// them for each (op, dtype) the op definitions declare.
#include "kernels/cuda/unary_kernel.cuh"

namespace ember::cuda {

// The instantiations: every float type for the float math, every integer
// type the op definitions give the integer-capable ops.
#define EMBER_UNARY(F, T, Out) \
  template cudaError_t LaunchUnary<T, Out, math::F>(const T*, Out*, int64_t, cudaStream_t, int64_t);
#define EMBER_UNARY_FLOATS(F)       \
  EMBER_UNARY(F, float, float)      \
  EMBER_UNARY(F, double, double)    \
  EMBER_UNARY(F, __half, __half)    \
  EMBER_UNARY(F, __nv_bfloat16, __nv_bfloat16)
#define EMBER_UNARY_SIGNED(F)   \
  EMBER_UNARY(F, int8_t, int8_t)  \
  EMBER_UNARY(F, int16_t, int16_t) \
  EMBER_UNARY(F, int32_t, int32_t) \
  EMBER_UNARY(F, int64_t, int64_t)
#define EMBER_PREDICATE(F)           \
  EMBER_UNARY(F, float, bool)        \
  EMBER_UNARY(F, double, bool)       \
  EMBER_UNARY(F, __half, bool)       \
  EMBER_UNARY(F, __nv_bfloat16, bool)

EMBER_UNARY_FLOATS(Negative)
EMBER_UNARY_SIGNED(Negative)
EMBER_UNARY_FLOATS(Abs)
EMBER_UNARY_SIGNED(Abs)
EMBER_UNARY_FLOATS(Sign)
EMBER_UNARY_SIGNED(Sign)
EMBER_UNARY_FLOATS(Square)
EMBER_UNARY_SIGNED(Square)
EMBER_UNARY(Square, uint8_t, uint8_t)
EMBER_UNARY_FLOATS(Relu)
EMBER_UNARY_SIGNED(Relu)
EMBER_UNARY_FLOATS(Exp)
EMBER_UNARY_FLOATS(Log)
EMBER_UNARY_FLOATS(Sqrt)
EMBER_UNARY_FLOATS(Rsqrt)
EMBER_UNARY_FLOATS(Reciprocal)
EMBER_UNARY_FLOATS(Tanh)
EMBER_UNARY_FLOATS(Sigmoid)
EMBER_UNARY_FLOATS(Softplus)
EMBER_UNARY_FLOATS(Floor)
EMBER_UNARY_FLOATS(Ceil)
EMBER_UNARY_FLOATS(Round)
EMBER_UNARY_FLOATS(Expm1)
EMBER_UNARY_FLOATS(Log1p)
EMBER_UNARY_FLOATS(Sin)
EMBER_UNARY_FLOATS(Cos)
EMBER_UNARY_FLOATS(Tan)
EMBER_UNARY_FLOATS(Asin)
EMBER_UNARY_FLOATS(Acos)
EMBER_UNARY_FLOATS(Atan)
EMBER_UNARY_FLOATS(Sinh)
EMBER_UNARY_FLOATS(Cosh)
EMBER_UNARY_FLOATS(Asinh)
EMBER_UNARY_FLOATS(Acosh)
EMBER_UNARY_FLOATS(Atanh)
EMBER_UNARY_FLOATS(Erf)
EMBER_UNARY_FLOATS(Erfc)
EMBER_PREDICATE(IsNanOf)
EMBER_PREDICATE(IsInf)
EMBER_PREDICATE(IsFinite)
EMBER_UNARY(LogicalNot, bool, bool)

}  // namespace ember::cuda

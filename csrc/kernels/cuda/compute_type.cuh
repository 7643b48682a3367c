// This file defines the CUDA kernels' ComputeType: float16 and bfloat16 are
// computed in float, as on the CPU (Note [Half compute]).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ember::cuda {

template <typename T>
struct ComputeTypeOf {
  using type = T;
};
template <>
struct ComputeTypeOf<__half> {
  using type = float;
};
template <>
struct ComputeTypeOf<__nv_bfloat16> {
  using type = float;
};
template <typename T>
using ComputeType = typename ComputeTypeOf<T>::type;

}  // namespace ember::cuda

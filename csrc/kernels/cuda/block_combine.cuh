// This file defines BlockCombine: the maximum or sum of one value per
// thread of a block, for the row kernels (softmax, attention, the
// two-pass reductions).
#pragma once

#include "kernels/common/element_math.h"

namespace ember::cuda {

template <typename C>
__device__ C WarpMax(C v) {
  for (int offset = 16; offset > 0; offset /= 2) v = math::Maximum()(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

template <typename C>
__device__ C WarpSum(C v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The block's combined value, broadcast to every thread. `partial` holds a
// value per warp; `kMax` picks the maximum, else the sum.
template <typename C, bool kMax>
__device__ C BlockCombine(C v, C* partial) {
  v = kMax ? WarpMax(v) : WarpSum(v);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = blockDim.x / 32;
    C w = lane < warps ? partial[lane] : (kMax ? -INFINITY : C(0));
    w = kMax ? WarpMax(w) : WarpSum(w);
    if (lane == 0) partial[0] = w;
  }
  __syncthreads();
  const C result = partial[0];
  __syncthreads();  // `partial` is reused by the next combine
  return result;
}

}  // namespace ember::cuda

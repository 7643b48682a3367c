// This file declares the CUDA kernels of clip_by_value (three operands,
// broadcast together) and add_n (any number, same shape).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/movement_body.h"

namespace ember::cuda {

// out[i] = math::Clip(t, lo, hi) with operands 0, 1, 2 of `ix`. T is a real
// CUDA storage type; float16 and bfloat16 compare in float.
template <typename T>
cudaError_t LaunchClip(const T* t, const T* lo, const T* hi, T* out, int64_t n, const NaryIndexing& ix,
                       cudaStream_t stream, int64_t max_blocks);

inline constexpr int kMaxAddNInputs = 8;

// out[i] = (accumulate ? out[i] : 0) + sum of inputs[k][i] for k < count
// (at most kMaxAddNInputs; add_n chains launches for more), summed in the
// compute type with integers wrapping, as on the CPU.
template <typename T>
struct AddNInputs {
  const T* in[kMaxAddNInputs];
  int count;
  bool accumulate;
};
template <typename T>
cudaError_t LaunchAddN(const AddNInputs<T>& inputs, T* out, int64_t n, cudaStream_t stream, int64_t max_blocks);

}  // namespace ember::cuda

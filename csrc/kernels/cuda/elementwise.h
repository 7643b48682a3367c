// This file declares the launchers of the CUDA element-wise kernels, which
// apply the shared scalar math (kernels/common/element_math.h) per element.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace ember::cuda {

// out[i] = F(in[i]) for i in [0, n), on `stream`. `max_blocks` caps the
// grid (Note [Grid-stride launches]). T is the storage type (float16 is
// __half, bfloat16 __nv_bfloat16, computed in float as on the CPU, Note
// [Half compute]); Out is T, or bool for predicates. Returns the launch's
// error, cudaSuccess if it was enqueued.
template <typename T, typename Out, typename F>
cudaError_t LaunchUnary(const T* in, Out* out, int64_t n, cudaStream_t stream, int64_t max_blocks);

// out[i] = F(lhs[i * lhs_step], rhs[i * rhs_step]) with steps 1 (a run) or
// 0 (one element repeated): the flat cases of a broadcast plan.
template <typename T, typename Out, typename F>
cudaError_t LaunchBinaryFlat(const T* lhs, int64_t lhs_step, const T* rhs, int64_t rhs_step, Out* out, int64_t n,
                             cudaStream_t stream, int64_t max_blocks);

// The general case of a broadcast plan (Note [Broadcast plan]): the
// collapsed output dims, outermost first, and each operand's element
// stride along them (0 where it broadcasts), passed by value to the
// kernel. Plans collapse to few dims; more than kMaxBroadcastRank is
// refused by the caller.
inline constexpr int kMaxBroadcastRank = 6;
struct BroadcastIndexing {
  int rank = 0;
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t lhs_strides[kMaxBroadcastRank] = {};
  int64_t rhs_strides[kMaxBroadcastRank] = {};
};

// out[i] = F(lhs[offset_l(i)], rhs[offset_r(i)]) over the n output
// elements, with the offsets from `indexing`.
template <typename T, typename Out, typename F>
cudaError_t LaunchBinaryBroadcast(const T* lhs, const T* rhs, Out* out, int64_t n, const BroadcastIndexing& indexing,
                                  cudaStream_t stream, int64_t max_blocks);

}  // namespace ember::cuda

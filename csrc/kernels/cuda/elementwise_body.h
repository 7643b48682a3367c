// This file defines the per-element addressing of the CUDA binary kernels
// with general broadcasting (binary.cu), and how it is made from a
// BroadcastPlan, as functions host code compiles too (Note [Kernel bodies
// on the host] in window_body.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/element_math.h"
#include "kernels/cuda/compute_type.cuh"
#include "kernels/cuda/elementwise.h"
#include "ops/plans/broadcast_plan.h"

namespace ember::cuda {

// The operands' element offsets for output element i of a general plan.
EMBER_HOST_DEVICE inline void BroadcastOffsets(int64_t i, const BroadcastIndexing& indexing, int64_t* lhs,
                                               int64_t* rhs) {
  int64_t rest = i, l = 0, r = 0;
  for (int d = indexing.rank - 1; d >= 0; --d) {
    const int64_t coordinate = rest % indexing.dims[d];
    rest /= indexing.dims[d];
    l += coordinate * indexing.lhs_strides[d];
    r += coordinate * indexing.rhs_strides[d];
  }
  *lhs = l;
  *rhs = r;
}

// A general plan's dims and strides, by value for the kernel; false if the
// plan has more dims than the kernel takes.
inline bool MakeBroadcastIndexing(const BroadcastPlan& plan, BroadcastIndexing* indexing) {
  if (plan.rank() > kMaxBroadcastRank) return false;
  indexing->rank = plan.rank();
  for (int d = 0; d < indexing->rank; ++d) {
    indexing->dims[d] = plan.dims.dim(d);
    indexing->lhs_strides[d] = plan.lhs_strides.dim(d);
    indexing->rhs_strides[d] = plan.rhs_strides.dim(d);
  }
  return true;
}

// Note [Packed element-wise loads]
// A flat kernel whose pointers are aligned moves its elements in packs:
// one load of up to 16 bytes per operand brings kPackOf elements, which
// are computed one by one and stored as one pack. A GPU serves one wide
// access in the time of a narrow one, so a half-precision add moves four
// elements per load instead of one. The pack is at most 4 elements
// (more would multiply the math's code in every instantiation for little
// more bandwidth) and at most 16 bytes on either side. The launcher
// checks the alignment (PacksFit); misaligned views run element by
// element. The n % kPackOf last elements are a scalar tail. The pack
// bodies are host-checked in kernel_bodies_test like the other bodies.
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

constexpr int PackElements(size_t widest) { return 16 / widest < 4 ? static_cast<int>(16 / widest) : 4; }
template <typename T, typename Out>
inline constexpr int kPackOf = PackElements(sizeof(T) > sizeof(Out) ? sizeof(T) : sizeof(Out));

// Whether `p` may be read or written as Pack<E, n>.
template <typename E>
inline bool PackAligned(const E* p, int n) {
  return reinterpret_cast<uintptr_t>(p) % (sizeof(E) * static_cast<size_t>(n)) == 0;
}

// out's pack p = F(in's pack p), element by element.
template <typename T, typename Out, typename F>
EMBER_HOST_DEVICE inline void UnaryPack(const T* in, Out* out, int64_t p) {
  constexpr int N = kPackOf<T, Out>;
  using C = ComputeType<T>;
  const Pack<T, N> a = reinterpret_cast<const Pack<T, N>*>(in)[p];
  Pack<Out, N> r;
  for (int k = 0; k < N; ++k) r.v[k] = static_cast<Out>(F()(static_cast<C>(a.v[k])));
  reinterpret_cast<Pack<Out, N>*>(out)[p] = r;
}

// The same for a binary op whose operands are runs (step 1) or one
// repeated element (step 0).
template <typename T, typename Out, typename F>
EMBER_HOST_DEVICE inline void BinaryPack(const T* lhs, int64_t lhs_step, const T* rhs, int64_t rhs_step, Out* out,
                                         int64_t p) {
  constexpr int N = kPackOf<T, Out>;
  using C = ComputeType<T>;
  Pack<T, N> a, b;
  if (lhs_step == 0) {
    for (int k = 0; k < N; ++k) a.v[k] = lhs[0];
  } else {
    a = reinterpret_cast<const Pack<T, N>*>(lhs)[p];
  }
  if (rhs_step == 0) {
    for (int k = 0; k < N; ++k) b.v[k] = rhs[0];
  } else {
    b = reinterpret_cast<const Pack<T, N>*>(rhs)[p];
  }
  Pack<Out, N> r;
  for (int k = 0; k < N; ++k) r.v[k] = static_cast<Out>(F()(static_cast<C>(a.v[k]), static_cast<C>(b.v[k])));
  reinterpret_cast<Pack<Out, N>*>(out)[p] = r;
}

// One thread's share of a flat unary kernel: the packs from `first` by
// `stride` when `packed`, then the elements the packs left.
template <typename T, typename Out, typename F>
EMBER_HOST_DEVICE inline void UnaryThread(const T* __restrict__ in, Out* __restrict__ out, int64_t n, bool packed, int64_t first,
                                          int64_t stride) {
  constexpr int N = kPackOf<T, Out>;
  int64_t done = 0;
  if (packed) {
    const int64_t packs = n / N;
    for (int64_t p = first; p < packs; p += stride) UnaryPack<T, Out, F>(in, out, p);
    done = packs * N;
  }
  using C = ComputeType<T>;
  for (int64_t i = done + first; i < n; i += stride) out[i] = static_cast<Out>(F()(static_cast<C>(in[i])));
}

// The same for a flat binary kernel.
template <typename T, typename Out, typename F>
EMBER_HOST_DEVICE inline void BinaryFlatThread(const T* __restrict__ lhs, int64_t lhs_step, const T* __restrict__ rhs,
                                               int64_t rhs_step, Out* __restrict__ out, int64_t n, bool packed, int64_t first, int64_t stride) {
  constexpr int N = kPackOf<T, Out>;
  int64_t done = 0;
  if (packed) {
    const int64_t packs = n / N;
    for (int64_t p = first; p < packs; p += stride) BinaryPack<T, Out, F>(lhs, lhs_step, rhs, rhs_step, out, p);
    done = packs * N;
  }
  using C = ComputeType<T>;
  for (int64_t i = done + first; i < n; i += stride) {
    out[i] = static_cast<Out>(F()(static_cast<C>(lhs[i * lhs_step]), static_cast<C>(rhs[i * rhs_step])));
  }
}

}  // namespace ember::cuda

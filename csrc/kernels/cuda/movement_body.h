// This file defines the per-element addressing of the CUDA movement
// kernels (movement.cu: pad, concat) as functions host code compiles too
// (Note [Kernel bodies on the host] in window_body.h).
#pragma once

#include <cstdint>

#include "kernels/common/element_math.h"

namespace ember::cuda {

inline constexpr int kMaxMovementDims = 8;

// A pad's geometry, by value for the kernel: mode 0 constant, 1 reflect
// (the edge is not repeated), 2 symmetric (it is).
struct PadIndexing {
  int rank = 0;
  int mode = 0;
  int64_t out_dims[kMaxMovementDims] = {};
  int64_t in_dims[kMaxMovementDims] = {};
  int64_t before[kMaxMovementDims] = {};
  int64_t in_strides[kMaxMovementDims] = {};
};

// The input offset output element i copies, or -1 where it is the
// constant. Mirrored modes reflect once: the shape function keeps their
// padding smaller than the dim (reflect) or no larger (symmetric).
EMBER_HOST_DEVICE inline int64_t PadSource(int64_t i, const PadIndexing& p) {
  int64_t rest = i, offset = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t n = p.in_dims[d];
    int64_t src = rest % p.out_dims[d] - p.before[d];
    rest /= p.out_dims[d];
    if (src < 0 || src >= n) {
      if (p.mode == 0) return -1;
      if (p.mode == 1) src = src < 0 ? -src : 2 * (n - 1) - src;
      else src = src < 0 ? -src - 1 : 2 * n - 1 - src;
    }
    offset += src * p.in_strides[d];
  }
  return offset;
}

// Concatenation along an axis, viewed as [outer, axis * inner]: input k
// is [outer, width_k] and lands in columns [start_k, start_k + width_k)
// of the output's rows of `out_width`. The output offset of input k's
// element j:
EMBER_HOST_DEVICE inline int64_t ConcatDestination(int64_t j, int64_t width, int64_t start, int64_t out_width) {
  return (j / width) * out_width + start + j % width;
}

}  // namespace ember::cuda

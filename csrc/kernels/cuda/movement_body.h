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

namespace ember::cuda {

// Up to three operands broadcast against an output (where's condition, x
// and y), each with its element stride along every output dim: 0 where it
// broadcasts, NumPy's rule with shapes aligned at the right.
struct NaryIndexing {
  int rank = 0;
  int operands = 0;
  int64_t out_dims[kMaxMovementDims] = {};
  int64_t strides[3][kMaxMovementDims] = {};
};

// Fills `ix` for operands of `shapes` (rank-`ranks[k]` arrays of dims)
// broadcast to `out` (rank `out_rank`); false past kMaxMovementDims.
inline bool MakeNaryIndexing(const int64_t* out, int out_rank, const int64_t* const* shapes, const int* ranks,
                             int operands, NaryIndexing* ix) {
  if (out_rank > kMaxMovementDims || operands > 3) return false;
  ix->rank = out_rank;
  ix->operands = operands;
  for (int d = 0; d < out_rank; ++d) ix->out_dims[d] = out[d];
  for (int k = 0; k < operands; ++k) {
    int64_t stride = 1;
    for (int d = out_rank - 1, e = ranks[k] - 1; d >= 0; --d, --e) {
      const int64_t size = e >= 0 ? shapes[k][e] : 1;
      ix->strides[k][d] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }
  return true;
}

// Operand k's element offset for output element i.
EMBER_HOST_DEVICE inline int64_t NaryOffset(int64_t i, const NaryIndexing& ix, int k) {
  int64_t offset = 0;
  for (int d = ix.rank - 1; d >= 0; --d) {
    offset += (i % ix.out_dims[d]) * ix.strides[k][d];
    i /= ix.out_dims[d];
  }
  return offset;
}

// one_hot's output viewed as [outer, depth, inner]: element i is `on` where
// the index at (outer, inner) equals its depth position. An index outside
// [0, depth) matches nothing (TensorFlow's rule), so its row is all `off`.
template <typename Index>
EMBER_HOST_DEVICE inline bool OneHotIsOn(const Index* indices, int64_t i, int64_t depth, int64_t inner) {
  const int64_t j = i % inner;
  const int64_t d = (i / inner) % depth;
  const int64_t o = i / (inner * depth);
  return static_cast<int64_t>(indices[o * inner + j]) == d;
}

// A strided copy (ops/plans/copy_plan.h, collapsed): element i of the
// block, in row-major order over `dims`, moves from src_offset + sum
// q_k * src_strides[k] to dst_offset + sum q_k * dst_strides[k].
struct StridedCopyIndexing {
  int rank = 0;
  int64_t dims[kMaxMovementDims] = {};
  int64_t src_strides[kMaxMovementDims] = {};
  int64_t dst_strides[kMaxMovementDims] = {};
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
};

EMBER_HOST_DEVICE inline void StridedCopyOffsets(int64_t i, const StridedCopyIndexing& ix, int64_t* src,
                                                 int64_t* dst) {
  int64_t s = ix.src_offset, d = ix.dst_offset;
  for (int k = ix.rank - 1; k >= 0; --k) {
    const int64_t q = i % ix.dims[k];
    i /= ix.dims[k];
    s += q * ix.src_strides[k];
    d += q * ix.dst_strides[k];
  }
  *src = s;
  *dst = d;
}

}  // namespace ember::cuda

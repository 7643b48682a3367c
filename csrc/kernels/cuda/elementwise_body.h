// This file defines the per-element addressing of the CUDA binary kernels
// with general broadcasting (binary.cu), and how it is made from a
// BroadcastPlan, as functions host code compiles too (Note [Kernel bodies
// on the host] in window_body.h).
#pragma once

#include <cstdint>

#include "kernels/common/element_math.h"
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

}  // namespace ember::cuda

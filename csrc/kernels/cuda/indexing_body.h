// This file defines the per-element addressing of the CUDA gather and
// scatter kernels (indexing.cu) as functions host code compiles too (Note
// [Kernel bodies on the host] in window_body.h): kernel_bodies_test checks
// them against the CPU kernels' layouts.
#pragma once

#include <cstdint>

#include "kernels/common/element_math.h"

namespace ember::cuda {

// gather (shape_fns::GatherPlan): output element o is
// params[b, p, indices[b, i], r] for o = ((b * outer + p) * num_indices + i) * inner + r.
struct GatherIndexing {
  int64_t outer = 1;
  int64_t axis_dim = 0;
  int64_t num_indices = 1;
  int64_t inner = 1;
};

// For output element o: where its index is in `indices`, and the params
// offset it reads once that index v is added as `base + v * inner`.
// Only for o below the output's size (so inner and num_indices are > 0).
EMBER_HOST_DEVICE inline void GatherAddress(int64_t o, const GatherIndexing& g, int64_t* index_position,
                                            int64_t* base) {
  const int64_t r = o % g.inner;
  const int64_t u = o / g.inner;
  const int64_t i = u % g.num_indices;
  const int64_t bp = u / g.num_indices;  // b * outer + p
  *index_position = (bp / g.outer) * g.num_indices + i;
  *base = bp * g.axis_dim * g.inner + r;
}

inline constexpr int kMaxIndexDepth = 8;

// gather_nd, scatter_nd, tensor_scatter_nd_update (shape_fns::GatherNdPlan):
// row j of the index rows (batch * num_indices of them, `depth` values
// each) picks a slot of its batch's slots_per_batch; element r of that
// slot is at (b * slots_per_batch + slot) * inner + r.
struct NdIndexing {
  int depth = 0;
  int64_t dims[kMaxIndexDepth] = {};  // the indexed dims
  int64_t num_indices = 1;
  int64_t inner = 1;
  int64_t slots_per_batch = 1;
};

// The slot row j picks, or -1 with *bad_depth set to the first index out
// of range.
template <typename Index>
EMBER_HOST_DEVICE inline int64_t NdSlot(const Index* indices, int64_t j, const NdIndexing& nd, int* bad_depth) {
  int64_t slot = 0;
  for (int m = 0; m < nd.depth; ++m) {
    const int64_t v = static_cast<int64_t>(indices[j * nd.depth + m]);
    if (v < 0 || v >= nd.dims[m]) {
      *bad_depth = m;
      return -1;
    }
    slot = slot * nd.dims[m] + v;  // below the product of the dims, a shape's size
  }
  return slot;
}

// The row of all batches' slots that index row j's slot is.
EMBER_HOST_DEVICE inline int64_t NdRow(int64_t j, int64_t slot, const NdIndexing& nd) {
  return (j / nd.num_indices) * nd.slots_per_batch + slot;
}

}  // namespace ember::cuda

// This file declares ReduceIndexing: how a GPU reduction addresses its
// input (Note [GPU reductions]), made from a ReducePlan by plain host code
// that unit tests check without a GPU.
#pragma once

#include <cstdint>

#include "core/shape.h"
#include "core/status.h"
#include "ops/plans/reduce_plan.h"

namespace ember::cuda {

// Note [GPU reductions]
// The input is addressed through its kept and reduced dims, each with the
// input's element stride along it (a ReducePlan's [outer, reduced, inner]
// is kept [outer, inner] and reduced [reduced]; a plan that needs its
// transpose lists the collapsed dims instead, so no copy is made). Output
// element o is the kept coordinates of o, row-major, which is the output's
// layout. Two shapes of launch:
//  - many outputs: a thread per output, looping over its reduced values
//    (adjacent threads read adjacent inner elements: coalesced);
//  - few outputs with long reductions: a block per output, its threads
//    striding over the reduced values, combined by warp shuffles and one
//    shared-memory step.
// Accumulators follow the CPU's (Note [Reduction accumulators]): float for
// the half types, unsigned 64-bit for integer sums and products (wrapped
// once on the store), NaN-propagating max and min from the shared math.
inline constexpr int kMaxReduceDims = 8;
struct ReduceIndexing {
  int kept_rank = 0;
  int reduced_rank = 0;
  int64_t kept_dims[kMaxReduceDims] = {};
  int64_t kept_strides[kMaxReduceDims] = {};
  int64_t reduced_dims[kMaxReduceDims] = {};
  int64_t reduced_strides[kMaxReduceDims] = {};
  int64_t num_outputs = 1;
  int64_t num_reduced = 1;  // 0 for an empty input: outputs get the reducer's empty value
};

// The indexing of `plan` over `input` (empty inputs reduce nothing).
Status MakeReduceIndexing(const Shape& input, const ReducePlan& plan, ReduceIndexing* ix);

}  // namespace ember::cuda

// This file defines StridedCopyIndexingFor: a copy plan (ops/plans/
// copy_plan.h), collapsed, as the GPU strided-copy kernel's indexing, for
// the kernels (register_copy.cc) and the host tests alike.
#pragma once

#include <cstdint>

#include "kernels/cuda/movement_body.h"
#include "ops/plans/copy_plan.h"

namespace ember::cuda {

// Sets *ix and *n (the elements copied; 0 when a dim is empty). False if
// the collapsed plan keeps more than kMaxMovementDims dims.
inline bool StridedCopyIndexingFor(const CopyPlan& plan, StridedCopyIndexing* ix, int64_t* n) {
  *n = 0;
  for (int64_t d : plan.dims) {
    if (d <= 0) return true;
  }
  const CopyPlan c = CollapseCopyPlan(plan);
  if (c.dims.size() > static_cast<size_t>(kMaxMovementDims)) return false;
  ix->rank = static_cast<int>(c.dims.size());
  *n = 1;
  for (int k = 0; k < ix->rank; ++k) {
    ix->dims[k] = c.dims[k];
    ix->src_strides[k] = c.src_strides[k];
    ix->dst_strides[k] = c.dst_strides[k];
    *n *= c.dims[k];
  }
  ix->src_offset = c.src_offset;
  ix->dst_offset = c.dst_offset;
  return true;
}

}  // namespace ember::cuda

// This file implements MakeReduceIndexing (Note [GPU reductions]).
#include "kernels/cuda/reduce_indexing.h"

#include <vector>

namespace ember::cuda {

Status MakeReduceIndexing(const Shape& input, const ReducePlan& plan, ReduceIndexing* ix) {
  *ix = ReduceIndexing();
  if (!plan.transpose) {
    // [outer, reduced, inner] row-major.
    ix->kept_rank = 2;
    ix->kept_dims[0] = plan.outer;
    ix->kept_strides[0] = plan.reduced * plan.inner;
    ix->kept_dims[1] = plan.inner;
    ix->kept_strides[1] = 1;
    ix->reduced_rank = 1;
    ix->reduced_dims[0] = plan.reduced;
    ix->reduced_strides[0] = plan.inner;
  } else {
    // The collapsed dims, kept ones first in `perm`: all are larger than
    // 1, so the kept ones are the prefix whose product is `outer`.
    const Shape& dims = plan.collapsed;
    if (dims.rank() > kMaxReduceDims) {
      return Unimplemented("reducing " + input.ToString() + " needs more than " + std::to_string(kMaxReduceDims) +
                           " dims after collapsing");
    }
    std::vector<int64_t> strides(dims.rank(), 1);
    for (int d = dims.rank() - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims.dim(d + 1);
    int64_t kept = 1;
    for (int p : plan.perm) {
      if (kept < plan.outer) {
        ix->kept_dims[ix->kept_rank] = dims.dim(p);
        ix->kept_strides[ix->kept_rank++] = strides[p];
        kept *= dims.dim(p);
      } else {
        ix->reduced_dims[ix->reduced_rank] = dims.dim(p);
        ix->reduced_strides[ix->reduced_rank++] = strides[p];
      }
    }
  }
  ix->num_outputs = plan.outer * plan.inner;
  ix->num_reduced = input.NumElements() == 0 ? 0 : plan.reduced;
  return Status::OK();
}

}  // namespace ember::cuda

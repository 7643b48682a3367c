// This file implements MakeTransposeIndexing (Note [GPU transpose]).
#include "kernels/cuda/transpose_indexing.h"

namespace ember::cuda {

Status MakeTransposeIndexing(const Shape& input, const std::vector<int64_t>& perm_in, TransposeIndexing* ix) {
  *ix = TransposeIndexing();
  const int rank = input.rank();
  std::vector<int64_t> perm = perm_in;
  if (perm.empty()) {
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  }
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * input.dim(d + 1);
  ix->num_elements = input.NumElements();
  // Output dims in order, each with its input dim; size-1 dims dropped,
  // and a dim merged into the previous one when it follows it in the input.
  std::vector<int64_t> dims, in_strides, in_axes;
  for (int64_t axis : perm) {
    const int64_t size = input.dim(static_cast<int>(axis));
    if (size == 1) continue;
    if (!in_axes.empty() && in_axes.back() + 1 == axis && strides[axis] * size == in_strides.back()) {
      dims.back() *= size;
      in_strides.back() = strides[axis];
      in_axes.back() = axis;
      continue;
    }
    dims.push_back(size);
    in_strides.push_back(strides[axis]);
    in_axes.push_back(axis);
  }
  if (dims.size() > static_cast<size_t>(kMaxTransposeDims)) {
    return Unimplemented("transposing " + input.ToString() + " needs more than " +
                         std::to_string(kMaxTransposeDims) + " dims after merging");
  }
  ix->rank = static_cast<int>(dims.size());
  for (int d = 0; d < ix->rank; ++d) {
    ix->out_dims[d] = dims[d];
    ix->in_strides[d] = in_strides[d];
  }
  return Status::OK();
}

}  // namespace ember::cuda

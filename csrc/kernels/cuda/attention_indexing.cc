// This file implements MakeAttentionMaskIndex (Note [GPU attention]).
#include "kernels/cuda/attention_indexing.h"

#include <string>

namespace ember::cuda {

Status MakeAttentionMaskIndex(const Shape& mask, const Shape& scores, AttentionMaskIndex* index) {
  const int lead = scores.rank() - 2;
  if (lead > kMaxAttentionBatchDims) {
    return Unimplemented("scaled_dot_product_attention on a GPU takes at most " +
                         std::to_string(kMaxAttentionBatchDims) + " batch dims, got " + std::to_string(lead));
  }
  *index = AttentionMaskIndex();
  index->lq = scores.dim(lead);
  index->batch_rank = lead;
  // Right-aligned strides of the mask's own layout; 0 where it has size 1
  // or lacks the dim.
  int64_t strides[kMaxAttentionBatchDims + 2] = {};
  int64_t stride = 1;
  for (int i = mask.rank() - 1; i >= 0; --i) {
    const int t = i + scores.rank() - mask.rank();
    if (t >= 0 && mask.dim(i) != 1) strides[t] = stride;  // t < 0: a leading 1
    stride *= mask.dim(i);
  }
  for (int d = 0; d < lead; ++d) {
    index->batch_dims[d] = scores.dim(d);
    index->batch_strides[d] = strides[d];
  }
  index->stride_q = strides[lead];
  index->stride_k = strides[lead + 1];
  return Status::OK();
}

}  // namespace ember::cuda

// This file declares AttentionMaskIndex: how the GPU attention's row
// kernel finds each score row's mask (Note [GPU attention]), made by plain
// host code that unit tests check without a GPU.
#pragma once

#include <cstdint>

#include "core/shape.h"
#include "core/status.h"
#include "kernels/common/element_math.h"

namespace ember::cuda {

// Note [GPU attention]
// scaled_dot_product_attention on a GPU is three launches on the stream,
// where the CPU works per block of query rows:
//  1. scores = q k^T: one cuBLASLt GEMM over every batch (strided-batched
//     where the batch dims allow, Note [Row-major GEMM on cuBLAS]), into a
//     [batch..., Lq, Lk] scratch buffer of the input dtype (cuBLASLt
//     accumulates in float32 for the half types);
//  2. a row kernel, one block per score row, in place: each score times
//     the scale plus the mask (a float mask is added; a false bool mask
//     entry is -inf), then the row's softmax in float32 or float64 (the
//     maximum subtracted first, as the CPU does);
//  3. out = scores v: a second GEMM.
// The mask broadcasts to [batch..., Lq, Lk]: row r (batch r / Lq, query
// r % Lq) starts at MaskRowOffset and steps by stride_k along Lk. The
// scratch buffer goes back to the cache when the kernel returns: stream
// order keeps later work from reusing it before the second GEMM ran.
inline constexpr int kMaxAttentionBatchDims = 6;
struct AttentionMaskIndex {
  int64_t lq = 0;
  int batch_rank = 0;
  int64_t batch_dims[kMaxAttentionBatchDims] = {};
  // The mask's element stride along each batch dim of the output (0 where
  // it broadcasts), and along Lq and Lk.
  int64_t batch_strides[kMaxAttentionBatchDims] = {};
  int64_t stride_q = 0;
  int64_t stride_k = 0;
};

// Where score row `row` of the [batch..., Lq, Lk] scores finds its mask.
EMBER_HOST_DEVICE inline int64_t MaskRowOffset(const AttentionMaskIndex& m, int64_t row) {
  int64_t batch = row / m.lq;
  int64_t offset = (row % m.lq) * m.stride_q;
  for (int d = m.batch_rank - 1; d >= 0; --d) {
    offset += (batch % m.batch_dims[d]) * m.batch_strides[d];
    batch /= m.batch_dims[d];
  }
  return offset;
}

// `mask` broadcasts to `scores` ([batch..., Lq, Lk], as the shape function
// checked). Fails for more than kMaxAttentionBatchDims batch dims.
Status MakeAttentionMaskIndex(const Shape& mask, const Shape& scores, AttentionMaskIndex* index);

}  // namespace ember::cuda

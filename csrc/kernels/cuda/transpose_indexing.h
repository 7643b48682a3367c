// This file declares TransposeIndexing: where each output element of a
// transpose comes from, made by plain host code that unit tests check
// without a GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "core/shape.h"
#include "core/status.h"

namespace ember::cuda {

// Note [GPU transpose]
// Output element i, split into coordinates over the output dims, reads the
// input at the sum of those coordinates times the input's strides taken in
// `perm`'s order. Dims of size 1 are dropped and dims that stay adjacent
// and in order under the permutation are merged first, so most transposes
// index over two or three dims. The kernel moves elements by size (1, 2,
// 4 or 8 bytes): every dtype shares four instantiations.
inline constexpr int kMaxTransposeDims = 8;
struct TransposeIndexing {
  int rank = 0;
  int64_t out_dims[kMaxTransposeDims] = {};
  int64_t in_strides[kMaxTransposeDims] = {};  // the input stride of each output dim
  int64_t num_elements = 0;
};

// `perm` is the op's (validated by the shape function; empty reverses).
Status MakeTransposeIndexing(const Shape& input, const std::vector<int64_t>& perm, TransposeIndexing* ix);

}  // namespace ember::cuda

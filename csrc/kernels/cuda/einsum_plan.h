// This file declares EinsumGpuPlan: an einsum as the GPU runs it (Note
// [GPU einsum]), made by plain host code that unit tests execute on the
// host against a direct evaluation.
#pragma once

#include <cstdint>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "kernels/cuda/reduce_indexing.h"
#include "ops/shape_fns/einsum.h"

namespace ember::cuda {

// Note [GPU einsum]
// The GPU kernel follows the CPU's order of work (kernels/cpu/einsum.cc):
// operands join left to right; for each pair, each side is rearranged into
// [batch, free, contracted] and [batch, contracted, free] order (diagonals
// taken, labels no later operand or the output needs summed, '...' dims
// broadcast), then one strided-batched cuBLASLt GEMM contracts them; a
// last rearrangement writes the output's label order. A rearrangement is
// a sum reduction whose kept dims are the target labels and whose reduced
// dims are the summed labels, each label's stride the sum of the strides
// of the dims carrying it (so a repeated label walks its diagonal, and a
// broadcast dim of size 1 has stride 0): the reduction kernel's strided
// addressing (Note [GPU reductions]) does it in one launch, with nothing
// reduced a strided copy. An operand already in the needed order is read
// in place, and a last product already in the output's order is written
// straight into the output. Intermediates live in scratch buffers of the
// input dtype (the GEMM and the reduction accumulate in float32 for the
// half types); the CPU keeps its float32 copies instead.
struct EinsumStep {
  enum class Kind { kArrange, kGemm, kZero };
  Kind kind = Kind::kArrange;
  // Buffers: 0 .. num_inputs - 1 are the inputs, kOutput the output, and
  // num_inputs + i scratch buffer i.
  int src = 0;
  int src2 = 0;  // kGemm's right operand
  int dst = 0;
  ReduceIndexing arrange;             // kArrange: dst = the reduction of src
  int64_t batch = 1, m = 0, k = 0, n = 0;  // kGemm: dst[b] = src[b] (m x k) . src2[b] (k x n), row-major
  int64_t elements = 0;               // kZero: dst's elements, set to 0
};

struct EinsumGpuPlan {
  static constexpr int kOutput = -1;
  int num_inputs = 0;
  std::vector<int64_t> scratch_elements;  // per scratch buffer
  std::vector<EinsumStep> steps;
};

// The plan for `spec` (parsed against `inputs`' shapes); Unimplemented when
// a rearrangement has more dims than a ReduceIndexing holds.
Status MakeEinsumGpuPlan(const shape_fns::EinsumSpec& spec, const std::vector<Shape>& inputs, EinsumGpuPlan* plan);

}  // namespace ember::cuda

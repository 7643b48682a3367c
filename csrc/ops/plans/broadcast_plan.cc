// This file implements MakeBroadcastPlan and MakeNaryBroadcastPlan.
#include "ops/plans/broadcast_plan.h"

#include <algorithm>

namespace ember {
namespace {

// Appends output dim `d`, whose operands broadcast as `pattern` says (a bit
// per operand), merging it into the last collapsed dim when that one has
// the same pattern.
void AppendCollapsed(int64_t pattern, int64_t d, Shape* patterns, Shape* dims) {
  const int n = patterns->rank();
  if (n > 0 && patterns->dim(n - 1) == pattern) {
    dims->set_dim(n - 1, dims->dim(n - 1) * d);
  } else {
    patterns->AddDim(pattern);
    dims->AddDim(d);
  }
}

}  // namespace

BroadcastPlan MakeBroadcastPlan(const Shape& lhs, const Shape& rhs, const Shape& out) {
  BroadcastPlan plan;
  plan.num_elements = out.NumElements();
  if (plan.num_elements == 0) return plan;
  const int64_t lhs_n = lhs.NumElements();
  const int64_t rhs_n = rhs.NumElements();
  if (lhs_n == plan.num_elements && rhs_n == plan.num_elements) {
    plan.kind = BroadcastPlan::Kind::kSameShape;
    return plan;
  }
  if (lhs_n == 1) {
    plan.kind = BroadcastPlan::Kind::kLhsScalar;
    return plan;
  }
  if (rhs_n == 1) {
    plan.kind = BroadcastPlan::Kind::kRhsScalar;
    return plan;
  }
  plan.kind = BroadcastPlan::Kind::kGeneral;

  // Collapse: bit 0 of a pattern = lhs broadcasts, bit 1 = rhs broadcasts.
  Shape patterns;
  const int rank = out.rank();
  for (int i = 0; i < rank; ++i) {
    const int64_t d = out.dim(i);
    if (d == 1) continue;
    const int il = i - (rank - lhs.rank());
    const int ir = i - (rank - rhs.rank());
    const int64_t pattern = ((il < 0 || lhs.dim(il) == 1) ? 1 : 0) | ((ir < 0 || rhs.dim(ir) == 1) ? 2 : 0);
    AppendCollapsed(pattern, d, &patterns, &plan.dims);
  }

  const int n = plan.dims.rank();
  plan.lhs_strides.Resize(n);
  plan.rhs_strides.Resize(n);
  int64_t lhs_stride = 1;
  int64_t rhs_stride = 1;
  for (int i = n - 1; i >= 0; --i) {
    const int64_t pattern = patterns.dim(i);
    const int64_t d = plan.dims.dim(i);
    plan.lhs_strides.set_dim(i, (pattern & 1) ? 0 : lhs_stride);
    plan.rhs_strides.set_dim(i, (pattern & 2) ? 0 : rhs_stride);
    if (!(pattern & 1)) lhs_stride *= d;
    if (!(pattern & 2)) rhs_stride *= d;
  }
  if (n == 1) {
    // Unreachable for consistent shapes (one dim means a flat case); keep
    // the walker's rank >= 2 invariant anyway with a leading row dim.
    plan.dims = Shape{1, plan.dims.dim(0)};
    plan.lhs_strides = Shape{0, plan.lhs_strides.dim(0)};
    plan.rhs_strides = Shape{0, plan.rhs_strides.dim(0)};
  }
  return plan;
}

NaryBroadcastPlan MakeNaryBroadcastPlan(const Shape* const* operands, int num_operands,
                                        const Shape& out) {
  NaryBroadcastPlan plan;
  plan.num_operands = num_operands;
  plan.num_elements = out.NumElements();
  if (plan.num_elements == 0) return plan;

  // Collapse: bit k of a pattern = operand k broadcasts along the dim.
  Shape patterns;
  const int rank = out.rank();
  for (int i = 0; i < rank; ++i) {
    const int64_t d = out.dim(i);
    if (d == 1) continue;
    int64_t pattern = 0;
    for (int k = 0; k < num_operands; ++k) {
      const Shape& s = *operands[k];
      const int ik = i - (rank - s.rank());
      if (ik < 0 || s.dim(ik) == 1) pattern |= int64_t{1} << k;
    }
    AppendCollapsed(pattern, d, &patterns, &plan.dims);
  }
  if (plan.dims.rank() == 0) {  // one element: every operand is a scalar run
    plan.dims.AddDim(1);
    patterns.AddDim((int64_t{1} << num_operands) - 1);
  }

  const int n = plan.dims.rank();
  for (int k = 0; k < num_operands; ++k) {
    plan.strides[k].Resize(n);
    int64_t stride = 1;
    for (int i = n - 1; i >= 0; --i) {
      const bool broadcasts = (patterns.dim(i) >> k) & 1;
      plan.strides[k].set_dim(i, broadcasts ? 0 : stride);
      if (!broadcasts) stride *= plan.dims.dim(i);
    }
  }
  return plan;
}

}  // namespace ember

// This file declares BroadcastPlan and NaryBroadcastPlan: how the operands
// of a NumPy-broadcasting op map onto its output, worked out once from the
// shapes (by the shape function, Note [Kernel plans]) for any device's
// kernel to follow.
#pragma once

#include <cstdint>

#include "core/shape.h"

namespace ember {

// Note [Broadcast plan]
// A binary op's operands are reduced to the fewest dims that describe
// them. Output dims of size 1 are dropped, and adjacent dims merge when
// each operand either spans both or broadcasts along both: [8, 4, 5] + [5]
// is [32, 5] + [1, 5], i.e. lhs strides [5, 1] and rhs strides [0, 1].
// Most calls then hit a flat case (same shape, or one side a scalar) that is
// a single vectorized loop. The rest are "general": the last collapsed dim
// is a contiguous inner run (each operand's stride along it is 1 or 0, 0
// meaning a scalar for the run), and the outer dims are rows that
// BroadcastRowWalker visits in row-major order. Kernels run each inner run
// as an Eigen array expression, so no code is instantiated per rank.
struct BroadcastPlan {
  enum class Kind : uint8_t {
    kEmpty,      // the output has no elements
    kSameShape,  // both operands have the output's element count and layout
    kLhsScalar,  // lhs has one element, rhs is laid out like the output
    kRhsScalar,  // rhs has one element, lhs is laid out like the output
    kGeneral,    // rows of an inner run, see Note [Broadcast plan]
  };
  Kind kind = Kind::kEmpty;
  int64_t num_elements = 0;

  // kGeneral only (rank >= 2). Shape doubles as an inline int64 vector:
  // collapsed output dims outermost first, and each operand's element stride
  // along them (0 where it broadcasts).
  Shape dims;
  Shape lhs_strides;
  Shape rhs_strides;

  int rank() const { return dims.rank(); }
  int64_t inner_size() const { return dims.dim(rank() - 1); }
  int64_t num_rows() const { return num_elements / inner_size(); }
  int64_t lhs_inner_stride() const { return lhs_strides.dim(rank() - 1); }
  int64_t rhs_inner_stride() const { return rhs_strides.dim(rank() - 1); }
};

// `out` must be the broadcast of `lhs` and `rhs` (shape_fns::BroadcastShapes)
// and all three fully known.
BroadcastPlan MakeBroadcastPlan(const Shape& lhs, const Shape& rhs, const Shape& out);

// Note [N-ary broadcast plan]
// Ops with more than two operands (where, clip_by_value) collapse dims the
// same way as Note [Broadcast plan], with one "broadcasts here" bit per
// operand: adjacent output dims merge when every operand either spans both
// or broadcasts along both. The last collapsed dim is the inner run, along
// which each operand's stride is 1 or 0 (0: one element repeated). There are
// no separate flat kinds: same-shape and scalar operands collapse to a
// single run, and kernels split work by output element, not by row, so one
// long run still spreads over threads. Binary ops keep the two-operand
// BroadcastPlan, whose flat cases vectorize without a stride test.
inline constexpr int kMaxBroadcastOperands = 4;

struct NaryBroadcastPlan {
  int num_operands = 0;
  int64_t num_elements = 0;
  // Collapsed output dims, outermost first (rank >= 1 unless the output is
  // empty), and each operand's element stride along them.
  Shape dims;
  Shape strides[kMaxBroadcastOperands];

  int rank() const { return dims.rank(); }
  int64_t inner_size() const { return dims.dim(rank() - 1); }
  int64_t inner_stride(int operand) const { return strides[operand].dim(rank() - 1); }
};

// `out` must be the broadcast of the `num_operands` (<= kMaxBroadcastOperands)
// shapes, all fully known.
NaryBroadcastPlan MakeNaryBroadcastPlan(const Shape* const* operands, int num_operands,
                                        const Shape& out);

}  // namespace ember

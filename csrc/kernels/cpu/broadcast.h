// This file declares BroadcastPlan and BroadcastRowWalker: how CPU kernels
// iterate two NumPy-broadcast operands without per-rank templates; and
// NaryBroadcastPlan, the same for up to kMaxBroadcastOperands operands.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/shape.h"

namespace ember::cpu {

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

// Visits the rows (every collapsed dim but the last) of a kGeneral plan in
// row-major order, tracking where each row starts in each operand. The row
// with linear index r starts at output element r * inner_size().
class BroadcastRowWalker {
 public:
  BroadcastRowWalker(const BroadcastPlan& plan, int64_t first_row);

  int64_t lhs_offset() const { return lhs_offset_; }
  int64_t rhs_offset() const { return rhs_offset_; }
  void Next();

 private:
  const BroadcastPlan& plan_;
  Shape index_;  // position along each outer dim
  int64_t lhs_offset_ = 0;
  int64_t rhs_offset_ = 0;
};

// Calls fn(out_offset, lhs_offset, rhs_offset) for rows [first_row, last_row).
template <typename RowFn>
void ForEachBroadcastRow(const BroadcastPlan& plan, int64_t first_row, int64_t last_row, RowFn&& fn) {
  BroadcastRowWalker walker(plan, first_row);
  const int64_t inner = plan.inner_size();
  for (int64_t row = first_row; row < last_row; ++row, walker.Next()) {
    fn(row * inner, walker.lhs_offset(), walker.rhs_offset());
  }
}

// Calls fn(out_index, lhs_index, rhs_index) for output elements
// [first, last) of any plan (for batch loops such as matmul's).
template <typename ElementFn>
void ForEachBroadcastElement(const BroadcastPlan& plan, int64_t first, int64_t last, ElementFn&& fn) {
  switch (plan.kind) {
    case BroadcastPlan::Kind::kEmpty:
      return;
    case BroadcastPlan::Kind::kSameShape:
      for (int64_t i = first; i < last; ++i) fn(i, i, i);
      return;
    case BroadcastPlan::Kind::kLhsScalar:
      for (int64_t i = first; i < last; ++i) fn(i, int64_t{0}, i);
      return;
    case BroadcastPlan::Kind::kRhsScalar:
      for (int64_t i = first; i < last; ++i) fn(i, i, int64_t{0});
      return;
    case BroadcastPlan::Kind::kGeneral:
      break;
  }
  const int64_t inner = plan.inner_size();
  const int64_t ls = plan.lhs_inner_stride();
  const int64_t rs = plan.rhs_inner_stride();
  BroadcastRowWalker walker(plan, first / inner);
  int64_t j = first % inner;
  for (int64_t i = first; i < last; ++i) {
    fn(i, walker.lhs_offset() + j * ls, walker.rhs_offset() + j * rs);
    if (++j == inner) {
      j = 0;
      walker.Next();
    }
  }
}

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

// Visits the rows (every collapsed dim but the last) of a plan in row-major
// order, tracking where each row starts in each operand.
class NaryBroadcastRowWalker {
 public:
  NaryBroadcastRowWalker(const NaryBroadcastPlan& plan, int64_t first_row);

  int64_t offset(int operand) const { return offsets_[operand]; }
  void Next();

 private:
  const NaryBroadcastPlan& plan_;
  Shape index_;  // position along each outer dim
  int64_t offsets_[kMaxBroadcastOperands] = {};
};

// Calls fn(out_offset, offsets, n) for the runs that make up output
// elements [first, last): n consecutive output elements starting at
// out_offset, where operand k starts at offsets[k] and advances by
// plan.inner_stride(k) (0 or 1) per element.
template <typename RunFn>
void ForEachNaryBroadcastRun(const NaryBroadcastPlan& plan, int64_t first, int64_t last, RunFn&& fn) {
  if (first >= last) return;
  const int64_t inner = plan.inner_size();
  NaryBroadcastRowWalker walker(plan, first / inner);
  int64_t j = first % inner;
  int64_t offsets[kMaxBroadcastOperands];
  for (int64_t pos = first; pos < last; walker.Next()) {
    const int64_t n = std::min(inner - j, last - pos);
    for (int k = 0; k < plan.num_operands; ++k) {
      offsets[k] = walker.offset(k) + j * plan.inner_stride(k);
    }
    fn(pos, static_cast<const int64_t*>(offsets), n);
    pos += n;
    j = 0;
  }
}

}  // namespace ember::cpu

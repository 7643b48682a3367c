// This file declares BroadcastRowWalker and NaryBroadcastRowWalker: how CPU
// kernels iterate the operands of a broadcast plan (ops/plans/) without
// per-rank templates.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/shape.h"
#include "ops/plans/broadcast_plan.h"

namespace ember::cpu {

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

// This file implements BroadcastRowWalker and NaryBroadcastRowWalker.
#include "kernels/cpu/broadcast.h"

namespace ember::cpu {

BroadcastRowWalker::BroadcastRowWalker(const BroadcastPlan& plan, int64_t first_row) : plan_(plan) {
  const int outer = plan.rank() - 1;
  index_.Resize(outer);
  int64_t rest = first_row;
  for (int d = outer - 1; d >= 0; --d) {
    const int64_t size = plan.dims.dim(d);
    const int64_t i = rest % size;
    rest /= size;
    index_.set_dim(d, i);
    lhs_offset_ += i * plan.lhs_strides.dim(d);
    rhs_offset_ += i * plan.rhs_strides.dim(d);
  }
}

void BroadcastRowWalker::Next() {
  for (int d = index_.rank() - 1; d >= 0; --d) {
    const int64_t i = index_.dim(d) + 1;
    if (i < plan_.dims.dim(d)) {
      index_.set_dim(d, i);
      lhs_offset_ += plan_.lhs_strides.dim(d);
      rhs_offset_ += plan_.rhs_strides.dim(d);
      return;
    }
    index_.set_dim(d, 0);
    lhs_offset_ -= (i - 1) * plan_.lhs_strides.dim(d);
    rhs_offset_ -= (i - 1) * plan_.rhs_strides.dim(d);
  }
}

NaryBroadcastRowWalker::NaryBroadcastRowWalker(const NaryBroadcastPlan& plan, int64_t first_row)
    : plan_(plan) {
  const int outer = plan.rank() - 1;
  index_.Resize(outer);
  int64_t rest = first_row;
  for (int d = outer - 1; d >= 0; --d) {
    const int64_t size = plan.dims.dim(d);
    const int64_t i = rest % size;
    rest /= size;
    index_.set_dim(d, i);
    for (int k = 0; k < plan.num_operands; ++k) offsets_[k] += i * plan.strides[k].dim(d);
  }
}

void NaryBroadcastRowWalker::Next() {
  for (int d = index_.rank() - 1; d >= 0; --d) {
    const int64_t i = index_.dim(d) + 1;
    if (i < plan_.dims.dim(d)) {
      index_.set_dim(d, i);
      for (int k = 0; k < plan_.num_operands; ++k) offsets_[k] += plan_.strides[k].dim(d);
      return;
    }
    index_.set_dim(d, 0);
    for (int k = 0; k < plan_.num_operands; ++k) offsets_[k] -= (i - 1) * plan_.strides[k].dim(d);
  }
}

}  // namespace ember::cpu

// This file declares ReducePlan, the [outer, reduced, inner] view of a
// reduction that every reduction kernel shares, on any device.
#pragma once

#include <cstdint>
#include <vector>

#include "core/shape.h"

namespace ember {

// Note [Reduction plan]
// The input is viewed as [outer, reduced, inner] row-major. Size-1 dims are
// dropped and adjacent dims with the same reduced/kept flag merged, so any
// contiguous set of reduced axes fits; otherwise (e.g. axes 0 and 2 of
// [a, b, c]) the input is first transpose-copied so the kept dims lead and
// the reduced dims trail: [kept..., reduced...] = [outer, reduced, 1].
struct ReducePlan {
  int64_t outer = 1;
  int64_t reduced = 1;
  int64_t inner = 1;
  bool transpose = false;
  Shape collapsed;        // when transpose: the merged input dims...
  std::vector<int> perm;  // ...and the permutation putting kept dims first
};

inline ReducePlan MakeReducePlan(const Shape& in, const std::vector<bool>& reduced_axes) {
  Shape dims;
  std::vector<bool> flags;
  for (int i = 0; i < in.rank(); ++i) {
    if (in.dim(i) == 1) continue;
    if (!flags.empty() && flags.back() == reduced_axes[i]) {
      dims.set_dim(dims.rank() - 1, dims.dim(dims.rank() - 1) * in.dim(i));
    } else {
      dims.AddDim(in.dim(i));
      flags.push_back(reduced_axes[i]);
    }
  }
  ReducePlan plan;
  const int n = dims.rank();
  // Groups alternate, so the first flag and the count fix the pattern.
  if (n == 0) return plan;
  const bool starts_reduced = flags[0];
  if (n == 1) {
    (starts_reduced ? plan.reduced : plan.outer) = dims.dim(0);
  } else if (n == 2 || (n == 3 && !starts_reduced)) {
    int i = 0;
    if (!starts_reduced) plan.outer = dims.dim(i++);
    plan.reduced = dims.dim(i++);
    if (i < n) plan.inner = dims.dim(i);
  } else {
    plan.transpose = true;
    plan.collapsed = dims;
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < n; ++i) {
        if (flags[i] != (pass == 1)) continue;
        plan.perm.push_back(i);
        (pass == 0 ? plan.outer : plan.reduced) *= dims.dim(i);
      }
    }
  }
  return plan;
}

}  // namespace ember

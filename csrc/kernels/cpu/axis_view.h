// This file declares AxisView, the [outer, len, inner] view of a contiguous
// tensor around one axis that scan, arg-reduction and sort kernels share.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/shape.h"

namespace ember::cpu {

// Element (o, r, i) is at o * len * inner + r * inner + i. A "column" is one
// (o, i) pair: the len elements an axis-wise kernel combines.
struct AxisView {
  int64_t outer = 1;
  int64_t len = 1;
  int64_t inner = 1;

  int64_t num_columns() const { return outer * inner; }
};

// `axis` may be negative; the shape function has validated it.
inline AxisView MakeAxisView(const Shape& shape, int64_t axis) {
  const int rank = shape.rank();
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  AxisView v;
  for (int i = 0; i < rank; ++i) {
    if (i < a) v.outer *= shape.dim(i);
    else if (i == a) v.len = shape.dim(i);
    else v.inner *= shape.dim(i);
  }
  return v;
}

// Calls fn(o, i0, n) for runs of n consecutive columns (o, i0 .. i0 + n - 1)
// covering columns [first, last), where column c is (c / inner, c % inner).
// Runs are contiguous in memory along inner, so kernels vectorize over n.
template <typename Fn>
void ForEachColumnRun(const AxisView& v, int64_t first, int64_t last, Fn&& fn) {
  while (first < last) {
    const int64_t o = first / v.inner;
    const int64_t i0 = first % v.inner;
    const int64_t n = std::min(last - first, v.inner - i0);
    fn(o, i0, n);
    first += n;
  }
}

}  // namespace ember::cpu

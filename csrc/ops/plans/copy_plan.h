// This file declares CopyPlan, a strided copy between two tensors, and the
// plans of the movement ops that are one strided copy per tensor (slice,
// strided_slice, reverse, broadcast_to, tile, stack, unstack, split), for
// the CPU and GPU kernels alike: both devices move the same elements.
#pragma once

#include <cstdint>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "ops/attrs/movement.gen.h"
#include "ops/shape_fns/movement.h"

namespace ember {

// Element (i_0, ...) of a block of dims `dims` goes from
// src[src_offset + sum i_k * src_strides[k]] to
// dst[dst_offset + sum i_k * dst_strides[k]] (strides in elements, any
// sign; Note [Strided views] in ops/shape_fns/movement.h).
struct CopyPlan {
  std::vector<int64_t> dims;
  std::vector<int64_t> src_strides;
  std::vector<int64_t> dst_strides;
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
};

// Drops dims of size 1 and merges dims adjacent in both source and
// destination, so most copies become a few long runs.
CopyPlan CollapseCopyPlan(const CopyPlan& plan);

// `view` of the source into a contiguous destination.
CopyPlan CopyPlanForView(const shape_fns::StridedView& view);

// The strided view each view-copy op reads of its input.
Status ViewOf(const BroadcastToAttrs& attrs, const Shape& in, shape_fns::StridedView* view);
Status ViewOf(const TileAttrs& attrs, const Shape& in, shape_fns::StridedView* view);
Status ViewOf(const SliceAttrs& attrs, const Shape& in, shape_fns::StridedView* view);
Status ViewOf(const ReverseAttrs& attrs, const Shape& in, shape_fns::StridedView* view);
// strided_slice keeps its parsed spec (once per kernel).
struct StridedSliceKernelAttrs {
  explicit StridedSliceKernelAttrs(const AttrList& a) : spec(shape_fns::StridedSliceSpecFromAttrs(a)) {}
  shape_fns::StridedSliceSpec spec;
};
Status ViewOf(const StridedSliceKernelAttrs& attrs, const Shape& in, shape_fns::StridedView* view);

// stack: input i into its slice of `out` at index i of `axis`.
CopyPlan StackPartPlan(const Shape& in, const Shape& out, int axis, int i);
// unstack: output i from index i of `axis` of `in`.
CopyPlan UnstackPartPlan(const Shape& in, const Shape& out, int axis, int i);
// concat and split: the block of `part` starting at index `at` of `axis`
// in `whole` (into it for concat, out of it for split).
CopyPlan ConcatPartPlan(const Shape& part, const Shape& whole, int axis, int64_t at);
CopyPlan SplitPartPlan(const Shape& whole, const Shape& part, int axis, int64_t at);

}  // namespace ember

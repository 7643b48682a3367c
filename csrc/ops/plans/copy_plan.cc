// This file implements the copy plans of the movement ops (copy_plan.h).
#include "ops/plans/copy_plan.h"

namespace ember {
namespace {

std::vector<int64_t> Without(const std::vector<int64_t>& v, int i) {
  std::vector<int64_t> out = v;
  out.erase(out.begin() + i);
  return out;
}

}  // namespace

CopyPlan CollapseCopyPlan(const CopyPlan& in) {
  CopyPlan c;
  c.src_offset = in.src_offset;
  c.dst_offset = in.dst_offset;
  for (size_t i = 0; i < in.dims.size(); ++i) {
    const int64_t d = in.dims[i];
    if (d == 1) continue;
    if (!c.dims.empty() && c.src_strides.back() == in.src_strides[i] * d &&
        c.dst_strides.back() == in.dst_strides[i] * d) {
      c.dims.back() *= d;
      c.src_strides.back() = in.src_strides[i];
      c.dst_strides.back() = in.dst_strides[i];
      continue;
    }
    c.dims.push_back(d);
    c.src_strides.push_back(in.src_strides[i]);
    c.dst_strides.push_back(in.dst_strides[i]);
  }
  return c;
}

CopyPlan CopyPlanForView(const shape_fns::StridedView& view) {
  CopyPlan plan;
  plan.dims = view.dims;
  plan.src_strides = view.strides;
  plan.src_offset = view.offset;
  plan.dst_strides = ContiguousStrides(Shape(view.dims));
  return plan;
}

Status ViewOf(const BroadcastToAttrs& a, const Shape& in, shape_fns::StridedView* v) {
  return shape_fns::BroadcastToView(in, a.shape, v);
}
Status ViewOf(const TileAttrs& a, const Shape& in, shape_fns::StridedView* v) {
  Shape unused;
  return shape_fns::TileView(in, a.multiples, v, &unused);
}
Status ViewOf(const SliceAttrs& a, const Shape& in, shape_fns::StridedView* v) {
  return shape_fns::SliceView(in, a.begin, a.size, v);
}
Status ViewOf(const ReverseAttrs& a, const Shape& in, shape_fns::StridedView* v) {
  return shape_fns::ReverseView(in, a.axis, v);
}
Status ViewOf(const StridedSliceKernelAttrs& a, const Shape& in, shape_fns::StridedView* v) {
  Shape unused;
  return shape_fns::StridedSliceView(in, a.spec, v, &unused);
}

CopyPlan StackPartPlan(const Shape& in, const Shape& out, int axis, int i) {
  const std::vector<int64_t> out_strides = ContiguousStrides(out);
  CopyPlan plan;
  plan.dims = in.ToVector();
  plan.src_strides = ContiguousStrides(in);
  plan.dst_strides = Without(out_strides, axis);
  plan.dst_offset = i * out_strides[axis];
  return plan;
}

CopyPlan UnstackPartPlan(const Shape& in, const Shape& out, int axis, int i) {
  const std::vector<int64_t> strides = ContiguousStrides(in);
  CopyPlan plan;
  plan.dims = out.ToVector();
  plan.src_strides = Without(strides, axis);
  plan.src_offset = i * strides[axis];
  plan.dst_strides = ContiguousStrides(out);
  return plan;
}

CopyPlan ConcatPartPlan(const Shape& part, const Shape& whole, int axis, int64_t at) {
  const std::vector<int64_t> whole_strides = ContiguousStrides(whole);
  CopyPlan plan;
  plan.dims = part.ToVector();
  plan.src_strides = ContiguousStrides(part);
  plan.dst_strides = whole_strides;
  plan.dst_offset = at * whole_strides[axis];
  return plan;
}

CopyPlan SplitPartPlan(const Shape& whole, const Shape& part, int axis, int64_t at) {
  const std::vector<int64_t> whole_strides = ContiguousStrides(whole);
  CopyPlan plan;
  plan.dims = part.ToVector();
  plan.src_strides = whole_strides;
  plan.src_offset = at * whole_strides[axis];
  plan.dst_strides = ContiguousStrides(part);
  return plan;
}

}  // namespace ember

// This file implements the reduction shape function and axis normalization.
#include "ops/kernel_plan.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {

Status NormalizeAxes(const std::optional<std::vector<int64_t>>& axis, int rank,
                     std::vector<bool>* reduced) {
  reduced->assign(rank, !axis.has_value());
  if (!axis) return Status::OK();
  for (int64_t a : *axis) {
    if (a < -rank || a >= rank) {
      return InvalidArgument("Invalid reduction axis " + std::to_string(a) + " for input of rank " +
                             std::to_string(rank) + " (axis must be in [" + std::to_string(-rank) +
                             ", " + std::to_string(rank) + "))");
    }
    const int64_t k = a < 0 ? a + rank : a;
    if ((*reduced)[k]) {
      return InvalidArgument("Duplicate reduction axis " + std::to_string(a) + " in " +
                             IntListToString(*axis));
    }
    (*reduced)[k] = true;
  }
  return Status::OK();
}

Status NormalizeAxes(const AttrValue& axis, int rank, std::vector<bool>* reduced) {
  if (axis.is_none()) return NormalizeAxes(std::nullopt, rank, reduced);
  return NormalizeAxes(std::optional<std::vector<int64_t>>(axis.as_int_list()), rank, reduced);
}

Status Reduce(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const bool keepdims = ctx.attr(1).as_bool();
  std::vector<bool> reduced;
  EMBER_RETURN_IF_ERROR(NormalizeAxes(ctx.attr(0), in.rank(), &reduced));
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (!reduced[i]) {
      out.AddDim(in.dim(i));
    } else if (keepdims) {
      out.AddDim(1);
    }
  }
  // Note [Kernel plans]: the [outer, reduced, inner] view of a known input.
  if (WantsReusedPlan(ctx) && in.IsFullyKnown()) LeavePlan(ctx, MakeReducePlan(in, reduced));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns

namespace ember::shape_fns {
namespace {

// Normalizes a single axis attr value into [0, rank).
Status NormalizeAxis(int64_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("axis " + std::to_string(axis) + " is out of range for input of rank " +
                           std::to_string(rank) + " (axis must be in [" + std::to_string(-rank) +
                           ", " + std::to_string(rank) + "))");
  }
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return Status::OK();
}

}  // namespace

Status ArgReduce(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const int64_t axis_attr = ctx.attr(0).is_none() ? 0 : ctx.attr(0).as_int();
  int axis;
  EMBER_RETURN_IF_ERROR(NormalizeAxis(axis_attr, in.rank(), &axis));
  if (in.dim(axis) == 0) {
    return InvalidArgument("Reduction axis " + std::to_string(axis_attr) + " is empty in shape " +
                           in.ToString());
  }
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (i != axis) out.AddDim(in.dim(i));
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status Scan(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  int axis;
  EMBER_RETURN_IF_ERROR(NormalizeAxis(ctx.attr(0).as_int(), in.rank(), &axis));
  ctx.set_output_shape(0, in);
  return Status::OK();
}

}  // namespace ember::shape_fns

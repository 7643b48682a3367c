// This file implements the shape functions of the collective ops.
#include "core/checked_math.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {

Status CollectiveReduce(ShapeContext& ctx) {
  const std::string& reduction = ctx.attr(1).as_string();
  if (reduction != "sum" && reduction != "max" && reduction != "min") {
    return InvalidArgument("reduction must be 'sum', 'max' or 'min', got '" + reduction + "'");
  }
  ctx.set_output_shape(0, ctx.input_shape(0));
  return Status::OK();
}

Status CollectiveGather(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const int64_t group_size = ctx.attr(1).as_int();
  if (group_size < 1) return InvalidArgument("group_size must be at least 1, got " + std::to_string(group_size));
  if (in.rank() == 0) return InvalidArgument("a scalar has no dimension 0 to gather along; reshape it to [1] first");
  Shape out = in;
  if (in.dim(0) != Shape::kUnknownDim) {
    int64_t rows;
    if (!CheckedMul(in.dim(0), group_size, &rows)) return InvalidArgument("the gathered shape overflows");
    out.set_dim(0, rows);
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns

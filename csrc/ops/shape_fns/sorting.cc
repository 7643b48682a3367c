// This file implements the sort and top_k shape functions.
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {

Status Sort(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const int64_t axis = ctx.attr(0).as_int();
  const std::string& direction = ctx.attr(1).as_string();
  if (in.rank() == 0) return InvalidArgument("input must have rank >= 1, got shape " + in.ToString());
  if (axis < -in.rank() || axis >= in.rank()) {
    return InvalidArgument("axis " + std::to_string(axis) + " is out of range for input of rank " +
                           std::to_string(in.rank()));
  }
  if (direction != "ASCENDING" && direction != "DESCENDING") {
    return InvalidArgument("direction must be ASCENDING or DESCENDING, got '" + direction + "'");
  }
  ctx.set_output_shape(0, in);
  return Status::OK();
}

Status TopK(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const int64_t k = ctx.attr(0).as_int();
  if (in.rank() == 0) return InvalidArgument("input must have rank >= 1, got shape " + in.ToString());
  const int64_t last = in.dim(in.rank() - 1);
  if (k < 0) return InvalidArgument("k must be non-negative, got " + std::to_string(k));
  if (last != Shape::kUnknownDim && k > last) {
    return InvalidArgument("input must have at least k=" + std::to_string(k) +
                           " columns, got shape " + in.ToString());
  }
  Shape out = in;
  out.set_dim(in.rank() - 1, k);
  ctx.set_output_shape(0, out);
  ctx.set_output_shape(1, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns

// This file implements the shape functions of the collective ops.
#include "core/checked_math.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

Status CheckReduction(const std::string& reduction) {
  if (reduction != "sum" && reduction != "max" && reduction != "min") {
    return InvalidArgument("reduction must be 'sum', 'max' or 'min', got '" + reduction + "'");
  }
  return Status::OK();
}

// group_size at least 1, and an input whose dimension 0 (when known) splits
// into group_size equal blocks, one per worker.
Status CheckBlocks(const Shape& in, int64_t group_size) {
  if (group_size < 1) return InvalidArgument("group_size must be at least 1, got " + std::to_string(group_size));
  if (in.rank() == 0) return InvalidArgument("a scalar has no dimension 0 to split; reshape it to [1] first");
  if (in.dim(0) != Shape::kUnknownDim && in.dim(0) % group_size != 0) {
    return InvalidArgument("dimension 0 of shape " + in.ToString() + " does not split into " +
                           std::to_string(group_size) + " equal blocks, one per worker");
  }
  return Status::OK();
}

}  // namespace

Status CollectiveReduce(ShapeContext& ctx) {
  EMBER_RETURN_IF_ERROR(CheckReduction(ctx.attr(1).as_string()));
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

Status CollectiveScatter(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const int64_t group_size = ctx.attr(1).as_int();
  EMBER_RETURN_IF_ERROR(CheckReduction(ctx.attr(2).as_string()));
  EMBER_RETURN_IF_ERROR(CheckBlocks(in, group_size));
  Shape out = in;
  if (in.dim(0) != Shape::kUnknownDim) out.set_dim(0, in.dim(0) / group_size);
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status CollectiveAllToAll(ShapeContext& ctx) {
  EMBER_RETURN_IF_ERROR(CheckBlocks(ctx.input_shape(0), ctx.attr(1).as_int()));
  ctx.set_output_shape(0, ctx.input_shape(0));
  return Status::OK();
}

}  // namespace ember::shape_fns

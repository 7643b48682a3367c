// This file implements the reduction shape function and axis normalization.
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
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns

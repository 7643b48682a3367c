// This file defines the shape function of the stateless random ops.
#include <string>
#include <vector>

#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {

// The seed is a tensor input, not an attr, so that a fresh seed per call
// (Generator) reuses one cached kernel; only its shape is known here, and the
// kernel reads its two values.
Status StatelessRandom(ShapeContext& ctx) {
  const Shape& seed = ctx.input_shape(0);
  if (seed.rank() != 1 || (seed.dim(0) != 2 && seed.dim(0) != Shape::kUnknownDim)) {
    return InvalidArgument("seed must have shape [2], got " + seed.ToString());
  }
  Shape shape;
  EMBER_RETURN_IF_ERROR(ShapeFromList(ctx.attr(0).as_int_list(), "shape", &shape));
  ctx.set_output_shape(0, std::move(shape));
  return Status::OK();
}

}  // namespace ember::shape_fns

// This file defines the shape function of the stateless random ops.
#include <string>
#include <vector>

#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {

// The seed is a tensor input, not an attr, so that a fresh seed per call
// (Generator) reuses one cached kernel; only its shape is known here, and the
// kernel reads its two values.
namespace {

Status CheckSeed(const Shape& seed) {
  if (seed.rank() != 1 || (seed.dim(0) != 2 && seed.dim(0) != Shape::kUnknownDim)) {
    return InvalidArgument("seed must have shape [2], got " + seed.ToString());
  }
  return Status::OK();
}

}  // namespace

Status StatelessRandom(ShapeContext& ctx) {
  EMBER_RETURN_IF_ERROR(CheckSeed(ctx.input_shape(0)));
  Shape shape;
  EMBER_RETURN_IF_ERROR(ShapeFromList(ctx.attr(0).as_int_list(), "shape", &shape));
  ctx.set_output_shape(0, std::move(shape));
  return Status::OK();
}

// stateless_random_shuffle: value's shape; input 1 the seed.
Status RandomShuffle(ShapeContext& ctx) {
  EMBER_RETURN_IF_ERROR(CheckSeed(ctx.input_shape(1)));
  ctx.set_output_shape(0, ctx.input_shape(0));
  return Status::OK();
}

// stateless_categorical: logits [batch, classes] -> [batch, num_samples].
Status Categorical(ShapeContext& ctx) {
  const Shape& logits = ctx.input_shape(0);
  EMBER_RETURN_IF_ERROR(CheckSeed(ctx.input_shape(1)));
  if (logits.rank() != 2) return InvalidArgument("logits should be a matrix, got shape " + logits.ToString());
  if (logits.dim(1) == 0 && logits.dim(0) != 0) {
    return InvalidArgument("logits must have at least one class, got shape " + logits.ToString());
  }
  const int64_t num_samples = ctx.attr(0).as_int();
  if (num_samples < 0) return InvalidArgument("num_samples should be nonnegative, got " + std::to_string(num_samples));
  Shape out;
  EMBER_RETURN_IF_ERROR(ShapeFromList({logits.dim(0), num_samples}, "output shape", &out));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns

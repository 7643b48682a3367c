// This file implements the shape functions of ops over lists of tensors.
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {

Status IdentityN(ShapeContext& ctx) {
  ctx.set_num_outputs(ctx.num_inputs());
  for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_output_shape(i, ctx.input_shape(i));
  return Status::OK();
}

Status PassThrough(ShapeContext& ctx) {
  ctx.set_num_outputs(ctx.num_inputs());
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    ctx.set_output_shape(i, ctx.input_shape(i));
    ctx.set_output_dtype(i, ctx.input_dtype(i));
  }
  return Status::OK();
}

}  // namespace ember::shape_fns

// This file implements the optimizer-update shape function (op_defs/training.yaml).
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {

Status ApplyUpdate(ShapeContext& ctx) {
  const int num_state = static_cast<int>(ctx.op().outputs.size());
  const Shape& var = ctx.input_shape(0);
  for (int i = 1; i <= num_state; ++i) {
    if (ctx.input_shape(i) != var) {
      return InvalidArgument(std::string(ctx.op().inputs[i].name) + " has shape " + ctx.input_shape(i).ToString() +
                             " but var has shape " + var.ToString());
    }
  }
  for (int i = num_state + 1; i < ctx.num_inputs(); ++i) {
    if (ctx.input_shape(i).rank() != 0) {
      return InvalidArgument(std::string(ctx.op().inputs[i].name) + " must be a scalar, got shape " +
                             ctx.input_shape(i).ToString());
    }
  }
  for (int i = 0; i < num_state; ++i) ctx.set_output_shape(i, var);
  return Status::OK();
}

}  // namespace ember::shape_fns

// This file implements the element-wise shape functions: Unchanged and
// NumPy broadcasting of two or more inputs.
#include <algorithm>

#include "ops/kernel_plan.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {

Status Unchanged(ShapeContext& ctx) {
  ctx.set_output_shape(0, ctx.input_shape(0));
  return Status::OK();
}

Status BroadcastShapes(const Shape& a, const Shape& b, Shape* out) {
  const int rank = std::max(a.rank(), b.rank());
  Shape result;
  result.Resize(rank);
  for (int i = 0; i < rank; ++i) {
    // Align from the right; missing leading dims act as 1.
    const int ia = i - (rank - a.rank());
    const int ib = i - (rank - b.rank());
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    int64_t d;
    if (da == db || db == 1) {
      d = da;
    } else if (da == 1) {
      d = db;
    } else if (da == Shape::kUnknownDim) {
      d = db;  // db is known and != 1, so the unknown dim must be 1 or db.
    } else if (db == Shape::kUnknownDim) {
      d = da;
    } else {
      return InvalidArgument("Incompatible shapes: " + a.ToString() + " vs. " + b.ToString());
    }
    result.set_dim(i, d);
  }
  *out = std::move(result);
  return Status::OK();
}

Status BroadcastBinary(ShapeContext& ctx) {
  Shape out;
  EMBER_RETURN_IF_ERROR(BroadcastShapes(ctx.input_shape(0), ctx.input_shape(1), &out));
  // Note [Kernel plans]: how each operand maps onto the output, when that
  // takes work: the flat cases (same shapes, a scalar side) a kernel tells
  // from the element counts alone, cheaper than carrying a plan.
  if (WantsReusedPlan(ctx) && out.IsFullyKnown()) {
    const int64_t n = out.NumElements(), lhs_n = ctx.input_shape(0).NumElements(),
                  rhs_n = ctx.input_shape(1).NumElements();
    if (n != 0 && lhs_n != 1 && rhs_n != 1 && (lhs_n != n || rhs_n != n)) {
      LeavePlan(ctx, MakeBroadcastPlan(ctx.input_shape(0), ctx.input_shape(1), out));
    }
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status BroadcastAll(ShapeContext& ctx) {
  Shape out = ctx.input_shape(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    Shape next;
    if (!BroadcastShapes(out, ctx.input_shape(i), &next).ok()) {
      std::string shapes;
      for (int j = 0; j < ctx.num_inputs(); ++j) {
        shapes += (j ? " vs. " : "") + ctx.input_shape(j).ToString();
      }
      return InvalidArgument("Incompatible shapes: " + shapes);
    }
    out = std::move(next);
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status AddN(ShapeContext& ctx) {
  if (ctx.num_inputs() == 0) return InvalidArgument("needs at least one input tensor");
  const Shape& first = ctx.input_shape(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    if (ctx.input_shape(i) != first) {
      return InvalidArgument("all inputs must have the same shape: inputs[0] is " + first.ToString() +
                             ", inputs[" + std::to_string(i) + "] is " + ctx.input_shape(i).ToString());
    }
  }
  ctx.set_output_shape(0, first);
  return Status::OK();
}

std::string IntListToString(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(values[i]);
  }
  return s + "]";
}

}  // namespace ember::shape_fns

// This file implements the matmul shape function (NumPy matmul rules with
// TensorFlow's rank >= 2 requirement).
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

Shape BatchDims(const Shape& s) { return Shape(s.data(), s.rank() - 2); }

}  // namespace

Status Matmul(ShapeContext& ctx) {
  const Shape& a = ctx.input_shape(0);
  const Shape& b = ctx.input_shape(1);
  const bool transpose_a = ctx.attr(0).as_bool();
  const bool transpose_b = ctx.attr(1).as_bool();
  if (a.rank() < 2 || b.rank() < 2) {
    return InvalidArgument("Inputs must have rank >= 2, got In[0]: " + a.ToString() +
                           ", In[1]: " + b.ToString());
  }
  const int64_t m = a.dim(a.rank() - (transpose_a ? 1 : 2));
  const int64_t ka = a.dim(a.rank() - (transpose_a ? 2 : 1));
  const int64_t kb = b.dim(b.rank() - (transpose_b ? 1 : 2));
  const int64_t n = b.dim(b.rank() - (transpose_b ? 2 : 1));
  if (ka != kb && ka != Shape::kUnknownDim && kb != Shape::kUnknownDim) {
    std::string msg = "Matrix size-incompatible: In[0]: " + a.ToString() + ", In[1]: " + b.ToString();
    if (transpose_a || transpose_b) {
      msg += std::string(" (transpose_a=") + (transpose_a ? "true" : "false") +
             ", transpose_b=" + (transpose_b ? "true" : "false") + ")";
    }
    return InvalidArgument(msg);
  }
  Shape out;
  if (!BroadcastShapes(BatchDims(a), BatchDims(b), &out).ok()) {
    return InvalidArgument("Incompatible batch dimensions: In[0]: " + a.ToString() +
                           ", In[1]: " + b.ToString());
  }
  out.AddDim(m);
  out.AddDim(n);
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns

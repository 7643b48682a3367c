// This file implements the linear algebra shape functions: matmul (NumPy
// matmul rules with TensorFlow's rank >= 2 requirement), tensordot and norm.
#include <algorithm>

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

namespace ember::shape_fns {

// Attrs: 0 ord (string), 1 axis (optional list(int)), 2 keepdims.
Status Norm(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const std::string& ord = ctx.attr(0).as_string();
  const bool keepdims = ctx.attr(2).as_bool();
  const bool matrix = !ctx.attr(1).is_none() && ctx.attr(1).as_int_list().size() == 2;
  if (!ctx.attr(1).is_none() && ctx.attr(1).as_int_list().size() > 2) {
    return InvalidArgument("axis must be None, an int or a pair of ints, got " +
                           IntListToString(ctx.attr(1).as_int_list()));
  }
  if (matrix ? (ord != "fro" && ord != "euclidean")
             : (ord != "euclidean" && ord != "1" && ord != "2" && ord != "inf")) {
    return InvalidArgument("ord '" + ord + "' is not supported for " +
                           (matrix ? "matrix norms (supported: 'fro', 'euclidean')"
                                   : "vector norms (supported: 'euclidean', 1, 2, inf)"));
  }
  std::vector<bool> reduced;
  EMBER_RETURN_IF_ERROR(NormalizeAxes(ctx.attr(1), in.rank(), &reduced));
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (!reduced[i]) out.AddDim(in.dim(i));
    else if (keepdims) out.AddDim(1);
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status TensordotAxes(const Shape& a, const Shape& b, const std::vector<int64_t>& axes,
                     std::vector<int>* a_axes, std::vector<int>* b_axes) {
  a_axes->clear();
  b_axes->clear();
  if (axes.size() == 1) {
    const int64_t n = axes[0];
    if (n < 0 || n > a.rank() || n > b.rank()) {
      return InvalidArgument("axes " + std::to_string(n) + " must be in [0, min(rank(a), rank(b))] for " +
                             a.ToString() + " and " + b.ToString());
    }
    for (int64_t i = 0; i < n; ++i) {
      a_axes->push_back(static_cast<int>(a.rank() - n + i));
      b_axes->push_back(static_cast<int>(i));
    }
  } else {
    if (axes.empty() || axes.size() % 2 != 0) {
      return InvalidArgument("axes must be an int or two equal-length lists of axes, got " +
                             IntListToString(axes));
    }
    const size_t k = axes.size() / 2;
    for (size_t i = 0; i < axes.size(); ++i) {
      const Shape& s = i < k ? a : b;
      const int64_t ax = axes[i];
      if (ax < -s.rank() || ax >= s.rank()) {
        return InvalidArgument("axis " + std::to_string(ax) + " is out of range for " +
                               (i < k ? "a" : "b") + " of shape " + s.ToString());
      }
      std::vector<int>* out = i < k ? a_axes : b_axes;
      const int norm = static_cast<int>(ax < 0 ? ax + s.rank() : ax);
      for (int prev : *out) {
        if (prev == norm) return InvalidArgument("repeated axis in axes " + IntListToString(axes));
      }
      out->push_back(norm);
    }
  }
  for (size_t i = 0; i < a_axes->size(); ++i) {
    const int64_t da = a.dim((*a_axes)[i]);
    const int64_t db = b.dim((*b_axes)[i]);
    if (da != db && da != Shape::kUnknownDim && db != Shape::kUnknownDim) {
      return InvalidArgument("contracted dimensions differ: a" + a.ToString() + " axis " +
                             std::to_string((*a_axes)[i]) + " vs. b" + b.ToString() + " axis " +
                             std::to_string((*b_axes)[i]));
    }
  }
  return Status::OK();
}

// Attr 0: axes (list(int): [N], or a's axes followed by as many of b's).
Status FusedMatmul(ShapeContext& ctx) {
  const Shape& a = ctx.input_shape(0);
  const Shape& b = ctx.input_shape(1);
  const Shape& bias = ctx.input_shape(2);
  // b is one matrix; a a matrix or, untransposed, a batch of them (a
  // dense layer over [batch, ..., features]), whose rows stack into one.
  const bool transpose_a = ctx.attr(0).as_bool();
  if (b.rank() != 2 || a.rank() < 2 || (transpose_a && a.rank() != 2)) {
    return InvalidArgument("b must be a matrix and a a matrix (or, without transpose_a, a batch of them), got " +
                           a.ToString() + " and " + b.ToString());
  }
  EMBER_RETURN_IF_ERROR(Matmul(ctx));
  const std::string& activation = ctx.attr(2).as_string();
  if (activation != "none" && activation != "relu" && activation != "gelu_approximate") {
    return InvalidArgument("activation must be none, relu or gelu_approximate, got \"" + activation + "\"");
  }
  const int64_t n = b.dim(ctx.attr(1).as_bool() ? 0 : 1);
  if (bias.rank() != 1 || (bias.dim(0) != n && bias.dim(0) != Shape::kUnknownDim && n != Shape::kUnknownDim)) {
    return InvalidArgument("bias must be a vector of the product's " + std::to_string(n) + " columns, got " +
                           bias.ToString());
  }
  return Status::OK();
}

Status Tensordot(ShapeContext& ctx) {
  const Shape& a = ctx.input_shape(0);
  const Shape& b = ctx.input_shape(1);
  std::vector<int> a_axes, b_axes;
  EMBER_RETURN_IF_ERROR(TensordotAxes(a, b, ctx.attr(0).as_int_list(), &a_axes, &b_axes));
  Shape out;
  for (int i = 0; i < a.rank(); ++i) {
    if (std::find(a_axes.begin(), a_axes.end(), i) == a_axes.end()) out.AddDim(a.dim(i));
  }
  for (int i = 0; i < b.rank(); ++i) {
    if (std::find(b_axes.begin(), b_axes.end(), i) == b_axes.end()) out.AddDim(b.dim(i));
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns

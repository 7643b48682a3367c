// This file implements the shape-manipulation shape functions: Reshape,
// Transpose and ShapeFromAttr.
#include "ops/shape_fns/shape_fns.h"

#include "core/checked_math.h"

namespace ember::shape_fns {

Status Reshape(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const std::vector<int64_t>& requested = ctx.attr(0).as_int_list();
  int infer_at = -1;
  int64_t known_product = 1;  // of the nonzero known dims (Note [Shape limits])
  bool has_zero = false;
  for (size_t i = 0; i < requested.size(); ++i) {
    const int64_t d = requested[i];
    if (d == -1) {
      if (infer_at >= 0) {
        return InvalidArgument("Only one dimension of the new shape can be -1, got " +
                               IntListToString(requested));
      }
      infer_at = static_cast<int>(i);
    } else if (d < 0) {
      return InvalidArgument("Invalid dimension " + std::to_string(d) + " in new shape " +
                             IntListToString(requested));
    } else if (d == 0) {
      has_zero = true;
    } else if (!CheckedMul(known_product, d, &known_product)) {
      return InvalidArgument("New shape " + IntListToString(requested) + " has too many elements");
    }
  }
  if (has_zero) known_product = 0;
  Shape out(requested);
  const int64_t num = in.NumElements();
  if (num < 0) {
    // Unknown input dims (graph mode): the -1 stays unknown.
    ctx.set_output_shape(0, std::move(out));
    return Status::OK();
  }
  if (infer_at >= 0) {
    if (known_product == 0) {
      return InvalidArgument("Cannot infer the -1 in new shape " + IntListToString(requested) +
                             " for a tensor of shape " + in.ToString() +
                             " when another dimension is 0");
    }
    if (num % known_product != 0) {
      return InvalidArgument("Cannot reshape a tensor of shape " + in.ToString() + " (" +
                             std::to_string(num) + " elements) into shape " +
                             IntListToString(requested) + ": " + std::to_string(num) +
                             " is not a multiple of " + std::to_string(known_product));
    }
    out.set_dim(infer_at, num / known_product);
  } else if (known_product != num) {
    return InvalidArgument("Cannot reshape a tensor of shape " + in.ToString() + " (" +
                           std::to_string(num) + " elements) into shape " +
                           IntListToString(requested) + " (" + std::to_string(known_product) +
                           " elements)");
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status ShapeFromList(const std::vector<int64_t>& dims, const char* what, Shape* out) {
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    return InvalidArgument(std::string(what) + " has " + std::to_string(dims.size()) + " dimensions (at most " +
                           std::to_string(kMaxRank) + ")");
  }
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument(std::string(what) + " must have non-negative dimensions, got " + IntListToString(dims));
  }
  Shape shape(dims);
  Status s = ValidateShape(shape, 1);
  if (!s.ok()) return InvalidArgument(std::string(what) + ": " + s.message());
  *out = std::move(shape);
  return Status::OK();
}

Status NormalizePerm(const std::optional<std::vector<int64_t>>& perm, int rank,
                     std::vector<int>* out) {
  out->resize(rank);
  if (!perm) {
    for (int i = 0; i < rank; ++i) (*out)[i] = rank - 1 - i;
    return Status::OK();
  }
  if (static_cast<int>(perm->size()) != rank) {
    return InvalidArgument("Permutation " + IntListToString(*perm) + " has " +
                           std::to_string(perm->size()) + " entries, but the input has rank " +
                           std::to_string(rank));
  }
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    const int64_t p = (*perm)[i];
    if (p < 0 || p >= rank) {
      return InvalidArgument("Permutation " + IntListToString(*perm) + " has entry " +
                             std::to_string(p) + " outside [0, " + std::to_string(rank) + ")");
    }
    if (seen[p]) {
      return InvalidArgument("Permutation " + IntListToString(*perm) + " repeats " +
                             std::to_string(p));
    }
    seen[p] = true;
    (*out)[i] = static_cast<int>(p);
  }
  return Status::OK();
}

Status Transpose(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const AttrValue& attr = ctx.attr(0);
  std::vector<int> perm;
  Status s = attr.is_none() ? NormalizePerm(std::nullopt, in.rank(), &perm)
                            : NormalizePerm(attr.as_int_list(), in.rank(), &perm);
  EMBER_RETURN_IF_ERROR(s);
  Shape out;
  out.Resize(in.rank());
  for (int i = 0; i < in.rank(); ++i) out.set_dim(i, in.dim(perm[i]));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status ShapeFromAttr(ShapeContext& ctx) {
  Shape shape;
  EMBER_RETURN_IF_ERROR(ShapeFromList(ctx.attr(0).as_int_list(), "shape", &shape));
  // fill(dims, value): the value input, if any, is the scalar to repeat.
  if (ctx.num_inputs() > 0 && ctx.input_shape(0).rank() != 0) {
    return InvalidArgument("value must be a scalar, got shape " + ctx.input_shape(0).ToString());
  }
  ctx.set_output_shape(0, std::move(shape));
  return Status::OK();
}

}  // namespace ember::shape_fns

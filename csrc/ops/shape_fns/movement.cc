// This file implements the shape functions of the movement and indexing
// ops (op_defs/movement.yaml, op_defs/indexing.yaml) and the index
// arithmetic of shape_fns/movement.h that their CPU kernels share.
#include "ops/shape_fns/movement.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "ops/shape_fns/shape_fns.h"

#include "core/checked_math.h"

namespace ember::shape_fns {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

void ViewOfWholeTensor(const Shape& in, StridedView* view) {
  view->dims = in.ToVector();
  view->strides = ContiguousStrides(in);
  view->offset = 0;
}

bool SamePrefix(const Shape& a, const Shape& b, int n) {
  for (int i = 0; i < n; ++i) {
    if (a.dim(i) != b.dim(i)) return false;
  }
  return true;
}

Shape Prefix(const Shape& s, int n) { return Shape(s.data(), n); }

}  // namespace

Status NormalizeAxis(int64_t axis, int rank, const char* what, int* out) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument(std::string(what) + " " + Str(axis) + " is out of range for a tensor of rank " +
                           Str(rank) + " (expected [" + Str(-rank) + ", " + Str(rank) + "))");
  }
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return Status::OK();
}

std::string IndexToString(const std::vector<int64_t>& dims, int64_t flat) {
  std::vector<int64_t> idx(dims.size());
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    idx[i] = dims[i] > 0 ? flat % dims[i] : 0;
    flat = dims[i] > 0 ? flat / dims[i] : 0;
  }
  std::string s;
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + Str(idx[i]);
  return s;
}

Status InsertAxis(int64_t axis, int rank, int* out) {
  if (axis < -rank - 1 || axis > rank) {
    return InvalidArgument("axis " + Str(axis) + " is out of range for inserting a dimension into rank " +
                           Str(rank) + " (expected [" + Str(-rank - 1) + ", " + Str(rank) + "])");
  }
  *out = static_cast<int>(axis < 0 ? axis + rank + 1 : axis);
  return Status::OK();
}

// --- Strided views ----------------------------------------------------------

Status SliceView(const Shape& in, const std::vector<int64_t>& begin,
                 const std::vector<int64_t>& size, StridedView* view) {
  const int rank = in.rank();
  if (static_cast<int>(begin.size()) != rank || static_cast<int>(size.size()) != rank) {
    return InvalidArgument("begin " + IntListToString(begin) + " and size " + IntListToString(size) +
                           " must each have one entry per dimension of the input, shape " + in.ToString());
  }
  ViewOfWholeTensor(in, view);
  for (int i = 0; i < rank; ++i) {
    const int64_t n = in.dim(i), b = begin[i];
    int64_t len = size[i];
    if (b < 0 || b > n) {
      return InvalidArgument("begin[" + Str(i) + "] = " + Str(b) + " is not in [0, " + Str(n) +
                             "] for input shape " + in.ToString());
    }
    if (len == -1) len = n - b;
    if (len < 0 || len > n - b) {
      return InvalidArgument("size[" + Str(i) + "] = " + Str(size[i]) + " is out of range: begin " +
                             Str(b) + " + size must be in [0, " + Str(n) + "] for input shape " +
                             in.ToString());
    }
    view->dims[i] = len;
    if (len > 0) view->offset += b * view->strides[i];
  }
  return Status::OK();
}

// Note [Unknown dims in strided_slice]: while tracing, an input dim may be
// unknown. A shrunk index into it is checked when the graph runs (the shape
// function runs again then, with the real shape); a slice of it has an
// unknown length. The view is only meaningful for known shapes.
Status StridedSliceView(const Shape& in, const StridedSliceSpec& spec, StridedView* view,
                        Shape* final_shape) {
  const int n = static_cast<int>(spec.begin.size());
  if (spec.end.size() != spec.begin.size() || (spec.strides && spec.strides->size() != spec.begin.size())) {
    return InvalidArgument("begin " + IntListToString(spec.begin) + ", end " + IntListToString(spec.end) +
                           (spec.strides ? ", strides " + IntListToString(*spec.strides) : std::string()) +
                           " must have the same length");
  }
  if (n > 62) return InvalidArgument("too many slice entries (" + Str(n) + ")");
  const auto bit = [](int64_t mask, int i) { return ((mask >> i) & 1) != 0; };
  int ellipsis_at = -1;
  int num_real = 0;  // sparse entries that consume an input dim
  for (int i = 0; i < n; ++i) {
    if (bit(spec.ellipsis_mask, i)) {
      if (ellipsis_at >= 0) return InvalidArgument("Multiple ellipses in slice spec not allowed");
      ellipsis_at = i;
    } else if (!bit(spec.new_axis_mask, i)) {
      ++num_real;
    }
  }
  const int rank = in.rank();
  if (num_real > rank) {
    return InvalidArgument("too many indices for a tensor of rank " + Str(rank) + ": the slice spec indexes " +
                           Str(num_real) + " dimensions");
  }
  const std::vector<int64_t> in_strides = ContiguousStrides(in);
  view->dims.assign(rank, 0);
  view->strides.assign(rank, 0);
  view->offset = 0;
  Shape out;
  int d = 0;  // next input dim
  auto full_dim = [&]() {
    view->dims[d] = in.dim(d);
    view->strides[d] = in_strides[d];
    out.AddDim(in.dim(d));
    ++d;
  };
  for (int i = 0; i < n; ++i) {
    if (i == ellipsis_at) {
      const int covered = rank - num_real;
      for (int k = 0; k < covered; ++k) full_dim();
      continue;
    }
    if (bit(spec.new_axis_mask, i)) {
      out.AddDim(1);
      continue;
    }
    const int64_t dim = in.dim(d);
    const int64_t stride = spec.strides ? (*spec.strides)[i] : 1;
    if (stride == 0) return InvalidArgument("strides[" + Str(i) + "] must be non-zero");
    if (dim == Shape::kUnknownDim) {
      // A traced input's unknown dim (Note [Unknown dims in strided_slice]).
      if (!bit(spec.shrink_axis_mask, i)) out.AddDim(Shape::kUnknownDim);
      view->dims[d] = 0;
      ++d;
      continue;
    }
    if (bit(spec.shrink_axis_mask, i)) {
      int64_t idx = bit(spec.begin_mask, i) ? 0 : spec.begin[i];
      if (idx < 0) idx += dim;
      if (idx < 0 || idx >= dim) {
        return InvalidArgument("slice index " + Str(spec.begin[i]) + " of dimension " + Str(d) +
                               " out of bounds for shape " + in.ToString());
      }
      view->dims[d] = 1;
      view->strides[d] = in_strides[d];
      view->offset += idx * in_strides[d];
      ++d;
      continue;
    }
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_begin) {
      if (masked) return (stride > 0) == is_begin ? lo : hi;
      if (x < 0) x += dim;
      return std::clamp(x, lo, hi);
    };
    // With a negative stride the range runs from hi down to lo, so a masked
    // begin is hi and a masked end is lo.
    const int64_t b = canonical(spec.begin[i], bit(spec.begin_mask, i), true);
    const int64_t e = canonical(spec.end[i], bit(spec.end_mask, i), false);
    // ceil(|e - b| / |stride|), without forming stride - 1 or -stride,
    // which overflow for extreme strides.
    const uint64_t step = stride > 0 ? static_cast<uint64_t>(stride) : 0 - static_cast<uint64_t>(stride);
    int64_t len = 0;
    if (stride > 0 && e > b) len = static_cast<int64_t>(static_cast<uint64_t>(e - b - 1) / step) + 1;
    if (stride < 0 && b > e) len = static_cast<int64_t>(static_cast<uint64_t>(b - e - 1) / step) + 1;
    view->dims[d] = len;
    // With one element the stride is never applied; otherwise |stride| <
    // dim, so the product stays within the tensor (Note [Shape limits]).
    view->strides[d] = len > 1 ? stride * in_strides[d] : in_strides[d];
    if (len > 0) view->offset += b * in_strides[d];
    out.AddDim(len);
    ++d;
  }
  while (d < rank) full_dim();  // the implicit trailing ellipsis
  // A dim of length 0 reads nothing; keep the offset in range regardless.
  for (int k = 0; k < rank; ++k) {
    if (view->dims[k] == 0) view->offset = 0;
  }
  *final_shape = std::move(out);
  return Status::OK();
}

Status ReverseView(const Shape& in, const std::vector<int64_t>& axis, StridedView* view) {
  ViewOfWholeTensor(in, view);
  std::vector<bool> seen(in.rank(), false);
  for (int64_t a : axis) {
    int ax;
    EMBER_RETURN_IF_ERROR(NormalizeAxis(a, in.rank(), "axis", &ax));
    if (seen[ax]) return InvalidArgument("axis " + IntListToString(axis) + " has a duplicate dimension " + Str(ax));
    seen[ax] = true;
  }
  bool empty = in.NumElements() == 0;
  for (int i = 0; i < in.rank(); ++i) {
    if (!seen[i]) continue;
    if (!empty) view->offset += (in.dim(i) - 1) * view->strides[i];
    view->strides[i] = -view->strides[i];
  }
  return Status::OK();
}

Status BroadcastToView(const Shape& in, const std::vector<int64_t>& shape, StridedView* view) {
  const int rank = static_cast<int>(shape.size());
  auto fail = [&]() {
    return InvalidArgument("Unable to broadcast a tensor of shape " + in.ToString() + " to shape " +
                           IntListToString(shape));
  };
  Shape target;
  EMBER_RETURN_IF_ERROR(ShapeFromList(shape, "shape", &target));
  if (in.rank() > rank) return fail();
  const std::vector<int64_t> in_strides = ContiguousStrides(in);
  view->dims = shape;
  view->strides.assign(rank, 0);
  view->offset = 0;
  for (int i = 0; i < in.rank(); ++i) {
    const int o = i + rank - in.rank();
    if (in.dim(i) == shape[o]) {
      view->strides[o] = in.dim(i) == 1 ? 0 : in_strides[i];
    } else if (in.dim(i) != 1) {
      return fail();
    }
  }
  return Status::OK();
}

Status TileView(const Shape& in, const std::vector<int64_t>& multiples, StridedView* view,
                Shape* final_shape) {
  const int rank = in.rank();
  if (static_cast<int>(multiples.size()) != rank) {
    return InvalidArgument("multiples " + IntListToString(multiples) + " must have one entry per dimension of "
                           "the input, shape " + in.ToString());
  }
  const std::vector<int64_t> in_strides = ContiguousStrides(in);
  view->dims.clear();
  view->strides.clear();
  view->offset = 0;
  Shape out;
  for (int i = 0; i < rank; ++i) {
    if (multiples[i] < 0) {
      return InvalidArgument("multiples must be non-negative, got " + IntListToString(multiples));
    }
    view->dims.push_back(multiples[i]);
    view->strides.push_back(0);
    view->dims.push_back(in.dim(i));
    view->strides.push_back(in_strides[i]);
    int64_t tiled = Shape::kUnknownDim;
    if (in.dim(i) >= 0 && !CheckedMul(multiples[i], in.dim(i), &tiled)) {
      return InvalidArgument("tiling shape " + in.ToString() + " by " + IntListToString(multiples) +
                             " has too many elements");
    }
    out.AddDim(tiled);
  }
  *final_shape = std::move(out);
  return Status::OK();
}

Status RollShifts(const Shape& in, const std::vector<int64_t>& shift, const std::vector<int64_t>& axis,
                  std::vector<int64_t>* per_dim) {
  if (shift.size() != axis.size()) {
    return InvalidArgument("shift " + IntListToString(shift) + " and axis " + IntListToString(axis) +
                           " must have the same length");
  }
  per_dim->assign(in.rank(), 0);
  for (size_t i = 0; i < axis.size(); ++i) {
    int ax;
    EMBER_RETURN_IF_ERROR(NormalizeAxis(axis[i], in.rank(), "axis", &ax));
    const int64_t n = in.dim(ax);
    if (n <= 0) continue;
    (*per_dim)[ax] = (((*per_dim)[ax] + shift[i] % n) % n + n) % n;
  }
  return Status::OK();
}

Status ParsePad(const Shape& in, const std::vector<int64_t>& paddings, const std::string& mode,
                PadMode* pad_mode, Shape* out) {
  std::string upper = mode;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "CONSTANT") {
    *pad_mode = PadMode::kConstant;
  } else if (upper == "REFLECT") {
    *pad_mode = PadMode::kReflect;
  } else if (upper == "SYMMETRIC") {
    *pad_mode = PadMode::kSymmetric;
  } else {
    return InvalidArgument("mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got '" + mode + "'");
  }
  const int rank = in.rank();
  if (static_cast<int>(paddings.size()) != 2 * rank) {
    return InvalidArgument("paddings must have shape [" + Str(rank) + ", 2] for an input of shape " +
                           in.ToString() + ", got " + Str(paddings.size()) + " values");
  }
  Shape result;
  for (int i = 0; i < rank; ++i) {
    const int64_t before = paddings[2 * i], after = paddings[2 * i + 1], n = in.dim(i);
    if (before < 0 || after < 0) {
      return InvalidArgument("paddings must be non-negative, got " + IntListToString(paddings));
    }
    const int64_t limit = *pad_mode == PadMode::kReflect ? n - 1 : n;
    if (*pad_mode != PadMode::kConstant && (before > limit || after > limit)) {
      return InvalidArgument("paddings " + Str(before) + ", " + Str(after) + " of dimension " + Str(i) +
                             " must be at most " + Str(std::max<int64_t>(limit, 0)) + " in " + upper +
                             " mode for input shape " + in.ToString());
    }
    int64_t padded = Shape::kUnknownDim;
    if (n >= 0 && !(CheckedAdd(n, before, &padded) && CheckedAdd(padded, after, &padded))) {
      return InvalidArgument("padding dimension " + Str(i) + " of shape " + in.ToString() + " by " +
                             Str(before) + " and " + Str(after) + " overflows");
    }
    result.AddDim(padded);
  }
  *out = std::move(result);
  return Status::OK();
}

// --- Gather and scatter plans ------------------------------------------------

Status MakeGatherPlan(const Shape& params, const Shape& indices, std::optional<int64_t> axis_attr,
                      int64_t batch_dims, GatherPlan* plan) {
  if (batch_dims < 0) batch_dims += indices.rank();
  if (batch_dims < 0 || batch_dims > indices.rank()) {
    return InvalidArgument("batch_dims " + Str(batch_dims) + " is out of range for indices of rank " +
                           Str(indices.rank()));
  }
  if (params.rank() == 0) return InvalidArgument("params must be at least a vector, got a scalar");
  int axis;
  EMBER_RETURN_IF_ERROR(NormalizeAxis(axis_attr.value_or(batch_dims), params.rank(), "axis", &axis));
  if (batch_dims > axis) {
    return InvalidArgument("batch_dims (" + Str(batch_dims) + ") must be less than or equal to axis (" +
                           Str(axis) + ")");
  }
  if (!SamePrefix(params, indices, static_cast<int>(batch_dims))) {
    return InvalidArgument("params.shape[:" + Str(batch_dims) + "] " + Prefix(params, batch_dims).ToString() +
                           " must equal indices.shape[:" + Str(batch_dims) + "] " +
                           Prefix(indices, batch_dims).ToString());
  }
  *plan = GatherPlan();
  Shape out;
  for (int i = 0; i < axis; ++i) {
    out.AddDim(params.dim(i));
    (i < batch_dims ? plan->batch : plan->outer) *= params.dim(i);
  }
  for (int i = static_cast<int>(batch_dims); i < indices.rank(); ++i) {
    out.AddDim(indices.dim(i));
    plan->num_indices *= indices.dim(i);
  }
  for (int i = axis + 1; i < params.rank(); ++i) {
    out.AddDim(params.dim(i));
    plan->inner *= params.dim(i);
  }
  plan->axis_dim = params.dim(axis);
  plan->out = std::move(out);
  return Status::OK();
}

Status MakeGatherNdPlan(const Shape& params, const Shape& indices, int64_t batch_dims, GatherNdPlan* plan) {
  if (indices.rank() < 1) return InvalidArgument("indices must be at least a vector, got a scalar");
  if (batch_dims < 0 || batch_dims >= indices.rank() || batch_dims > params.rank()) {
    return InvalidArgument("batch_dims " + Str(batch_dims) + " must be in [0, " + Str(indices.rank() - 1) +
                           "] for indices of shape " + indices.ToString() + " and params of shape " +
                           params.ToString());
  }
  const int b = static_cast<int>(batch_dims);
  const int64_t k = indices.dim(indices.rank() - 1);
  if (k > params.rank() - b) {
    return InvalidArgument("indices.shape[-1] = " + Str(k) + " must be at most the rank of params (" +
                           Str(params.rank()) + ") minus batch_dims (" + Str(b) + ")");
  }
  if (!SamePrefix(params, indices, b)) {
    return InvalidArgument("params.shape[:" + Str(b) + "] " + Prefix(params, b).ToString() +
                           " must equal indices.shape[:" + Str(b) + "] " + Prefix(indices, b).ToString());
  }
  *plan = GatherNdPlan();
  plan->index_depth = k;
  Shape out;
  for (int i = 0; i < indices.rank() - 1; ++i) {
    out.AddDim(indices.dim(i));
    (i < b ? plan->batch : plan->num_indices) *= indices.dim(i);
  }
  for (int i = b; i < b + k; ++i) plan->indexed_dims.push_back(params.dim(i));
  for (int i = b + static_cast<int>(k); i < params.rank(); ++i) {
    out.AddDim(params.dim(i));
    plan->inner *= params.dim(i);
  }
  plan->out = std::move(out);
  return Status::OK();
}

Status MakeScatterNdPlan(const Shape& target, const Shape& indices, const Shape& updates, GatherNdPlan* plan) {
  if (indices.rank() < 1) return InvalidArgument("indices must be at least a vector, got a scalar");
  const int64_t k = indices.dim(indices.rank() - 1);
  if (k > target.rank()) {
    return InvalidArgument("indices.shape[-1] = " + Str(k) + " must be at most the rank of the output shape " +
                           target.ToString());
  }
  Shape expected;
  for (int i = 0; i < indices.rank() - 1; ++i) expected.AddDim(indices.dim(i));
  for (int i = static_cast<int>(k); i < target.rank(); ++i) expected.AddDim(target.dim(i));
  if (updates != expected) {
    return InvalidArgument("updates must have shape indices.shape[:-1] + shape[indices.shape[-1]:] = " +
                           expected.ToString() + ", got " + updates.ToString());
  }
  *plan = GatherNdPlan();
  plan->index_depth = k;
  for (int i = 0; i < indices.rank() - 1; ++i) plan->num_indices *= indices.dim(i);
  for (int i = 0; i < k; ++i) plan->indexed_dims.push_back(target.dim(i));
  for (int i = static_cast<int>(k); i < target.rank(); ++i) plan->inner *= target.dim(i);
  plan->out = target;
  return Status::OK();
}

Status RangeSize(double start, double limit, double delta, int64_t* size) {
  if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
    return InvalidArgument("start, limit and delta must be finite");
  }
  if (delta == 0) return InvalidArgument("Requires delta != 0");
  if (delta > 0 && start > limit) {
    return InvalidArgument("Requires start <= limit when delta > 0: " + std::to_string(start) + "/" +
                           std::to_string(limit));
  }
  if (delta < 0 && start < limit) {
    return InvalidArgument("Requires start >= limit when delta < 0: " + std::to_string(start) + "/" +
                           std::to_string(limit));
  }
  const double n = std::ceil(std::abs((limit - start) / delta));
  if (n > static_cast<double>(std::numeric_limits<int32_t>::max()) * 16) {
    return InvalidArgument("range has too many elements (" + std::to_string(n) + ")");
  }
  *size = static_cast<int64_t>(n);
  return Status::OK();
}

// --- Shape functions ---------------------------------------------------------

Status ExpandDims(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  int axis;
  EMBER_RETURN_IF_ERROR(InsertAxis(ctx.attr(0).as_int(), in.rank(), &axis));
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (i == axis) out.AddDim(1);
    out.AddDim(in.dim(i));
  }
  if (axis == in.rank()) out.AddDim(1);
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status Squeeze(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  std::vector<bool> drop(in.rank(), false);
  if (ctx.attr(0).is_none()) {
    for (int i = 0; i < in.rank(); ++i) drop[i] = in.dim(i) == 1;
  } else {
    for (int64_t a : ctx.attr(0).as_int_list()) {
      int ax;
      EMBER_RETURN_IF_ERROR(NormalizeAxis(a, in.rank(), "axis", &ax));
      if (in.dim(ax) != 1) {
        return InvalidArgument("Can not squeeze dim[" + Str(ax) + "], expected a dimension of 1, got " +
                               Str(in.dim(ax)) + " (input shape " + in.ToString() + ")");
      }
      drop[ax] = true;
    }
  }
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (!drop[i]) out.AddDim(in.dim(i));
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status Tile(ShapeContext& ctx) {
  StridedView view;
  Shape out;
  EMBER_RETURN_IF_ERROR(TileView(ctx.input_shape(0), ctx.attr(0).as_int_list(), &view, &out));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status Pad(ShapeContext& ctx) {
  PadMode mode;
  Shape out;
  EMBER_RETURN_IF_ERROR(
      ParsePad(ctx.input_shape(0), ctx.attr(0).as_int_list(), ctx.attr(1).as_string(), &mode, &out));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status BroadcastTo(ShapeContext& ctx) {
  StridedView view;
  EMBER_RETURN_IF_ERROR(BroadcastToView(ctx.input_shape(0), ctx.attr(0).as_int_list(), &view));
  ctx.set_output_shape(0, Shape(view.dims));
  return Status::OK();
}

Status Slice(ShapeContext& ctx) {
  StridedView view;
  EMBER_RETURN_IF_ERROR(
      SliceView(ctx.input_shape(0), ctx.attr(0).as_int_list(), ctx.attr(1).as_int_list(), &view));
  ctx.set_output_shape(0, Shape(view.dims));
  return Status::OK();
}

StridedSliceSpec StridedSliceSpecFromAttrs(const AttrList& a) {
  StridedSliceSpec spec;
  spec.begin = a[0].as_int_list();
  spec.end = a[1].as_int_list();
  if (!a[2].is_none()) spec.strides = a[2].as_int_list();
  spec.begin_mask = a[3].as_int();
  spec.end_mask = a[4].as_int();
  spec.ellipsis_mask = a[5].as_int();
  spec.new_axis_mask = a[6].as_int();
  spec.shrink_axis_mask = a[7].as_int();
  return spec;
}

Status StridedSlice(ShapeContext& ctx) {
  StridedView view;
  Shape out;
  EMBER_RETURN_IF_ERROR(
      StridedSliceView(ctx.input_shape(0), StridedSliceSpecFromAttrs(ctx.attrs()), &view, &out));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status Reverse(ShapeContext& ctx) {
  StridedView view;
  EMBER_RETURN_IF_ERROR(ReverseView(ctx.input_shape(0), ctx.attr(0).as_int_list(), &view));
  ctx.set_output_shape(0, ctx.input_shape(0));
  return Status::OK();
}

Status Roll(ShapeContext& ctx) {
  std::vector<int64_t> shifts;
  EMBER_RETURN_IF_ERROR(
      RollShifts(ctx.input_shape(0), ctx.attr(0).as_int_list(), ctx.attr(1).as_int_list(), &shifts));
  ctx.set_output_shape(0, ctx.input_shape(0));
  return Status::OK();
}

Status Gather(ShapeContext& ctx) {
  GatherPlan plan;
  std::optional<int64_t> axis;
  if (!ctx.attr(0).is_none()) axis = ctx.attr(0).as_int();
  EMBER_RETURN_IF_ERROR(
      MakeGatherPlan(ctx.input_shape(0), ctx.input_shape(1), axis, ctx.attr(1).as_int(), &plan));
  ctx.set_output_shape(0, std::move(plan.out));
  return Status::OK();
}

Status GatherNd(ShapeContext& ctx) {
  GatherNdPlan plan;
  EMBER_RETURN_IF_ERROR(MakeGatherNdPlan(ctx.input_shape(0), ctx.input_shape(1), ctx.attr(0).as_int(), &plan));
  ctx.set_output_shape(0, std::move(plan.out));
  return Status::OK();
}

Status ScatterNd(ShapeContext& ctx) {
  Shape shape;
  EMBER_RETURN_IF_ERROR(ShapeFromList(ctx.attr(0).as_int_list(), "shape", &shape));
  GatherNdPlan plan;
  EMBER_RETURN_IF_ERROR(MakeScatterNdPlan(shape, ctx.input_shape(0), ctx.input_shape(1), &plan));
  ctx.set_output_shape(0, std::move(plan.out));
  return Status::OK();
}

Status TensorScatterNdUpdate(ShapeContext& ctx) {
  GatherNdPlan plan;
  EMBER_RETURN_IF_ERROR(MakeScatterNdPlan(ctx.input_shape(0), ctx.input_shape(1), ctx.input_shape(2), &plan));
  ctx.set_output_shape(0, std::move(plan.out));
  return Status::OK();
}

Status OneHot(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const int64_t depth = ctx.attr(0).as_int();
  if (depth < 0) return InvalidArgument("depth must be non-negative, got " + Str(depth));
  for (int i : {1, 2}) {
    if (ctx.input_shape(i).rank() != 0) {
      return InvalidArgument(std::string(i == 1 ? "on_value" : "off_value") + " must be a scalar, got shape " +
                             ctx.input_shape(i).ToString());
    }
  }
  int64_t axis = ctx.attr(1).is_none() ? -1 : ctx.attr(1).as_int();
  if (axis < -1 || axis > in.rank()) {
    return InvalidArgument("axis " + Str(axis) + " must be -1 or in [0, " + Str(in.rank()) + "]");
  }
  if (axis == -1) axis = in.rank();
  Shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (i == axis) out.AddDim(depth);
    out.AddDim(in.dim(i));
  }
  if (axis == in.rank()) out.AddDim(depth);
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status ShapeVector(ShapeContext& ctx) {
  ctx.set_output_shape(0, Shape({static_cast<int64_t>(ctx.input_shape(0).rank())}));
  return Status::OK();
}

Status Scalar(ShapeContext& ctx) {
  ctx.set_output_shape(0, Shape());
  return Status::OK();
}

Status Range(ShapeContext& ctx) {
  int64_t n;
  EMBER_RETURN_IF_ERROR(RangeSize(ctx.attr(0).as_float(), ctx.attr(1).as_float(), ctx.attr(2).as_float(), &n));
  ctx.set_output_shape(0, Shape({n}));
  return Status::OK();
}

Status Linspace(ShapeContext& ctx) {
  Shape base;
  EMBER_RETURN_IF_ERROR(BroadcastShapes(ctx.input_shape(0), ctx.input_shape(1), &base));
  const int64_t num = ctx.attr(0).as_int();
  if (num < 0) return InvalidArgument("num must be non-negative, got " + Str(num));
  int axis;
  EMBER_RETURN_IF_ERROR(InsertAxis(ctx.attr(1).as_int(), base.rank(), &axis));
  Shape out;
  for (int i = 0; i < base.rank(); ++i) {
    if (i == axis) out.AddDim(num);
    out.AddDim(base.dim(i));
  }
  if (axis == base.rank()) out.AddDim(num);
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status Eye(ShapeContext& ctx) {
  const int64_t rows = ctx.attr(0).as_int();
  const int64_t cols = ctx.attr(1).is_none() ? rows : ctx.attr(1).as_int();
  if (rows < 0 || cols < 0) {
    return InvalidArgument("num_rows and num_columns must be non-negative, got " + Str(rows) + " and " +
                           Str(cols));
  }
  Shape out;
  if (!ctx.attr(2).is_none()) EMBER_RETURN_IF_ERROR(ShapeFromList(ctx.attr(2).as_int_list(), "batch_shape", &out));
  out.AddDim(rows);
  out.AddDim(cols);
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

// --- Ops over lists of tensors --------------------------------------------------

Status SplitSizes(const Shape& in, const std::vector<int64_t>& size_splits, int64_t axis_attr, int* axis,
                  std::vector<int64_t>* sizes) {
  if (in.rank() == 0) return InvalidArgument("Can't split a scalar");
  EMBER_RETURN_IF_ERROR(NormalizeAxis(axis_attr, in.rank(), "axis", axis));
  if (size_splits.empty()) return InvalidArgument("num_or_size_splits must not be empty");
  const int64_t dim = in.dim(*axis);
  int infer_at = -1;
  int64_t known = 0;
  for (size_t i = 0; i < size_splits.size(); ++i) {
    if (size_splits[i] == -1 && infer_at < 0) {
      infer_at = static_cast<int>(i);
    } else if (size_splits[i] < 0) {
      return InvalidArgument("size_splits " + IntListToString(size_splits) +
                             " may hold one -1 and otherwise only non-negative sizes");
    } else if (!CheckedAdd(known, size_splits[i], &known)) {
      return InvalidArgument("size_splits " + IntListToString(size_splits) + " sum past int64");
    }
  }
  *sizes = size_splits;
  if (infer_at >= 0 && known <= dim) {
    (*sizes)[infer_at] = dim - known;
  } else if (infer_at >= 0 || known != dim) {
    return InvalidArgument("size_splits " + IntListToString(size_splits) + " must sum to the size of dimension " +
                           Str(*axis) + " (" + Str(dim) + ") of the input, shape " + in.ToString());
  }
  return Status::OK();
}

Status Concat(ShapeContext& ctx) {
  const int first = ctx.arg_start(0), n = ctx.arg_size(0);
  if (n == 0) return InvalidArgument("values must not be empty");
  const Shape& s0 = ctx.input_shape(first);
  if (s0.rank() == 0) return InvalidArgument("Can't concatenate scalars (use stack instead)");
  int axis;
  EMBER_RETURN_IF_ERROR(NormalizeAxis(ctx.attr(0).as_int(), s0.rank(), "axis", &axis));
  Shape out = s0;
  for (int i = 1; i < n; ++i) {
    const Shape& s = ctx.input_shape(first + i);
    bool ok = s.rank() == s0.rank();
    for (int d = 0; ok && d < s.rank(); ++d) ok = d == axis || s.dim(d) == s0.dim(d);
    if (!ok) {
      return InvalidArgument("values[0] has shape " + s0.ToString() + " and values[" + Str(i) + "] has shape " +
                             s.ToString() + ": all dimensions but axis " + Str(axis) + " must match");
    }
    int64_t sum = Shape::kUnknownDim;  // unknown if either part is (tracing)
    if (out.dim(axis) >= 0 && s.dim(axis) >= 0 && !CheckedAdd(out.dim(axis), s.dim(axis), &sum)) {
      return InvalidArgument("the concatenated dimension " + Str(axis) + " is too large");
    }
    out.set_dim(axis, sum);
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status Stack(ShapeContext& ctx) {
  const int first = ctx.arg_start(0), n = ctx.arg_size(0);
  if (n == 0) return InvalidArgument("values must not be empty");
  const Shape& s0 = ctx.input_shape(first);
  for (int i = 1; i < n; ++i) {
    if (ctx.input_shape(first + i) != s0) {
      return InvalidArgument("values[0] has shape " + s0.ToString() + " and values[" + Str(i) + "] has shape " +
                             ctx.input_shape(first + i).ToString() + ": all shapes must match");
    }
  }
  int axis;
  EMBER_RETURN_IF_ERROR(InsertAxis(ctx.attr(0).as_int(), s0.rank(), &axis));
  Shape out;
  for (int d = 0; d < s0.rank(); ++d) {
    if (d == axis) out.AddDim(n);
    out.AddDim(s0.dim(d));
  }
  if (axis == s0.rank()) out.AddDim(n);
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status Unstack(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  if (in.rank() == 0) return InvalidArgument("Can't unstack a scalar");
  int axis;
  EMBER_RETURN_IF_ERROR(NormalizeAxis(ctx.attr(1).as_int(), in.rank(), "axis", &axis));
  const int64_t n = in.dim(axis);
  if (!ctx.attr(0).is_none() && ctx.attr(0).as_int() != n) {
    return InvalidArgument("num " + Str(ctx.attr(0).as_int()) + " does not match dimension " + Str(axis) +
                           " of the input, shape " + in.ToString());
  }
  if (n < 0 || n > kMaxListOutputs) {
    return InvalidArgument("unstacking dimension " + Str(axis) + " of shape " + in.ToString() + " would give " +
                           (n < 0 ? std::string("an unknown number of") : Str(n)) + " outputs (at most " +
                           Str(kMaxListOutputs) + ")");
  }
  Shape part;
  for (int d = 0; d < in.rank(); ++d) {
    if (d != axis) part.AddDim(in.dim(d));
  }
  ctx.set_num_outputs(static_cast<int>(n));
  for (int i = 0; i < n; ++i) ctx.set_output_shape(i, part);
  return Status::OK();
}

Status Split(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  int axis;
  std::vector<int64_t> sizes;
  EMBER_RETURN_IF_ERROR(SplitSizes(in, ctx.attr(0).as_int_list(), ctx.attr(1).as_int(), &axis, &sizes));
  ctx.set_num_outputs(static_cast<int>(sizes.size()));
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape part = in;
    part.set_dim(axis, sizes[i]);
    ctx.set_output_shape(static_cast<int>(i), std::move(part));
  }
  return Status::OK();
}

}  // namespace ember::shape_fns

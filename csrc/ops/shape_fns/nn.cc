// This file implements the neural-network shape functions (softmax,
// bias_add, conv2d, conv2d_transpose, pooling, layer normalization, the
// cross-entropy losses, attention) and the Window2D geometry.
#include "ops/shape_fns/nn.h"

#include <algorithm>
#include <string>

#include "core/checked_math.h"
#include "ops/kernel_plan.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

bool Known(int64_t d) { return d != Shape::kUnknownDim; }

// Normalizes an int axis against `rank` into [0, rank).
Status NormalizeAxis(int64_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("axis " + Str(axis) + " is out of range for rank " + Str(rank));
  }
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return Status::OK();
}

// Output size and padding of one spatial dim. `before`/`after` are inputs
// for EXPLICIT and outputs otherwise.
Status WindowedDim(int64_t in, int64_t k, int64_t stride, int64_t dilation, char mode,
                   const char* dim, bool pool, int64_t* before, int64_t* after, int64_t* out) {
  // Window sizes, strides, dilations and paddings come from the user: every
  // step is checked (Note [Shape limits]).
  const auto too_large = [&] {
    return InvalidArgument(std::string("the window of the ") + dim + " dim (size " + Str(k) + ", stride " +
                           Str(stride) + ", dilation " + Str(dilation) + ") is too large");
  };
  if (k < 1 || stride < 1 || dilation < 1) {
    return InvalidArgument(std::string("window size, stride and dilation of the ") + dim +
                           " dim must be positive, got " + Str(k) + ", " + Str(stride) + ", " + Str(dilation));
  }
  int64_t eff;
  if (!CheckedMul(k - 1, dilation, &eff) || !CheckedAdd(eff, 1, &eff)) return too_large();
  if (!Known(in)) {
    *out = Shape::kUnknownDim;
    if (mode != 'E') *before = *after = 0;
    return Status::OK();
  }
  if (mode == 'S') {
    *out = in == 0 ? 0 : (in - 1) / stride + 1;
    int64_t total;  // (out - 1) * stride + eff - in, at least 0
    if (!CheckedMul(std::max<int64_t>(*out - 1, 0), stride, &total) || !CheckedAdd(total, eff, &total)) {
      return too_large();
    }
    total = std::max<int64_t>(total - in, 0);
    *before = total / 2;
    *after = total - *before;
    return Status::OK();
  }
  if (mode == 'V') *before = *after = 0;
  if (pool && (*before >= k || *after >= k)) {
    return InvalidArgument(std::string("explicit padding of the ") + dim + " dim (" + Str(*before) +
                           ", " + Str(*after) + ") must be smaller than the window size " + Str(k));
  }
  int64_t padded;
  if (!CheckedAdd(in, *before, &padded) || !CheckedAdd(padded, *after, &padded)) return too_large();
  if (padded < eff) {
    return InvalidArgument(std::string("the ") + dim + " dim of the input (" + Str(in) +
                           (mode == 'E' ? " plus padding " + Str(*before) + " + " + Str(*after) : std::string()) +
                           ") is smaller than the effective window size " + Str(eff));
  }
  *out = (padded - eff) / stride + 1;
  return Status::OK();
}

Status ExpectRank(const Shape& s, int rank, const char* what) {
  if (s.rank() != rank) {
    return InvalidArgument(std::string(what) + " must be " + Str(rank) + "-D, got shape " +
                           s.ToString());
  }
  return Status::OK();
}

const std::vector<int64_t> kNoPaddings;

const std::vector<int64_t>& ListOrEmpty(const AttrValue& v) {
  return v.is_none() ? kNoPaddings : v.as_int_list();
}

}  // namespace

Shape Window2D::OutputShape(int64_t out_channels) const {
  return nchw ? Shape{batch, out_channels, out_h, out_w} : Shape{batch, out_h, out_w, out_channels};
}

Status ParseDataFormat2D(const std::string& format, bool* nchw) {
  if (format == "NHWC") {
    *nchw = false;
  } else if (format == "NCHW") {
    *nchw = true;
  } else {
    return InvalidArgument("data_format must be 'NHWC' or 'NCHW', got '" + format + "'");
  }
  return Status::OK();
}

Status SpatialPair(const std::vector<int64_t>& values, bool nchw, const char* what, int64_t* h,
                   int64_t* w) {
  if (values.size() == 1) {
    *h = *w = values[0];
  } else if (values.size() == 2) {
    *h = values[0];
    *w = values[1];
  } else if (values.size() == 4) {
    const int64_t n = values[0], c = values[nchw ? 1 : 3];
    *h = values[nchw ? 2 : 1];
    *w = values[nchw ? 3 : 2];
    if (n != 1 || c != 1) {
      return InvalidArgument(std::string(what) + " " + IntListToString(values) +
                             " must be 1 in the batch and channel dims");
    }
  } else {
    return InvalidArgument(std::string(what) + " must have 1, 2 or 4 elements, got " +
                           IntListToString(values));
  }
  if (*h <= 0 || *w <= 0) {
    return InvalidArgument(std::string(what) + " must be positive, got " + IntListToString(values));
  }
  return Status::OK();
}

Status MakeWindow2D(const Shape& input, bool nchw, int64_t k_h, int64_t k_w, int64_t stride_h,
                    int64_t stride_w, int64_t dilation_h, int64_t dilation_w,
                    const std::string& padding, const std::vector<int64_t>& explicit_paddings,
                    bool pool, Window2D* w) {
  EMBER_RETURN_IF_ERROR(ExpectRank(input, 4, "input"));
  char mode;
  if (padding == "SAME") {
    mode = 'S';
  } else if (padding == "VALID") {
    mode = 'V';
  } else if (padding == "EXPLICIT") {
    mode = 'E';
  } else {
    return InvalidArgument("padding must be 'SAME', 'VALID' or 'EXPLICIT', got '" + padding + "'");
  }
  if (mode == 'E') {
    const auto& p = explicit_paddings;
    if (p.size() != 8) {
      return InvalidArgument("explicit padding needs 8 values (4 dims x [before, after]), got " +
                             IntListToString(p));
    }
    const int c = nchw ? 1 : 3;
    if (p[0] != 0 || p[1] != 0 || p[2 * c] != 0 || p[2 * c + 1] != 0) {
      return InvalidArgument("explicit padding " + IntListToString(p) +
                             " must be 0 in the batch and channel dims");
    }
    if (*std::min_element(p.begin(), p.end()) < 0) {
      return InvalidArgument("explicit padding must be non-negative, got " + IntListToString(p));
    }
    const int h = nchw ? 2 : 1;
    w->pad_top = p[2 * h];
    w->pad_bottom = p[2 * h + 1];
    w->pad_left = p[2 * h + 2];
    w->pad_right = p[2 * h + 3];
  } else if (!explicit_paddings.empty()) {
    return InvalidArgument("explicit_paddings must be empty unless padding is 'EXPLICIT'");
  }
  w->nchw = nchw;
  w->batch = input.dim(0);
  w->channels = input.dim(nchw ? 1 : 3);
  w->in_h = input.dim(nchw ? 2 : 1);
  w->in_w = input.dim(nchw ? 3 : 2);
  w->k_h = k_h;
  w->k_w = k_w;
  w->stride_h = stride_h;
  w->stride_w = stride_w;
  w->dilation_h = dilation_h;
  w->dilation_w = dilation_w;
  EMBER_RETURN_IF_ERROR(WindowedDim(w->in_h, k_h, stride_h, dilation_h, mode, "height", pool,
                                    &w->pad_top, &w->pad_bottom, &w->out_h));
  return WindowedDim(w->in_w, k_w, stride_w, dilation_w, mode, "width", pool, &w->pad_left,
                     &w->pad_right, &w->out_w);
}

// Attr 0: axis (int). The output keeps input 0's shape.
Status Softmax(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  if (in.rank() < 1) return InvalidArgument("logits must have rank >= 1, got shape " + in.ToString());
  int axis;
  EMBER_RETURN_IF_ERROR(NormalizeAxis(ctx.attr(0).as_int(), in.rank(), &axis));
  ctx.set_output_shape(0, in);
  return Status::OK();
}

// Attr 0: data_format (None, "N...C"/"NHWC"... = last dim, "NC..."/"NCHW" = dim 1).
Status BiasAdd(ShapeContext& ctx) {
  const Shape& value = ctx.input_shape(0);
  const Shape& bias = ctx.input_shape(1);
  bool channels_first = false;
  if (!ctx.attr(0).is_none()) {
    const std::string& f = ctx.attr(0).as_string();
    if (f.size() >= 2 && f.substr(0, 2) == "NC") {
      channels_first = true;
    } else if (f.size() < 2 || f[0] != 'N' || f.back() != 'C') {
      return InvalidArgument("data_format must be like 'NHWC' or 'NCHW', got '" + f + "'");
    }
  }
  if (value.rank() < 2) {
    return InvalidArgument("value must be at least 2-D, got shape " + value.ToString());
  }
  EMBER_RETURN_IF_ERROR(ExpectRank(bias, 1, "bias"));
  const int64_t c = value.dim(channels_first ? 1 : value.rank() - 1);
  if (Known(c) && Known(bias.dim(0)) && c != bias.dim(0)) {
    return InvalidArgument("bias " + bias.ToString() + " must match the channel dim " + Str(c) +
                           " of value " + value.ToString());
  }
  ctx.set_output_shape(0, value);
  return Status::OK();
}

// Attrs: 0 strides, 1 padding, 2 data_format, 3 dilations (optional),
// 4 explicit_paddings. Filters [k_h, k_w, in_channels / groups, out_channels].
namespace {

// conv2d's output shape for `input` and `filters`; `attrs` from `first`
// on are strides, padding, data_format, dilations (optional),
// explicit_paddings (conv2d's order; the backprop ops put theirs after
// one leading attr).
Status Conv2dOutput(const Shape& input, const Shape& filters, const AttrList& attrs, size_t first, Shape* out,
                    Window2D* window = nullptr) {
  bool nchw;
  EMBER_RETURN_IF_ERROR(ParseDataFormat2D(attrs[first + 2].as_string(), &nchw));
  EMBER_RETURN_IF_ERROR(ExpectRank(input, 4, "input"));
  EMBER_RETURN_IF_ERROR(ExpectRank(filters, 4, "filters"));
  if (filters.dim(0) < 1 || filters.dim(1) < 1) {
    return InvalidArgument("filters must have positive spatial dims, got " + filters.ToString());
  }
  int64_t sh, sw, dh = 1, dw = 1;
  EMBER_RETURN_IF_ERROR(SpatialPair(attrs[first].as_int_list(), nchw, "strides", &sh, &sw));
  if (!attrs[first + 3].is_none()) {
    EMBER_RETURN_IF_ERROR(SpatialPair(attrs[first + 3].as_int_list(), nchw, "dilations", &dh, &dw));
  }
  const int64_t in_c = input.dim(nchw ? 1 : 3);
  const int64_t f_in = filters.dim(2), out_c = filters.dim(3);
  if (Known(in_c) && Known(f_in)) {
    if (f_in <= 0 || in_c % f_in != 0) {
      return InvalidArgument("input depth " + Str(in_c) + " is not a multiple of the filters' input depth " +
                             Str(f_in) + " (input " + input.ToString() + ", filters " + filters.ToString() + ")");
    }
    if (in_c == 0) return InvalidArgument("input depth must be positive, got input " + input.ToString());
    if (Known(out_c) && out_c % (in_c / f_in) != 0) {
      return InvalidArgument("output depth " + Str(out_c) + " is not a multiple of the number of groups " +
                             Str(in_c / f_in));
    }
  }
  Window2D w;
  EMBER_RETURN_IF_ERROR(MakeWindow2D(input, nchw, filters.dim(0), filters.dim(1), sh, sw, dh, dw,
                                     attrs[first + 1].as_string(), ListOrEmpty(attrs[first + 4]), false, &w));
  *out = w.OutputShape(out_c);
  if (window != nullptr) *window = w;
  return Status::OK();
}

// Shape from a list(int) attr that must have `rank` non-negative entries.
Status ShapeAttr(const AttrValue& value, int rank, const char* what, Shape* out) {
  const std::vector<int64_t>& dims = value.as_int_list();
  if (static_cast<int>(dims.size()) != rank) {
    return InvalidArgument(std::string(what) + " must have " + Str(rank) + " entries, got " + Str(dims.size()));
  }
  Shape shape;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument(std::string(what) + " has a negative dim: " + Str(d));
    shape.AddDim(d);
  }
  EMBER_RETURN_IF_ERROR(ValidateShape(shape, 1, /*allow_unknown=*/false));
  *out = std::move(shape);
  return Status::OK();
}

Status ExpectShape(const Shape& got, const Shape& want, const char* what) {
  if (got.IsFullyKnown() && want.IsFullyKnown() && got != want) {
    return InvalidArgument(std::string(what) + " has shape " + got.ToString() + " but the forward op's output is " +
                           want.ToString());
  }
  return Status::OK();
}

}  // namespace

Status Conv2d(ShapeContext& ctx) {
  Shape out;
  Window2D window;
  EMBER_RETURN_IF_ERROR(Conv2dOutput(ctx.input_shape(0), ctx.input_shape(1), ctx.attrs(), 0, &out, &window));
  // Note [Kernel plans]: the window, padding resolved, for the kernel.
  if (WantsReusedPlan(ctx) && ctx.input_shape(0).IsFullyKnown() && ctx.input_shape(1).IsFullyKnown()) {
    LeavePlan(ctx, window);
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

// Inputs: the conv's input and the gradient of its output; attrs: 0
// filter_sizes, then conv2d's. The output is the filters' gradient.
Status Conv2dBackpropFilter(ShapeContext& ctx) {
  Shape filters, forward;
  EMBER_RETURN_IF_ERROR(ShapeAttr(ctx.attr(0), 4, "filter_sizes", &filters));
  EMBER_RETURN_IF_ERROR(Conv2dOutput(ctx.input_shape(0), filters, ctx.attrs(), 1, &forward));
  EMBER_RETURN_IF_ERROR(ExpectShape(ctx.input_shape(1), forward, "out_backprop"));
  ctx.set_output_shape(0, std::move(filters));
  return Status::OK();
}

// Attrs: 0 output_shape, 1 strides, 2 padding, 3 data_format, 4 dilations
// (optional), 5 explicit_paddings. Filters [k_h, k_w, out_channels,
// in_channels]; the forward conv2d of output_shape must give the input's
// spatial dims.
Status Conv2dTranspose(ShapeContext& ctx) {
  const Shape& input = ctx.input_shape(0);
  const Shape& filters = ctx.input_shape(1);
  const std::vector<int64_t>& out_dims = ctx.attr(0).as_int_list();
  bool nchw;
  EMBER_RETURN_IF_ERROR(ParseDataFormat2D(ctx.attr(3).as_string(), &nchw));
  EMBER_RETURN_IF_ERROR(ExpectRank(input, 4, "input"));
  EMBER_RETURN_IF_ERROR(ExpectRank(filters, 4, "filters"));
  if (out_dims.size() != 4 || *std::min_element(out_dims.begin(), out_dims.end()) < 0) {
    return InvalidArgument("output_shape must be 4 non-negative ints, got " + IntListToString(out_dims));
  }
  const Shape out(out_dims);
  if (filters.dim(0) < 1 || filters.dim(1) < 1) {
    return InvalidArgument("filters must have positive spatial dims, got " + filters.ToString());
  }
  int64_t sh, sw, dh = 1, dw = 1;
  EMBER_RETURN_IF_ERROR(SpatialPair(ctx.attr(1).as_int_list(), nchw, "strides", &sh, &sw));
  if (!ctx.attr(4).is_none()) {
    EMBER_RETURN_IF_ERROR(SpatialPair(ctx.attr(4).as_int_list(), nchw, "dilations", &dh, &dw));
  }
  const int c = nchw ? 1 : 3;
  if (out.dim(c) != filters.dim(2) || input.dim(c) != filters.dim(3) || input.dim(0) != out.dim(0)) {
    return InvalidArgument("input " + input.ToString() + ", filters " + filters.ToString() +
                           " and output_shape " + out.ToString() +
                           " disagree (filters are [height, width, output depth, input depth])");
  }
  Window2D w;
  EMBER_RETURN_IF_ERROR(MakeWindow2D(out, nchw, filters.dim(0), filters.dim(1), sh, sw, dh, dw,
                                     ctx.attr(2).as_string(), ListOrEmpty(ctx.attr(5)), false, &w));
  if (w.out_h != input.dim(nchw ? 2 : 1) || w.out_w != input.dim(nchw ? 3 : 2)) {
    return InvalidArgument("output_shape " + out.ToString() + " does not match input " + input.ToString() +
                           ": a conv2d of output_shape with these strides and padding gives spatial dims [" +
                           Str(w.out_h) + ", " + Str(w.out_w) + "]");
  }
  ctx.set_output_shape(0, out);
  return Status::OK();
}

namespace {

// Pool output for `input`; `attrs` from `first` on: ksize, strides,
// padding, data_format, explicit_paddings.
Status PoolOutput(const Shape& input, const AttrList& attrs, size_t first, Shape* out) {
  bool nchw;
  EMBER_RETURN_IF_ERROR(ParseDataFormat2D(attrs[first + 3].as_string(), &nchw));
  int64_t kh, kw, sh, sw;
  EMBER_RETURN_IF_ERROR(SpatialPair(attrs[first].as_int_list(), nchw, "ksize", &kh, &kw));
  EMBER_RETURN_IF_ERROR(SpatialPair(attrs[first + 1].as_int_list(), nchw, "strides", &sh, &sw));
  Window2D w;
  EMBER_RETURN_IF_ERROR(MakeWindow2D(input, nchw, kh, kw, sh, sw, 1, 1, attrs[first + 2].as_string(),
                                     ListOrEmpty(attrs[first + 4]), true, &w));
  *out = w.OutputShape(w.channels);
  return Status::OK();
}

}  // namespace

// Attrs: 0 ksize, 1 strides, 2 padding, 3 data_format, 4 explicit_paddings.
Status Pool2d(ShapeContext& ctx) {
  Shape out;
  EMBER_RETURN_IF_ERROR(PoolOutput(ctx.input_shape(0), ctx.attrs(), 0, &out));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

// max_pool2d's gradient: inputs the pool's input and the gradient of its
// output; pool2d's attrs. The output has the input's shape.
Status MaxPool2dGrad(ShapeContext& ctx) {
  Shape forward;
  EMBER_RETURN_IF_ERROR(PoolOutput(ctx.input_shape(0), ctx.attrs(), 0, &forward));
  EMBER_RETURN_IF_ERROR(ExpectShape(ctx.input_shape(1), forward, "grad"));
  ctx.set_output_shape(0, ctx.input_shape(0));
  return Status::OK();
}

// max_pool2d_grad's gradient: inputs the pool's input and a tensor of its
// shape; pool2d's attrs. The output has the pool's output shape.
Status MaxPool2dGradGrad(ShapeContext& ctx) {
  Shape forward;
  EMBER_RETURN_IF_ERROR(PoolOutput(ctx.input_shape(0), ctx.attrs(), 0, &forward));
  EMBER_RETURN_IF_ERROR(ExpectShape(ctx.input_shape(1), ctx.input_shape(0), "grad"));
  ctx.set_output_shape(0, std::move(forward));
  return Status::OK();
}

// avg_pool2d's gradient: input the gradient of the pool's output; attrs 0
// input_shape, then pool2d's. The output has input_shape.
Status AvgPool2dGrad(ShapeContext& ctx) {
  Shape input, forward;
  EMBER_RETURN_IF_ERROR(ShapeAttr(ctx.attr(0), 4, "input_shape", &input));
  EMBER_RETURN_IF_ERROR(PoolOutput(input, ctx.attrs(), 1, &forward));
  EMBER_RETURN_IF_ERROR(ExpectShape(ctx.input_shape(0), forward, "grad"));
  ctx.set_output_shape(0, std::move(input));
  return Status::OK();
}

// Inputs x, gamma, beta; attrs 0 axis (list(int)), 1 epsilon. gamma and
// beta have the shape of x's normalized dims (in axis order).
Status LayerNorm(ShapeContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  std::vector<bool> normalized;
  EMBER_RETURN_IF_ERROR(NormalizeAxes(ctx.attr(0), x.rank(), &normalized));
  Shape param;
  for (int i = 0; i < x.rank(); ++i) {
    if (normalized[i]) param.AddDim(x.dim(i));
  }
  if (param.rank() == 0) return InvalidArgument("axis must name at least one dim");
  for (int i = 1; i <= 2; ++i) {
    if (ctx.input_shape(i) != param) {
      return InvalidArgument(std::string(i == 1 ? "gamma " : "beta ") + ctx.input_shape(i).ToString() +
                             " must have the shape " + param.ToString() + " of the normalized dims of x " +
                             x.ToString());
    }
  }
  ctx.set_output_shape(0, x);
  return Status::OK();
}

// Inputs labels [batch...], logits [batch..., classes]; output [batch...].
Status SparseSoftmaxXent(ShapeContext& ctx) {
  const Shape& labels = ctx.input_shape(0);
  const Shape& logits = ctx.input_shape(1);
  if (logits.rank() < 1 || labels.rank() != logits.rank() - 1 ||
      Shape(logits.data(), logits.rank() - 1) != labels) {
    return InvalidArgument("labels " + labels.ToString() + " must have the shape of logits " +
                           logits.ToString() + " without its last dim");
  }
  ctx.set_output_shape(0, labels);
  return Status::OK();
}

// Inputs labels, logits of the same shape; attr 0 axis. The output drops axis.
Status SoftmaxXent(ShapeContext& ctx) {
  const Shape& labels = ctx.input_shape(0);
  const Shape& logits = ctx.input_shape(1);
  if (labels != logits) {
    return InvalidArgument("labels " + labels.ToString() + " and logits " + logits.ToString() +
                           " must have the same shape");
  }
  if (logits.rank() < 1) return InvalidArgument("logits must have rank >= 1, got shape " + logits.ToString());
  int axis;
  EMBER_RETURN_IF_ERROR(NormalizeAxis(ctx.attr(0).as_int(), logits.rank(), &axis));
  Shape out;
  for (int i = 0; i < logits.rank(); ++i) {
    if (i != axis) out.AddDim(logits.dim(i));
  }
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

// Inputs query [b..., lq, d], key [b..., lk, d], value [b..., lk, dv], mask
// (broadcastable to [b..., lq, lk]); attr 0 scale. Output [b..., lq, dv].
Status Attention(ShapeContext& ctx) {
  const Shape& q = ctx.input_shape(0);
  const Shape& k = ctx.input_shape(1);
  const Shape& v = ctx.input_shape(2);
  const Shape& mask = ctx.input_shape(3);
  if (q.rank() < 2 || k.rank() < 2 || v.rank() < 2) {
    return InvalidArgument("query, key and value must have rank >= 2, got " + q.ToString() + ", " +
                           k.ToString() + ", " + v.ToString());
  }
  const int64_t d = q.dim(q.rank() - 1), lk = k.dim(k.rank() - 2);
  if (k.dim(k.rank() - 1) != d || v.dim(v.rank() - 2) != lk) {
    return InvalidArgument("query " + q.ToString() + ", key " + k.ToString() + " and value " + v.ToString() +
                           " must be [..., Lq, D], [..., Lk, D] and [..., Lk, Dv]");
  }
  Shape batch, tmp;
  const Status bad = InvalidArgument("batch dims of query " + q.ToString() + ", key " + k.ToString() +
                                     " and value " + v.ToString() + " do not broadcast");
  if (!BroadcastShapes(Shape(q.data(), q.rank() - 2), Shape(k.data(), k.rank() - 2), &tmp).ok() ||
      !BroadcastShapes(tmp, Shape(v.data(), v.rank() - 2), &batch).ok()) {
    return bad;
  }
  Shape scores = batch;
  scores.AddDim(q.dim(q.rank() - 2));
  scores.AddDim(lk);
  if (!BroadcastShapes(mask, scores, &tmp).ok() || tmp != scores) {
    return InvalidArgument("mask " + mask.ToString() + " does not broadcast to the scores' shape " +
                           scores.ToString());
  }
  Shape out = batch;
  out.AddDim(q.dim(q.rank() - 2));
  out.AddDim(v.dim(v.rank() - 1));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns

// This file defines the shape functions of the segment, counting and
// searching ops (op_defs/segments.yaml).
#include <string>
#include <vector>

#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

bool Known(int64_t d) { return d != Shape::kUnknownDim; }

// num_segments rows of data's trailing dims after the first `id_rank`.
Status SegmentOutput(ShapeContext& ctx, int id_rank) {
  const Shape& data = ctx.input_shape(0);
  const int64_t num_segments = ctx.attr(0).as_int();
  if (num_segments < 0) {
    return InvalidArgument("num_segments must be >= 0, got " + std::to_string(num_segments));
  }
  std::vector<int64_t> dims = {num_segments};
  for (int i = id_rank; i < data.rank(); ++i) dims.push_back(data.dim(i));
  Shape out;
  EMBER_RETURN_IF_ERROR(ShapeFromList(dims, "output shape", &out));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace

// Sorted segments: ids are 1-D with one id per row of data.
Status SegmentReduce(ShapeContext& ctx) {
  const Shape& data = ctx.input_shape(0);
  const Shape& ids = ctx.input_shape(1);
  if (ids.rank() != 1) return InvalidArgument("segment_ids must be 1-D, got shape " + ids.ToString());
  if (data.rank() < 1) return InvalidArgument("data must have rank >= 1, got a scalar");
  if (Known(ids.dim(0)) && Known(data.dim(0)) && ids.dim(0) != data.dim(0)) {
    return InvalidArgument("segment_ids should be the same size as dimension 0 of data: segment_ids " +
                           ids.ToString() + " vs. data " + data.ToString());
  }
  return SegmentOutput(ctx, 1);
}

// Unsorted segments: ids' shape is a prefix of data's.
Status UnsortedSegmentReduce(ShapeContext& ctx) {
  const Shape& data = ctx.input_shape(0);
  const Shape& ids = ctx.input_shape(1);
  bool prefix = ids.rank() <= data.rank();
  for (int i = 0; prefix && i < ids.rank(); ++i) {
    prefix = !Known(ids.dim(i)) || !Known(data.dim(i)) || ids.dim(i) == data.dim(i);
  }
  if (!prefix) {
    return InvalidArgument("segment_ids.shape = " + ids.ToString() + " must be a prefix of data.shape = " +
                           data.ToString());
  }
  return SegmentOutput(ctx, ids.rank());
}

// input [rows, n], weights [rows, n] or empty; output [rows, size].
Status DenseBincount(ShapeContext& ctx) {
  const Shape& input = ctx.input_shape(0);
  const Shape& weights = ctx.input_shape(1);
  if (input.rank() != 2) return InvalidArgument("input must be 2-D, got shape " + input.ToString());
  const bool empty_weights = weights.rank() >= 1 && weights.dim(0) == 0;
  if (!empty_weights && weights != input) {
    return InvalidArgument("weights must have the input's shape " + input.ToString() + " or no elements, got " +
                           weights.ToString());
  }
  const int64_t size = ctx.attr(0).as_int();
  if (size < 0) return InvalidArgument("size must be >= 0, got " + std::to_string(size));
  Shape out;
  EMBER_RETURN_IF_ERROR(ShapeFromList({input.dim(0), size}, "output shape", &out));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status UniqueIndex(ShapeContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (x.rank() != 1) return InvalidArgument("x must be 1-D, got shape " + x.ToString());
  ctx.set_output_shape(0, x);
  return Status::OK();
}

// Both inputs are rows along their last dim; the row counts must agree.
Status Searchsorted(ShapeContext& ctx) {
  const Shape& seq = ctx.input_shape(0);
  const Shape& values = ctx.input_shape(1);
  const std::string& side = ctx.attr(0).as_string();
  if (side != "left" && side != "right") {
    return InvalidArgument("side must be 'left' or 'right', got '" + side + "'");
  }
  if (seq.rank() < 1 || values.rank() < 1) {
    return InvalidArgument("sorted_sequence and values must have rank >= 1, got " + seq.ToString() + " and " +
                           values.ToString());
  }
  int64_t seq_rows = 1, value_rows = 1;
  bool known = true;
  for (int i = 0; i + 1 < seq.rank(); ++i) {
    known = known && Known(seq.dim(i));
    if (known) seq_rows *= seq.dim(i);  // fits: a valid shape's element count fits int64
  }
  for (int i = 0; i + 1 < values.rank(); ++i) {
    known = known && Known(values.dim(i));
    if (known) value_rows *= values.dim(i);
  }
  if (known && seq_rows != value_rows) {
    return InvalidArgument("Leading dim_size of both tensors must match: sorted_sequence " + seq.ToString() +
                           " has " + std::to_string(seq_rows) + " rows, values " + values.ToString() + " has " +
                           std::to_string(value_rows));
  }
  ctx.set_output_shape(0, values);
  return Status::OK();
}

Status ReverseSequenceAxes(const Shape& input, const AttrValue& seq_attr, const AttrValue& batch_attr,
                           int* seq_axis, int* batch_axis) {
  const int rank = input.rank();
  if (seq_attr.is_none()) return InvalidArgument("seq_axis is required");
  int64_t seq = seq_attr.as_int();
  int64_t batch = batch_attr.is_none() ? 0 : batch_attr.as_int();
  if (seq < -rank || seq >= rank) {
    return InvalidArgument("seq_axis " + std::to_string(seq) + " is out of range for input " + input.ToString());
  }
  if (batch < -rank || batch >= rank) {
    return InvalidArgument("batch_axis " + std::to_string(batch) + " is out of range for input " +
                           input.ToString());
  }
  if (seq < 0) seq += rank;
  if (batch < 0) batch += rank;
  if (seq == batch) {
    return InvalidArgument("seq_axis and batch_axis must differ, both are " + std::to_string(seq));
  }
  *seq_axis = static_cast<int>(seq);
  *batch_axis = static_cast<int>(batch);
  return Status::OK();
}

Status ReverseSequence(ShapeContext& ctx) {
  const Shape& input = ctx.input_shape(0);
  const Shape& lengths = ctx.input_shape(1);
  int seq_axis = 0, batch_axis = 0;
  EMBER_RETURN_IF_ERROR(ReverseSequenceAxes(input, ctx.attr(0), ctx.attr(1), &seq_axis, &batch_axis));
  if (lengths.rank() != 1) return InvalidArgument("seq_lengths must be 1-D, got shape " + lengths.ToString());
  const int64_t batch = input.dim(batch_axis);
  if (Known(batch) && Known(lengths.dim(0)) && lengths.dim(0) != batch) {
    return InvalidArgument("seq_lengths has " + std::to_string(lengths.dim(0)) +
                           " entries, input.shape[batch_axis] = " + std::to_string(batch));
  }
  ctx.set_output_shape(0, input);
  return Status::OK();
}

Status HistogramFixedWidth(ShapeContext& ctx) {
  const Shape& range = ctx.input_shape(1);
  if (range.rank() != 1 || (Known(range.dim(0)) && range.dim(0) != 2)) {
    return InvalidArgument("value_range must have shape [2], got " + range.ToString());
  }
  const int64_t nbins = ctx.attr(0).as_int();
  if (nbins <= 0) return InvalidArgument("nbins should be a positive number, but got " + std::to_string(nbins));
  Shape out;
  EMBER_RETURN_IF_ERROR(ShapeFromList({nbins}, "output shape", &out));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns

// This file declares the index arithmetic shared by the movement shape
// functions (shape_fns/movement.cc) and their CPU kernels, so an op's output
// shape and the elements its kernel reads are computed by the same code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/attr_value.h"
#include "core/shape.h"
#include "core/status.h"

namespace ember::shape_fns {

// Note [Strided views]
// Most movement ops read their input through a strided view: output element
// (i_0, ..., i_{r-1}), in row-major order, is input element
// offset + sum_k i_k * strides[k]. Strides are in elements and may be 0
// (broadcast_to, tile) or negative (reverse, strided_slice with a negative
// step). `dims` may differ from the output's shape when the output is a
// reshape of the view (strided_slice's new and shrunk axes, tile's merged
// dims); the element order is the same.
struct StridedView {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

// slice(input, begin, size): size -1 means "to the end".
Status SliceView(const Shape& in, const std::vector<int64_t>& begin,
                 const std::vector<int64_t>& size, StridedView* view);

struct StridedSliceSpec {
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::optional<std::vector<int64_t>> strides;  // None: all 1
  int64_t begin_mask = 0;
  int64_t end_mask = 0;
  int64_t ellipsis_mask = 0;
  int64_t new_axis_mask = 0;
  int64_t shrink_axis_mask = 0;
};
// Reads strided_slice's attrs (begin, end, strides, then the five masks).
StridedSliceSpec StridedSliceSpecFromAttrs(const AttrList& attrs);
// TensorFlow's strided_slice; *final_shape drops shrunk axes and adds new ones.
Status StridedSliceView(const Shape& in, const StridedSliceSpec& spec, StridedView* view,
                        Shape* final_shape);

// reverse(tensor, axis): axes in [-rank, rank), no duplicates.
Status ReverseView(const Shape& in, const std::vector<int64_t>& axis, StridedView* view);

// broadcast_to(input, shape).
Status BroadcastToView(const Shape& in, const std::vector<int64_t>& shape, StridedView* view);

// tile(input, multiples): the view has dims [m0, d0, m1, d1, ...].
Status TileView(const Shape& in, const std::vector<int64_t>& multiples, StridedView* view,
                Shape* final_shape);

// Normalizes roll's shift per axis of `in` (shifts of repeated axes add up)
// into [0, dim).
Status RollShifts(const Shape& in, const std::vector<int64_t>& shift,
                  const std::vector<int64_t>& axis, std::vector<int64_t>* per_dim);

enum class PadMode { kConstant, kReflect, kSymmetric };
// Validates pad's flattened paddings ([before_0, after_0, before_1, ...])
// and mode ("CONSTANT", "REFLECT", "SYMMETRIC", any case).
Status ParsePad(const Shape& in, const std::vector<int64_t>& paddings, const std::string& mode,
                PadMode* pad_mode, Shape* out);

// gather(params, indices, axis, batch_dims), flattened to
// out[b, p, i, s] = params[b, p, indices[b, i], s].
struct GatherPlan {
  int64_t batch = 1;    // prod(params.shape[:batch_dims])
  int64_t outer = 1;    // prod(params.shape[batch_dims:axis])
  int64_t axis_dim = 0; // params.shape[axis]
  int64_t num_indices = 1;  // prod(indices.shape[batch_dims:])
  int64_t inner = 1;    // prod(params.shape[axis+1:])
  Shape out;
};
Status MakeGatherPlan(const Shape& params, const Shape& indices, std::optional<int64_t> axis,
                      int64_t batch_dims, GatherPlan* plan);

// gather_nd(params, indices, batch_dims): out[b, i, s] =
// params[b, indices[b, i, 0..k), s].
struct GatherNdPlan {
  int64_t batch = 1;        // prod(params.shape[:batch_dims])
  int64_t num_indices = 1;  // prod(indices.shape[batch_dims:-1])
  int64_t index_depth = 0;  // k = indices.shape[-1]
  int64_t inner = 1;        // prod(params.shape[batch_dims + k:])
  std::vector<int64_t> indexed_dims;  // params.shape[batch_dims:batch_dims + k]
  Shape out;
};
Status MakeGatherNdPlan(const Shape& params, const Shape& indices, int64_t batch_dims,
                        GatherNdPlan* plan);

// scatter_nd / tensor_scatter_nd_update: `indices` (k = last dim) picks
// slices of a tensor of shape `target`; `updates` must have shape
// indices.shape[:-1] + target[k:].
Status MakeScatterNdPlan(const Shape& target, const Shape& indices, const Shape& updates,
                         GatherNdPlan* plan);

// split(value, size_splits, axis): the normalized axis and the sizes along
// it (one -1 is inferred).
Status SplitSizes(const Shape& in, const std::vector<int64_t>& size_splits, int64_t axis, int* axis_out,
                  std::vector<int64_t>* sizes);

// Normalizes an axis in [-rank, rank) to [0, rank).
Status NormalizeAxis(int64_t axis, int rank, const char* what, int* out);

// Number of elements of range(start, limit, delta).
Status RangeSize(double start, double limit, double delta, int64_t* size);

// Normalizes an axis for inserting a dim into a rank-`rank` shape:
// [-rank-1, rank] -> [0, rank].
Status InsertAxis(int64_t axis, int rank, int* out);

// Renders the multi-dimensional position of flat index `flat` in an array
// of dims `dims` as "1, 2" (kernel error messages: "indices[1, 2] = 7 ...").
std::string IndexToString(const std::vector<int64_t>& dims, int64_t flat);

}  // namespace ember::shape_fns

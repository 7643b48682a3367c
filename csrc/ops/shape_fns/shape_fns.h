// This file declares the shared library of shape functions and the helpers
// (broadcasting, axis normalization) that kernels reuse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/attr_value.h"
#include "core/shape.h"
#include "core/status.h"
#include "ops/op_def.h"

namespace ember::shape_fns {

// Errors are InvalidArgument and name the shapes involved; the runtime
// prefixes the op name ("matmul: ...").

// Output 0 has input 0's shape (element-wise unary ops, cast, identity).
Status Unchanged(ShapeContext& ctx);
// identity_n: one output per (list) input, same shapes (lists.cc).
Status IdentityN(ShapeContext& ctx);
// pass_through: one output per list(any) input, same dtype and shape
// (print; lists.cc).
Status PassThrough(ShapeContext& ctx);
// call_function: the outputs of the graph registered under attr 0, for
// these argument shapes, with their dtypes (graph/call_function.cc).
Status CallFunction(ShapeContext& ctx);
// cond and while_loop: outputs from their branch / body graphs
// (graph/control_flow.cc).
Status Cond(ShapeContext& ctx);
Status WhileLoop(ShapeContext& ctx);
// fused_elementwise: one output per program output, all of the arguments'
// broadcast shape; each argument has that shape or one element
// (ops/fused_program.cc).
Status FusedElementwise(ShapeContext& ctx);
// add_n: one or more inputs of one shape (elementwise.cc).
Status AddN(ShapeContext& ctx);

// Output 0 is the NumPy broadcast of inputs 0 and 1.
Status BroadcastBinary(ShapeContext& ctx);

// Output 0 is the NumPy broadcast of every input (where, clip_by_value).
Status BroadcastAll(ShapeContext& ctx);

// Batched matrix product. Attrs: 0 transpose_a, 1 transpose_b (bool).
// Both inputs need rank >= 2; batch dims broadcast.
Status Matmul(ShapeContext& ctx);
// fused_matmul: b a matrix, a a matrix or (without transpose_a) a batch
// of them, bias [N]. Attrs: transpose_a, transpose_b, activation (none,
// relu, gelu_approximate).
Status FusedMatmul(ShapeContext& ctx);
// tensordot. Attr 0: axes ([N] = last N of a with first N of b, or a's axes
// followed by as many of b's). TensordotAxes validates and splits them.
Status Tensordot(ShapeContext& ctx);
Status TensordotAxes(const Shape& a, const Shape& b, const std::vector<int64_t>& axes,
                     std::vector<int>* a_axes, std::vector<int>* b_axes);
// einsum (einsum.cc; the parsed equation in einsum.h). Attr 0: equation.
Status Einsum(ShapeContext& ctx);
// linalg.norm. Attrs: 0 ord (string), 1 axis (optional list(int), <= 2), 2 keepdims.
Status Norm(ShapeContext& ctx);
// Decompositions and solvers (matrix.cc): the last two dims are matrices.
// square_matrix: input [..., M, M], output the same (inverse, cholesky).
Status SquareMatrix(ShapeContext& ctx);
// matrix_batch: input [..., M, M]; every output is the batch [...] (det, slogdet).
Status MatrixBatch(ShapeContext& ctx);
// matrix_solve: matrix [..., M, M], rhs [..., M, K] with equal batches -> [..., M, K].
Status MatrixSolve(ShapeContext& ctx);
// triangular_solve: as matrix_solve, with the batch dims broadcast. Attrs: lower, adjoint.
Status TriangularSolve(ShapeContext& ctx);
// matrix_solve_ls: matrix [..., M, N], rhs [..., M, K] -> [..., N, K]. Attrs: l2_regularizer, fast.
Status MatrixSolveLs(ShapeContext& ctx);
// qr: [..., M, N] -> q, r. Attr 0: full_matrices.
Status Qr(ShapeContext& ctx);
// svd: [..., M, N] -> s, u, v. Attrs: 0 compute_uv, 1 full_matrices.
Status Svd(ShapeContext& ctx);
// self_adjoint_eig: [..., M, M] -> e [..., M], v [..., M, M]. Attr 0: compute_v.
Status SelfAdjointEig(ShapeContext& ctx);

// Reductions. Attrs: 0 axis (None = all axes, [] = none), 1 keepdims.
Status Reduce(ShapeContext& ctx);
// argmax/argmin. Attrs: 0 axis (optional int; None = 0), 1 output_type.
Status ArgReduce(ShapeContext& ctx);
// cumsum/cumprod: output 0 has input 0's shape. Attr 0: axis (int).
Status Scan(ShapeContext& ctx);
// sort/argsort (sorting.cc). Attrs: 0 axis (int), 1 direction (string).
Status Sort(ShapeContext& ctx);
// top_k: outputs 0 and 1 are input.shape[:-1] + [k]. Attrs: 0 k, 1 sorted.
Status TopK(ShapeContext& ctx);

// Attr 0: the new shape, with at most one -1 to infer.
Status Reshape(ShapeContext& ctx);

// Attr 0: the permutation (None = reverse the dims).
Status Transpose(ShapeContext& ctx);

// Output 0's shape is attr 0 (list(int), no negative dims): zeros, ones, fill.
Status ShapeFromAttr(ShapeContext& ctx);
// Stateless random ops (random.cc): input 0 the seed, shape [2]; attr 0
// the output shape (list(int), no negative dims).
Status StatelessRandom(ShapeContext& ctx);

// Neural-network ops (nn.cc; attrs documented there, geometry in nn.h).
Status Softmax(ShapeContext& ctx);            // attr axis; output = input 0
Status BiasAdd(ShapeContext& ctx);            // attr data_format (optional)
Status Conv2d(ShapeContext& ctx);             // strides, padding, data_format, dilations, explicit_paddings
Status Conv2dTranspose(ShapeContext& ctx);    // output_shape, then conv2d's attrs
Status Pool2d(ShapeContext& ctx);             // ksize, strides, padding, data_format, explicit_paddings
// The backward ops of conv2d and pooling (nn.cc): the gradients' shapes.
Status Conv2dBackpropFilter(ShapeContext& ctx);  // filter_sizes, then conv2d's attrs
Status MaxPool2dGrad(ShapeContext& ctx);         // pool2d's attrs
Status MaxPool2dGradGrad(ShapeContext& ctx);     // pool2d's attrs
Status AvgPool2dGrad(ShapeContext& ctx);         // input_shape, then pool2d's attrs
Status LayerNorm(ShapeContext& ctx);          // x, gamma, beta; axis, epsilon
Status SparseSoftmaxXent(ShapeContext& ctx);  // labels [b...], logits [b..., classes]
Status SoftmaxXent(ShapeContext& ctx);        // labels, logits; axis
Status Attention(ShapeContext& ctx);          // query, key, value, mask; scale

// Fourier transforms over the innermost dim (signal.cc; fft_length rules in signal.h).
Status Fft(ShapeContext& ctx);    // complex input of rank >= 1; output = input
Status Rfft(ShapeContext& ctx);   // attr fft_length (optional [N]); inner dim -> N / 2 + 1
Status Irfft(ShapeContext& ctx);  // attr fft_length (optional [N]); inner dim -> N

// Image resizing of [batch, height, width, channels] (image.cc).
Status ImageResize(ShapeContext& ctx);      // attr size [height, width], both positive
Status ImageResizeGrad(ShapeContext& ctx);  // attr original_size [height, width]

// Movement and indexing ops (movement.cc; index arithmetic in movement.h).
Status ExpandDims(ShapeContext& ctx);             // attr axis
Status Squeeze(ShapeContext& ctx);                // attr axis (optional list)
Status Tile(ShapeContext& ctx);                   // attr multiples
Status CollectiveReduce(ShapeContext& ctx);       // attrs communicator, reduction: unchanged, reduction checked
Status CollectiveGather(ShapeContext& ctx);       // attrs communicator, group_size: dim 0 times group_size
Status CollectiveScatter(ShapeContext& ctx);      // attrs communicator, group_size, reduction: dim 0 over group_size
Status CollectiveAllToAll(ShapeContext& ctx);     // attrs communicator, group_size: unchanged, dim 0 checked
Status Pad(ShapeContext& ctx);                    // attrs paddings (flat), mode
Status BroadcastTo(ShapeContext& ctx);            // attr shape
Status Slice(ShapeContext& ctx);                  // attrs begin, size
Status StridedSlice(ShapeContext& ctx);           // begin, end, strides, 5 masks
Status Reverse(ShapeContext& ctx);                // attr axis
Status Roll(ShapeContext& ctx);                   // attrs shift, axis
Status Gather(ShapeContext& ctx);                 // params, indices; axis, batch_dims
Status GatherNd(ShapeContext& ctx);               // params, indices; batch_dims
Status ScatterNd(ShapeContext& ctx);              // indices, updates; shape
Status TensorScatterNdUpdate(ShapeContext& ctx);  // tensor, indices, updates
Status OneHot(ShapeContext& ctx);                 // indices, on_value, off_value; depth, axis
Status ShapeVector(ShapeContext& ctx);            // [rank of input 0] (shape)
Status Scalar(ShapeContext& ctx);                 // [] (size, rank)
Status Range(ShapeContext& ctx);                  // attrs start, limit, delta
Status Linspace(ShapeContext& ctx);               // start, stop; num, axis
Status Eye(ShapeContext& ctx);                    // num_rows, num_columns, batch_shape
Status Concat(ShapeContext& ctx);                 // values (list); axis
Status Stack(ShapeContext& ctx);                  // values (list); axis
Status Unstack(ShapeContext& ctx);                // value; num, axis (list output)
Status Split(ShapeContext& ctx);                  // value; size_splits, axis (list output)

// Segments, counting and searching (segments.cc; op_defs/segments.yaml).
Status SegmentReduce(ShapeContext& ctx);          // data, ids (1-D); num_segments
Status UnsortedSegmentReduce(ShapeContext& ctx);  // data, ids (a prefix of data's shape); num_segments
Status DenseBincount(ShapeContext& ctx);          // input [rows, n], weights; size, binary_output
Status UniqueIndex(ShapeContext& ctx);            // x (1-D); out_idx
Status Searchsorted(ShapeContext& ctx);           // sorted_sequence, values; side, out_type
Status ReverseSequence(ShapeContext& ctx);        // input, seq_lengths; seq_axis, batch_axis
Status HistogramFixedWidth(ShapeContext& ctx);    // values, value_range; nbins, dtype
// reverse_sequence's axes, normalized and checked (seq_axis required,
// batch_axis None = 0); the kernel reuses it.
Status ReverseSequenceAxes(const Shape& input, const AttrValue& seq_axis, const AttrValue& batch_axis,
                           int* seq_axis_out, int* batch_axis_out);
// Random permutation and sampling (random.cc): input 1 is the seed ([2]).
Status RandomShuffle(ShapeContext& ctx);  // value's shape
Status Categorical(ShapeContext& ctx);    // logits [batch, classes]; num_samples -> [batch, num_samples]

// NumPy broadcasting of two shapes. An unknown dim (-1) against 1 or
// another unknown stays unknown; against a known d != 1 it becomes d
// (the only value that could succeed at run time).
Status BroadcastShapes(const Shape& a, const Shape& b, Shape* out);

// Sets (*reduced)[i] for every axis named by `axis` (None = all axes).
// Negative axes count from the end; duplicates and axes outside
// [-rank, rank) are errors.
Status NormalizeAxes(const std::optional<std::vector<int64_t>>& axis, int rank,
                     std::vector<bool>* reduced);
Status NormalizeAxes(const AttrValue& axis, int rank, std::vector<bool>* reduced);

// Validates `perm` as a permutation of [0, rank) (None = reversed dims) and
// writes it to *out.
Status NormalizePerm(const std::optional<std::vector<int64_t>>& perm, int rank,
                     std::vector<int>* out);

// Builds a shape from a list of dims given by the user (an attribute),
// checking Note [Shape limits]; errors name it `what`.
Status ShapeFromList(const std::vector<int64_t>& dims, const char* what, Shape* out);

// The most outputs a list-output op (unstack, split) may produce.
inline constexpr int64_t kMaxListOutputs = 1 << 20;

// Renders a list of ints as "[1, 2]" for messages.
std::string IntListToString(const std::vector<int64_t>& values);

// Optimizer updates (training.cc): with n outputs, inputs [0, n) are the
// state (the variable and its slots), input n the gradient, all of one
// shape, which every output gets; the remaining inputs are rank-0
// hyperparameters.
Status ApplyUpdate(ShapeContext& ctx);

}  // namespace ember::shape_fns

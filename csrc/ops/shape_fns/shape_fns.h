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

// Output 0 is the NumPy broadcast of inputs 0 and 1.
Status BroadcastBinary(ShapeContext& ctx);

// Batched matrix product. Attrs: 0 transpose_a, 1 transpose_b (bool).
// Both inputs need rank >= 2; batch dims broadcast.
Status Matmul(ShapeContext& ctx);

// Reductions. Attrs: 0 axis (None = all axes, [] = none), 1 keepdims.
Status Reduce(ShapeContext& ctx);

// Attr 0: the new shape, with at most one -1 to infer.
Status Reshape(ShapeContext& ctx);

// Attr 0: the permutation (None = reverse the dims).
Status Transpose(ShapeContext& ctx);

// Output 0's shape is attr 0 (list(int), no negative dims): zeros, ones, fill.
Status ShapeFromAttr(ShapeContext& ctx);

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

// Renders a list of ints as "[1, 2]" for messages.
std::string IntListToString(const std::vector<int64_t>& values);

}  // namespace ember::shape_fns

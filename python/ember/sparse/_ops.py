"""tf.sparse's common ops on ember.SparseTensor: to_dense, from_dense, add, reduce_sum, sparse_dense_matmul,
reorder, transpose."""

import numpy as np

from ember import _C
from ember._tensor import Tensor
from ember.sparse._sparse_tensor import SparseTensor
from ember import _decompositions, math as _math, _segments, _selection
from ember._generated import ops
from ember._strings import _dispatch


def _check(value, what):
    if not isinstance(value, SparseTensor):
        raise TypeError(f"{what}: expected a SparseTensor, got {type(value).__name__}")
    return value


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor: values at their indices, `default_value` (0) elsewhere."""
    del validate_indices, name
    sp = _check(sp_input, "sparse.to_dense")
    dims = sp._static_dims("sparse.to_dense")
    fill = ops.zeros(dims, dtype=sp.dtype) if default_value is None else ops.fill(
        dims, ops.cast(default_value, sp.dtype))
    if sp.indices.shape[0] == 0:
        return fill
    return ops.tensor_scatter_nd_update(fill, sp.indices, sp.values)


def from_dense(tensor, name=None):
    """The SparseTensor of `tensor`'s nonzero entries."""
    del name
    tensor = tensor if isinstance(tensor, Tensor) else _C.convert_to_tensor(tensor, None)
    indices = _selection.where(_dispatch.not_equal(tensor, ops.zeros([], dtype=tensor.dtype)))
    return SparseTensor(indices, ops.gather_nd(tensor, indices), list(tensor.shape))


def _linear(indices, dims):
    """Row-major positions of the coordinates (NumPy: the coordinates are data, not differentiated)."""
    strides = np.cumprod([1] + dims[::-1][:-1])[::-1].astype(np.int64)
    return indices.numpy().astype(np.int64) @ strides


def add(a, b, threshold=0):
    """``tf.sparse.add``: a SparseTensor plus a dense tensor is dense; two SparseTensors of one
    shape give a SparseTensor with the union of their coordinates (sums whose magnitude is
    below `threshold` are dropped)."""
    if not isinstance(a, SparseTensor):
        a, b = b, a
    a = _check(a, "sparse.add")
    if not isinstance(b, SparseTensor):
        return ops.add(to_dense(a), b)
    dims = a._static_dims("sparse.add")
    if dims != b._static_dims("sparse.add"):
        raise ValueError(f"sparse.add: dense shapes {dims} and {list(b.shape)} differ")
    positions = np.concatenate([_linear(a.indices, dims), _linear(b.indices, dims)])
    unique, segment = np.unique(positions, return_inverse=True)
    values = _segments.unsorted_segment_sum(_dispatch.concat([a.values, ops.cast(b.values, a.dtype)], 0),
                                           _C.convert_to_tensor(segment.astype(np.int32), None), len(unique))
    indices = np.stack(np.unravel_index(unique, dims), 1) if len(unique) else np.zeros((0, len(dims)), np.int64)
    if threshold:
        keep = np.abs(values.numpy()) >= threshold
        values = _selection.boolean_mask(values, keep)
        indices = indices[keep]
    return SparseTensor(indices, values, dims)


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The sum of the entries (missing ones count as 0) over `axis`, as a dense tensor."""
    del name
    if output_is_sparse:
        raise NotImplementedError("sparse.reduce_sum: output_is_sparse=True is not supported")
    return ops.reduce_sum(to_dense(_check(sp_input, "sparse.reduce_sum")), axis=axis,
                             keepdims=bool(keepdims))


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """A SparseTensor matrix times a dense matrix, touching only the stored entries:
    each row of the result sums values * rows of `b` (gather, then segment sum)."""
    del name
    sp = _check(sp_a, "sparse.sparse_dense_matmul")
    dims = sp._static_dims("sparse.sparse_dense_matmul")
    if len(dims) != 2:
        raise ValueError(f"sparse.sparse_dense_matmul: sp_a must be a matrix, got shape {dims}")
    b = b if isinstance(b, Tensor) else _C.convert_to_tensor(b, sp.dtype)
    if adjoint_b:
        b = _decompositions.adjoint(b) if b.dtype.is_complex else _dispatch.transpose(b)
    rows, cols = _dispatch.unstack(sp.indices, axis=1)
    values = sp.values
    n_rows = dims[0]
    if adjoint_a:
        rows, cols, n_rows = cols, rows, dims[1]
        values = _math.conj(values) if values.dtype.is_complex else values
    products = _dispatch.expand_dims(values, 1) * _dispatch.gather(b, cols)
    return _segments.unsorted_segment_sum(products, rows, n_rows)


def reorder(sp_input, name=None):
    """The same entries with the indices in row-major order, as TensorFlow's ops expect."""
    del name
    sp = _check(sp_input, "sparse.reorder")
    order = np.argsort(_linear(sp.indices, sp._static_dims("sparse.reorder")), kind="stable")
    if np.array_equal(order, np.arange(len(order))):
        return sp
    at = _C.convert_to_tensor(order.astype(np.int64), None)
    return SparseTensor(_dispatch.gather(sp.indices, at), _dispatch.gather(sp.values, at), sp.dense_shape)


def transpose(sp_input, perm=None, name=None):
    """The SparseTensor with its dims permuted (reversed by default), reordered."""
    del name
    sp = _check(sp_input, "sparse.transpose")
    dims = sp._static_dims("sparse.transpose")
    perm = list(range(len(dims)))[::-1] if perm is None else [int(p) for p in perm]
    if sorted(perm) != list(range(len(dims))):
        raise ValueError(f"sparse.transpose: perm {perm} is not a permutation of {len(dims)} dims")
    indices = _dispatch.gather(sp.indices, perm, axis=1)
    return reorder(SparseTensor(indices, sp.values, [dims[p] for p in perm]))

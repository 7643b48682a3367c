"""Helpers shared by the gradient functions."""

import numpy as np

from ember._generated import ops


def unbroadcast(grad, shape):
    """Sums ``grad`` down to ``shape``, undoing NumPy broadcasting."""
    shape = tuple(shape)
    gshape = tuple(grad.shape)
    if gshape == shape:
        return grad
    lead = len(gshape) - len(shape)
    axes = list(range(lead))
    for i, d in enumerate(shape):
        if d == 1 and gshape[lead + i] != 1:
            axes.append(lead + i)
    if axes:
        grad = ops.reduce_sum(grad, axis=axes, keepdims=False)
    return ops.reshape(grad, list(shape))


def normalized_axes(axis, rank):
    """The reduced axes as sorted non-negative ints (None: all)."""
    if axis is None:
        return list(range(rank))
    if isinstance(axis, int):
        axis = [axis]
    return sorted({a % rank if rank else 0 for a in axis})


def kept_shape(shape, axes):
    """``shape`` with the reduced ``axes`` set to 1 (the keepdims shape)."""
    return [1 if i in axes else d for i, d in enumerate(shape)]


def reduction_grad_broadcast(grad, input_shape, axes):
    """A reduction's incoming gradient broadcast back over the reduced axes."""
    grad = ops.reshape(grad, kept_shape(input_shape, axes))
    return ops.broadcast_to(grad, list(input_shape))


def keep_dims(value, input_shape, axes):
    """A reduction's output reshaped to the keepdims shape."""
    return ops.reshape(value, kept_shape(input_shape, axes))


def num_elements(shape):
    return int(np.prod(shape, dtype=np.int64))


def scatter_back(index_op, grad, input_shape):
    """The gradient of an op that only moves or picks elements of its input
    (gather, strided_slice, ...): ``index_op`` applied to the flat positions
    of the input says where each output element came from, and the
    incoming gradient is summed back to those positions."""
    size = num_elements(input_shape)
    positions = ops.reshape(ops.range(0, size, 1, dtype="int64"), list(input_shape))
    picked = index_op(positions)
    flat = ops.reshape(grad, [-1])
    summed = ops.scatter_nd(ops.reshape(picked, [-1, 1]), flat, [size])
    return ops.reshape(summed, list(input_shape))


def zeros_where_false(condition, grad):
    return ops.where(condition, grad, ops.zeros_like(grad))

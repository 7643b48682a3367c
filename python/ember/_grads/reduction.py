"""Gradients of the reductions and scans (op_defs/reduction.yaml)."""

import numpy as np

from ember._generated import ops
from ember._grads._util import keep_dims, normalized_axes, num_elements, reduction_grad_broadcast


def _axes(op):
    return normalized_axes(op.attrs["axis"], op.inputs[0].ndim)


def reduce_sum(op, grad):
    x = op.inputs[0]
    return reduction_grad_broadcast(grad, x.shape, _axes(op))


def reduce_mean(op, grad):
    x = op.inputs[0]
    axes = _axes(op)
    count = num_elements([x.shape[a] for a in axes])
    return ops.divide(reduction_grad_broadcast(grad, x.shape, axes), float(max(count, 1)))


def _extremum(op, grad):
    # The gradient is shared equally by the elements that reached the
    # extremum (TensorFlow's rule for ties).
    x = op.inputs[0]
    axes = _axes(op)
    y = keep_dims(op.outputs[0], x.shape, axes)
    hits = ops.cast(ops.equal(x, y), x.dtype)
    count = ops.reduce_sum(hits, axis=axes, keepdims=True)
    return ops.divide(ops.multiply(hits, reduction_grad_broadcast(grad, x.shape, axes)), count)


reduce_max = _extremum
reduce_min = _extremum


def reduce_prod(op, grad):
    # The product of all the other elements, from exclusive cumulative
    # products from both ends: no division, so zeros are handled.
    x = op.inputs[0]
    axes = _axes(op)
    rank = x.ndim
    kept = [a for a in range(rank) if a not in axes]
    perm = kept + axes
    moved = ops.transpose(x, perm=perm)
    moved_shape = list(moved.shape)
    other = num_elements(moved_shape[:len(kept)])
    n = num_elements(moved_shape[len(kept):])
    flat = ops.reshape(moved, [other, n])
    left = ops.cumprod(flat, axis=1, exclusive=True)
    right = ops.cumprod(flat, axis=1, exclusive=True, reverse=True)
    others = ops.reshape(ops.multiply(left, right), moved_shape)
    inverse = [int(i) for i in np.argsort(perm)]
    others = ops.transpose(others, perm=inverse)
    return ops.multiply(reduction_grad_broadcast(grad, x.shape, axes), others)


def reduce_logsumexp(op, grad):
    x = op.inputs[0]
    axes = _axes(op)
    y = keep_dims(op.outputs[0], x.shape, axes)
    return ops.multiply(reduction_grad_broadcast(grad, x.shape, axes), ops.exp(ops.subtract(x, y)))


def _centered(op):
    x = op.inputs[0]
    axes = _axes(op)
    count = float(max(num_elements([x.shape[a] for a in axes]), 1))
    mean = ops.reduce_mean(x, axis=axes, keepdims=True)
    return x, axes, count, ops.subtract(x, mean)


def reduce_variance(op, grad):
    x, axes, count, centered = _centered(op)
    return ops.multiply(reduction_grad_broadcast(grad, x.shape, axes), ops.multiply(centered, 2.0 / count))


def reduce_std(op, grad):
    # centered / (count * std); zero where std is 0 (every element equal:
    # the std stays 0 to first order), where TensorFlow gives NaN.
    x, axes, count, centered = _centered(op)
    std = keep_dims(op.outputs[0], x.shape, axes)
    nonzero = ops.greater(std, ops.zeros_like(std))
    safe_std = ops.where(nonzero, std, ops.ones_like(std))
    g = ops.divide(reduction_grad_broadcast(grad, x.shape, axes), ops.multiply(safe_std, count))
    return ops.multiply(ops.where(nonzero, g, ops.zeros_like(g)), centered)


def cumsum(op, grad):
    return ops.cumsum(grad, axis=op.attrs["axis"], exclusive=op.attrs["exclusive"],
                      reverse=not op.attrs["reverse"])


def cumprod(op, grad):
    # TensorFlow's formula: exact where x != 0 (a zero gives inf or NaN).
    x = op.inputs[0]
    y = op.outputs[0]
    summed = ops.cumsum(ops.multiply(grad, y), axis=op.attrs["axis"], exclusive=op.attrs["exclusive"],
                        reverse=not op.attrs["reverse"])
    return ops.divide(summed, x)

"""Gradients of sort and top_k (op_defs/sorting.yaml): each output element is
one input element, so the gradient goes back to where it came from."""

from ember._generated import ops
from ember._grads._util import scatter_back


def _take_along_axis(values, indices, axis):
    """values[..., indices[..., j], ...] along `axis` (NumPy's take_along_axis)."""
    rank = values.ndim
    axis %= rank
    perm = [a for a in range(rank) if a != axis] + [axis]
    inverse = [perm.index(a) for a in range(rank)]
    moved_values = ops.transpose(values, perm=perm)
    moved_indices = ops.transpose(indices, perm=perm)
    picked = ops.gather(moved_values, moved_indices, axis=rank - 1, batch_dims=rank - 1)
    return ops.transpose(picked, perm=inverse)


def sort(op, grad):
    x = op.inputs[0]
    if x.ndim == 0:
        return grad
    axis, direction = op.attrs["axis"], op.attrs["direction"]
    # argsort is stable, as sort is: the same permutation, ties included.
    order = ops.argsort(x, axis=axis, direction=direction, stable=True)
    return scatter_back(lambda p: _take_along_axis(p, order, axis), grad, x.shape)


def top_k(op, grad_values, grad_indices):
    x = op.inputs[0]
    indices = op.outputs[1]
    return scatter_back(lambda p: _take_along_axis(p, indices, -1), grad_values, x.shape)

"""ember.where, ember.boolean_mask and ember.gather: TensorFlow's selection ops over the generated ones."""

import operator

import numpy as np

from ember import _C
from ember._creation import convert_to_tensor, read_value
from ember._generated import ops
from ember._runtime import composite
from ember._tensor import Tensor


def _concrete_value(value, what):
    """The NumPy value of a tensor or array-like; a clear error for a traced (symbolic) tensor,
    whose value does not exist while ember.function traces."""
    value = read_value(value)
    if isinstance(value, Tensor):
        if _C._is_symbolic(value):
            raise NotImplementedError(f"{what}: the result's shape depends on the values of a traced tensor, "
                                      "which ember.function does not support; compute it outside the function "
                                      "or pass the value in as a constant")
        return value.numpy()
    return np.asarray(value)


def where(condition, x=None, y=None, name=None):
    """``tf.where``: with x and y, the elements of x where condition is true and of y elsewhere
    (broadcasting condition, x and y together). With condition alone, the coordinates of its
    true (nonzero) elements as an int64 tensor [num_true, rank], in row-major order.

    The one-argument form reads condition's value (it waits for it), since the result's shape
    depends on it; it is not supported on traced tensors inside ember.function.
    """
    del name
    if x is None and y is None:
        value = _concrete_value(condition, "where")
        return ops.reshape(np.argwhere(value).astype(np.int64), [-1, value.ndim])
    if x is None or y is None:
        raise ValueError("where: x and y must both be given, or neither")
    return ops.where(condition, x, y)


@composite
def boolean_mask(tensor, mask, axis=None, name=None):
    """``tf.boolean_mask``: the entries of tensor where the k-D boolean mask is true.

    mask applies to tensor's dims axis .. axis + k - 1 (axis defaults to 0), whose sizes must
    equal mask's shape; those dims become one dim of length mask.sum(). Reads mask's value
    (the result's shape depends on it), so mask cannot be a traced tensor inside ember.function.
    """
    del name
    tensor = convert_to_tensor(tensor)
    mask = _concrete_value(mask, "boolean_mask")
    if mask.dtype != np.bool_:
        raise TypeError(f"boolean_mask: mask must be bool, got {mask.dtype}")
    k = mask.ndim
    if k == 0:
        raise ValueError("boolean_mask: mask cannot be a scalar")
    axis = 0 if axis is None else operator.index(axis)
    rank = tensor.ndim
    if axis < 0:
        axis += rank
    if not 0 <= axis <= rank - k:
        raise ValueError(f"boolean_mask: axis {axis} and a mask of rank {k} do not fit a tensor of rank {rank}")
    dims = tuple(tensor.shape[axis:axis + k])
    if any(d is not None and d != m for d, m in zip(dims, mask.shape)):
        raise ValueError(f"boolean_mask: shapes {dims} and {mask.shape} are incompatible (tensor dims "
                         f"{axis}..{axis + k - 1} must match the mask)")
    shape = list(tensor.shape)
    flat = tensor if k == 1 else ops.reshape(tensor, shape[:axis] + [-1] + shape[axis + k:])
    return ops.gather(flat, np.flatnonzero(mask).astype(np.int64), axis=axis)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Gathers slices of params along axis at indices (``tf.gather``; see the op's docs).

    validate_indices is accepted for TensorFlow compatibility and ignored: indices are always
    checked (an index outside [0, params.shape[axis]) is an error).
    """
    del validate_indices, name
    return ops.gather(params, indices, axis, batch_dims)

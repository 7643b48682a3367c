"""ember.reshape, ember.stack and the other shape ops that accept string tensors.

Each tries the C++ op first, so numeric tensors take the generated binding
with one extra Python call and no other check; only when conversion fails
(TypeError: the C++ side has no string dtype) does it look for string
inputs and run the NumPy version in _shape_ops.py.
"""

import numpy as np

from ember import _selection
from ember._generated import ops as _ops
from ember.dtypes import as_dtype
from ember._strings import _shape_ops
from ember._strings._value import StringTensor


def _strings_or_none(value):
    return value if type(value) is StringTensor else (
        _shape_ops.as_strings(value, "") if _shape_ops.is_strings(value) else None)


def _any_strings(values):
    return isinstance(values, (list, tuple)) and any(_shape_ops.is_strings(v) for v in values)


def reshape(tensor, shape, name=None):
    """Reshapes ``tensor`` to ``shape`` (one dim may be -1); see ``ember.raw_ops.reshape``."""
    try:
        return _ops.reshape(tensor, shape)
    except TypeError:
        strings = _strings_or_none(tensor)
        if strings is None:
            raise
    return _shape_ops.reshape(strings, shape)


def expand_dims(input, axis, name=None):  # noqa: A002 - TensorFlow's name
    """Inserts a dimension of length 1 at ``axis``."""
    try:
        return _ops.expand_dims(input, axis)
    except TypeError:
        strings = _strings_or_none(input)
        if strings is None:
            raise
    return _shape_ops.expand_dims(strings, axis)


def squeeze(input, axis=None, name=None):  # noqa: A002
    """Removes dimensions of length 1 (all of them, or those in ``axis``)."""
    try:
        return _ops.squeeze(input, axis)
    except TypeError:
        strings = _strings_or_none(input)
        if strings is None:
            raise
    return _shape_ops.squeeze(strings, axis)


def transpose(a, perm=None, name=None):
    """Permutes the dimensions (reverses them without ``perm``)."""
    try:
        return _ops.transpose(a, perm)
    except TypeError:
        strings = _strings_or_none(a)
        if strings is None:
            raise
    return _shape_ops.transpose(strings, perm)


def tile(input, multiples, name=None):  # noqa: A002
    """Repeats the tensor ``multiples[i]`` times along dimension i."""
    try:
        return _ops.tile(input, multiples)
    except TypeError:
        strings = _strings_or_none(input)
        if strings is None:
            raise
    return _shape_ops.tile(strings, multiples)


def identity(input, name=None):  # noqa: A002
    """Returns a tensor with the same shape and contents as ``input``."""
    try:
        return _ops.identity(input)
    except TypeError:
        strings = _strings_or_none(input)
        if strings is None:
            raise
    return strings  # string tensors are immutable: the same value serves


def stack(values, axis=0, name=None):
    """Stacks tensors of one shape along a new dimension ``axis``."""
    try:
        return _ops.stack(values, axis)
    except TypeError:
        if not _any_strings(values):
            raise
    return _shape_ops.stack(values, axis)


def unstack(value, num=None, axis=0, name=None):
    """The slices of ``value`` along ``axis``, as a list."""
    try:
        return _ops.unstack(value, num, axis)
    except TypeError:
        strings = _strings_or_none(value)
        if strings is None:
            raise
    return _shape_ops.unstack(strings, axis)


def concat(values, axis, name=None):
    """Concatenates tensors along dimension ``axis``."""
    try:
        return _ops.concat(values, axis)
    except TypeError:
        if not _any_strings(values):
            raise
    return _shape_ops.concat(values, axis)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Gathers slices of ``params`` along ``axis`` at ``indices`` (``tf.gather``)."""
    try:
        return _selection.gather(params, indices, validate_indices, axis, batch_dims)
    except TypeError:
        strings = _strings_or_none(params)
        if strings is None:
            raise
    return _shape_ops.gather(strings, indices, axis, batch_dims)


def shape(input, out_type="int32", name=None):  # noqa: A002
    """The shape of ``input`` as a 1-D integer tensor."""
    try:
        return _ops.shape(input, out_type)
    except TypeError:
        strings = _strings_or_none(input)
        if strings is None:
            raise
    return _shape_ops.shape(strings, as_dtype(out_type))


def size(input, out_type="int32", name=None):  # noqa: A002
    """The number of elements of ``input`` as an integer scalar."""
    try:
        return _ops.size(input, out_type)
    except TypeError:
        strings = _strings_or_none(input)
        if strings is None:
            raise
    return _shape_ops.size(strings, as_dtype(out_type))


def rank(input, name=None):  # noqa: A002
    """The number of dimensions of ``input`` as an int32 scalar."""
    try:
        return _ops.rank(input)
    except TypeError:
        strings = _strings_or_none(input)
        if strings is None:
            raise
    return _shape_ops.rank(strings)


def equal(x, y, name=None):
    """x == y element-wise with broadcasting, as a bool tensor (string tensors too)."""
    try:
        return _ops.equal(x, y)
    except TypeError:
        if not (_shape_ops.is_strings(x) or _shape_ops.is_strings(y)):
            raise
    return _shape_ops.compare(x, y, np.equal, "equal")


def not_equal(x, y, name=None):
    """x != y element-wise with broadcasting, as a bool tensor (string tensors too)."""
    try:
        return _ops.not_equal(x, y)
    except TypeError:
        if not (_shape_ops.is_strings(x) or _shape_ops.is_strings(y)):
            raise
    return _shape_ops.compare(x, y, np.not_equal, "not_equal")

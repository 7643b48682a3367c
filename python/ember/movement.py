"""TensorFlow signatures of the movement ops that need Python around their op.

ember.range, ember.pad, ember.zeros_like and ember.ones_like replace the
generated bindings of the same ops (op_defs/movement.yaml): they infer a
dtype, flatten a nested argument or pick between two ops, then call one op.
"""

import builtins

import numpy as np

from ember._generated import ops as _ops
from ember.creation import convert_to_tensor
from ember.runtime import composite
from ember.dtypes import as_dtype, float32, float64, int32, int64
from ember.tensor import Tensor

# tf.range's inference order: the result is the highest dtype among the args.
_RANGE_ORDER = (int32, int64, float32, float64)


def _range_dtype(value):
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, (np.ndarray, np.generic)):
        return as_dtype(np.asarray(value).dtype)
    if isinstance(value, builtins.bool) or isinstance(value, int):
        return int32 if -2**31 <= value < 2**31 else int64
    return float32


def _range_scalar(value, what):
    if isinstance(value, Tensor):
        value = value.numpy()
    array = np.asarray(value)
    if array.ndim != 0:
        raise ValueError(f"range: {what} must be a scalar, got shape {array.shape}")
    if array.dtype.kind not in "biuf":
        raise TypeError(f"range: {what} must be a number, got {value!r}")
    return array.item()


def range(start, limit=None, delta=1, dtype=None, name=None):  # noqa: A001 - TensorFlow's name
    """Creates a sequence of numbers from start up to (not including) limit, by delta.

    ``range(n)`` counts from 0 to n. Without ``dtype`` the result has the
    highest dtype of the arguments in the order int32 < int64 < float32 <
    float64 (Python ints are int32, Python floats float32), as in tf.range.
    With an integer dtype, float arguments are truncated toward zero.
    """
    del name
    if limit is None:
        start, limit = 0, start
    args = (start, limit, delta)
    if dtype is None:
        found = [_range_dtype(v) for v in args]
        for d in found:
            if d not in _RANGE_ORDER:
                raise TypeError(f"range: dtype {d.name} is not supported; expected one of int32, int64, "
                                "float32, float64")
        dtype = max(found, key=_RANGE_ORDER.index)
    dtype = as_dtype(dtype)
    values = [_range_scalar(v, n) for v, n in zip(args, ("start", "limit", "delta"))]
    if dtype.is_integer:
        values = [int(v) for v in values]
    return _ops.range(*(float(v) for v in values), dtype=dtype)


@composite
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pads a tensor (``tf.pad``).

    ``paddings`` is an integer [rank, 2] list, array or tensor: row i is the
    number of values added before and after dimension i. ``mode`` is
    CONSTANT (fill with ``constant_values``), REFLECT (mirror without the
    edge) or SYMMETRIC (mirror with the edge), in any case.
    """
    del name
    if isinstance(paddings, Tensor):
        paddings = paddings.numpy()
    array = np.asarray(paddings)
    if array.size == 0:
        array = array.astype(np.int64)
    if array.dtype.kind not in "iu":
        raise TypeError(f"pad: paddings must be integers, got {paddings!r}")
    if array.size and (array.ndim != 2 or array.shape[1] != 2):
        raise ValueError(f"pad: paddings must have shape [rank, 2], got shape {list(array.shape)}")
    if isinstance(constant_values, Tensor):
        constant_values = constant_values.numpy()
    value = np.asarray(constant_values)
    if value.ndim != 0:
        raise ValueError(f"pad: constant_values must be a scalar, got shape {list(value.shape)}")
    return _ops.pad(tensor, [int(p) for p in array.reshape(-1)], mode, float(value.item()))


def _like(op_name, input, dtype, same_dtype_op, creation_op):
    if dtype is None:
        return same_dtype_op(input)
    try:
        dtype = as_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{op_name}: {e}") from None
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    if dtype == x.dtype:
        return same_dtype_op(x)
    return creation_op(list(x.shape), dtype=dtype)


def zeros_like(input, dtype=None, name=None):  # noqa: A002 - TensorFlow's parameter name
    """Creates a tensor of zeros with the shape of input and its dtype, or ``dtype``."""
    del name
    return _like("zeros_like", input, dtype, _ops.zeros_like, _ops.zeros)


def ones_like(input, dtype=None, name=None):  # noqa: A002 - TensorFlow's parameter name
    """Creates a tensor of ones with the shape of input and its dtype, or ``dtype``."""
    del name
    return _like("ones_like", input, dtype, _ops.ones_like, _ops.ones)


@composite
def split(value, num_or_size_splits, axis=0, num=None, name=None):
    """Splits a tensor into sub-tensors along ``axis`` (``tf.split``); returns a list.

    An int ``n`` splits into ``n`` equal parts (the dimension must be
    divisible by it); a list (array, 1-D tensor) gives the sizes, one of which
    may be -1 to take the rest. ``num`` is accepted for TensorFlow
    compatibility and, if given, must equal the number of parts.
    """
    del name
    splits = num_or_size_splits.numpy() if isinstance(num_or_size_splits, Tensor) else num_or_size_splits
    splits = np.asarray(splits)
    if splits.dtype.kind not in "iu" and splits.size:
        raise TypeError(f"split: num_or_size_splits must be an int or a list of ints, got {num_or_size_splits!r}")
    if splits.ndim == 0:
        n = int(splits)
        x = value if isinstance(value, Tensor) else convert_to_tensor(value)
        if x.ndim == 0:
            raise ValueError("split: Can't split a scalar")
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"split: axis {axis} is out of range for a tensor of rank {x.ndim}")
        dim = x.shape[axis]
        if n <= 0 or dim % n:
            raise ValueError(f"split: the size of dimension {axis} ({dim}) is not divisible by "
                             f"num_or_size_splits = {n}")
        sizes, value = [dim // n] * n, x
    else:
        sizes = [int(s) for s in splits.reshape(-1)]
    if num is not None and num != len(sizes):
        raise ValueError(f"split: num = {num} does not match the {len(sizes)} parts")
    return _ops.split(value, sizes, axis)

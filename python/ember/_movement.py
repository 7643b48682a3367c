"""TensorFlow signatures of the movement ops that need Python around their op.

ember.range, ember.pad, ember.zeros_like, ember.ones_like and ember.one_hot
replace the generated bindings of the same ops (op_defs/movement.yaml,
indexing.yaml): they infer a dtype, flatten a nested argument or pick
between two ops, then call one op.
"""

import builtins

import numpy as np

from ember._generated import ops as _ops
from ember._creation import convert_to_tensor
from ember._runtime import composite
from ember.dtypes import as_dtype, float32, float64, int32, int64
from ember._tensor import Tensor
from ember._strings import _dispatch

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


def _one_hot_value(value, dtype, what):
    """on_value / off_value as a scalar tensor: of ``dtype`` when given and the value converts to
    it exactly (a Python 1 with float32), else of the value's own dtype (TensorFlow's dtype_hint)."""
    if isinstance(value, Tensor):
        return value
    if dtype is not None and not isinstance(value, (np.ndarray, np.generic)):
        try:
            return convert_to_tensor(value, dtype=dtype)
        except (TypeError, ValueError, OverflowError):
            pass
    try:
        return convert_to_tensor(value)
    except TypeError as e:
        raise TypeError(f"one_hot: {what}: {e}") from None


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot tensor: on_value where the new depth dim (at axis, default last) equals the
    index, off_value elsewhere (``tf.one_hot``).

    The output dtype is that of on_value / off_value when given (int32 for Python ints, a
    tensor's or NumPy scalar's own dtype; they must agree with each other and with ``dtype``),
    else ``dtype``, else float32. The values reach the kernel as tensors, so int64 values
    beyond 2**53 stay exact.
    """
    del name
    if dtype is not None:
        dtype = as_dtype(dtype)
    given = {w: _one_hot_value(v, dtype, w) for w, v in (("on_value", on_value), ("off_value", off_value))
             if v is not None}
    for what, value in given.items():
        if dtype is not None and value.dtype != dtype:
            raise TypeError(f"one_hot: dtype {value.dtype.name} of {what} does not match dtype parameter "
                            f"{dtype.name}")
    if len(given) == 2 and given["on_value"].dtype != given["off_value"].dtype:
        raise TypeError(f"one_hot: dtype {given['on_value'].dtype.name} of on_value does not match dtype "
                        f"{given['off_value'].dtype.name} of off_value")
    if dtype is None:
        dtype = next(iter(given.values())).dtype if given else float32
    on = given.get("on_value")
    off = given.get("off_value")
    on = _ops.ones([], dtype=dtype) if on is None else on
    off = _ops.zeros([], dtype=dtype) if off is None else off
    if isinstance(indices, (Tensor, np.ndarray, np.generic)) and indices.dtype in _NARROW_INDEX_DTYPES:
        indices = _ops.cast(indices, int32)  # tf.one_hot takes uint8 and int8 indices; the kernel int32/int64
    return _ops.one_hot(indices, depth, on, off, axis)


_NARROW_INDEX_DTYPES = (np.dtype("uint8"), np.dtype("int8"), as_dtype("uint8"), as_dtype("int8"))


def linspace(start, stop, num, name=None, axis=0):
    """num evenly spaced values from start to stop inclusive, along axis (``tf.linspace``;
    TensorFlow's parameter order, with name before axis)."""
    del name
    return _ops.linspace(start, stop, num, axis)


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D tensors (``tf.meshgrid``, NumPy's ``meshgrid``).

    ``indexing='xy'`` (the default) gives grids of shape (len(y), len(x), ...),
    ``'ij'`` gives (len(x), len(y), ...). Returns a list of N tensors.
    """
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected keyword argument(s) {', '.join(sorted(kwargs))}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    tensors = [_dispatch.reshape(convert_to_tensor(a), [-1]) for a in args]
    if not tensors:
        return []
    sizes = [t.shape[0] for t in tensors]
    if indexing == "xy" and len(tensors) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, t in enumerate(tensors):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(tensors) > 1 else i
        shape = [1] * len(tensors)
        shape[axis] = -1
        grids.append(_ops.broadcast_to(_dispatch.reshape(t, shape), sizes))
    return grids

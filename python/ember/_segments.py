"""The public segment, bincount and unique functions over the ops of op_defs/segments.yaml.

Their results' sizes depend on values (the last sorted segment id, the largest value to
count, the number of distinct values). As ``where(cond)`` and ``boolean_mask`` do, these
functions read those values (waiting for them) and pass the size to the op as an attr, so
every op's output shape is known before its kernel runs. Inside ``ember.function`` such a
value cannot be a traced tensor; the unsorted_segment_* functions, whose size is the
num_segments argument, trace normally.
"""

import collections
import operator

import numpy as np

from ember import errors
from ember._creation import convert_to_tensor
from ember._generated import ops
from ember._selection import _concrete_value
from ember._runtime import composite
from ember._tensor import Tensor
from ember.dtypes import as_dtype, int32

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


# --- Sorted segments (tf.math.segment_*) ----------------------------------------


def _sorted_segment(op, what, data, segment_ids):
    """Checks sorted ids at the call (the kernel checks them again) and runs op with
    num_segments = last id + 1."""
    ids = _concrete_value(segment_ids, what)
    if ids.dtype.kind not in "iu":
        return op(data, segment_ids, 0)  # the op raises its dtype error
    if ids.ndim != 1:
        raise errors.InvalidArgumentError(f"{what}: segment_ids must be 1-D, got shape {list(ids.shape)}")
    if ids.size and ids.min() < 0:
        j = int(np.argmax(ids < 0))
        raise errors.InvalidArgumentError(f"{what}: segment ids must be >= 0, got segment_ids[{j}] = {ids[j]}")
    if ids.size > 1 and np.any(ids[1:] < ids[:-1]):
        j = int(np.argmax(ids[1:] < ids[:-1])) + 1
        raise errors.InvalidArgumentError(f"{what}: segment ids are not increasing: segment_ids[{j}] = {ids[j]} "
                                          f"< segment_ids[{j - 1}] = {ids[j - 1]}")
    num_segments = int(ids[-1]) + 1 if ids.size else 0
    return op(data, segment_ids if isinstance(segment_ids, Tensor) else ids, num_segments)


@composite
def segment_sum(data, segment_ids, name=None):
    """``tf.math.segment_sum``: sums of the rows of data per sorted segment id (see the op's docs)."""
    del name
    return _sorted_segment(ops.segment_sum, "segment_sum", data, segment_ids)


@composite
def segment_mean(data, segment_ids, name=None):
    """``tf.math.segment_mean``: means of the rows of data per sorted segment id; empty segments are 0."""
    del name
    return _sorted_segment(ops.segment_mean, "segment_mean", data, segment_ids)


@composite
def segment_max(data, segment_ids, name=None):
    """``tf.math.segment_max``: maxima of the rows of data per sorted segment id; empty segments are 0."""
    del name
    return _sorted_segment(ops.segment_max, "segment_max", data, segment_ids)


@composite
def segment_min(data, segment_ids, name=None):
    """``tf.math.segment_min``: minima of the rows of data per sorted segment id; empty segments are 0."""
    del name
    return _sorted_segment(ops.segment_min, "segment_min", data, segment_ids)


@composite
def segment_prod(data, segment_ids, name=None):
    """``tf.math.segment_prod``: products of the rows of data per sorted segment id; empty segments are 1."""
    del name
    return _sorted_segment(ops.segment_prod, "segment_prod", data, segment_ids)


# --- Unsorted segments (tf.math.unsorted_segment_*) -----------------------------


def _count(value, what, arg):
    """A non-negative Python int from an int, a NumPy integer or a scalar integer tensor."""
    if isinstance(value, Tensor) or isinstance(value, np.ndarray):
        value = _concrete_value(value, what)
        if value.ndim != 0 or value.dtype.kind not in "iu":
            raise TypeError(f"{what}: {arg} must be a scalar integer, got {value.dtype} of shape "
                            f"{list(value.shape)}")
        value = value[()]
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what}: {arg} must be an integer, got {type(value).__name__}") from None


def _unsorted(op, what):
    def fn(data, segment_ids, num_segments, name=None):
        del name
        return op(data, segment_ids, _count(num_segments, what, "num_segments"))
    fn.__name__ = fn.__qualname__ = what
    fn.__doc__ = (f"``tf.math.{what}``: see the op's docs. segment_ids has the shape of a prefix of "
                  "data's; negative ids are dropped and ids >= num_segments are an error.")
    return fn


unsorted_segment_sum = _unsorted(ops.unsorted_segment_sum, "unsorted_segment_sum")
unsorted_segment_mean = _unsorted(ops.unsorted_segment_mean, "unsorted_segment_mean")
unsorted_segment_sqrt_n = _unsorted(ops.unsorted_segment_sqrt_n, "unsorted_segment_sqrt_n")
unsorted_segment_max = _unsorted(ops.unsorted_segment_max, "unsorted_segment_max")
unsorted_segment_min = _unsorted(ops.unsorted_segment_min, "unsorted_segment_min")
unsorted_segment_prod = _unsorted(ops.unsorted_segment_prod, "unsorted_segment_prod")


# --- bincount ----------------------------------------------------------------------


@composite
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=int32, name=None, axis=None,
             binary_output=False):
    """``tf.math.bincount``: how often each value in [0, size) occurs in arr (or the sum of its
    weights), with size = max(arr) + 1, raised to minlength and capped at maxlength.

    axis None (or 0) counts the flattened arr into a 1-D result; axis -1 counts each row of a
    2-D arr into [rows, size]. The result has dtype ``dtype``, or weights' dtype when weights
    (arr's shape) are given. binary_output gives 1 for every present value, and cannot be
    combined with weights. Negative values are an InvalidArgumentError; values >= maxlength are
    ignored.
    """
    del name
    what = "bincount"
    if weights is not None and binary_output:
        raise ValueError(f"{what}: Arguments `binary_output` and `weights` are mutually exclusive. "
                         "Please specify only one.")
    values = _concrete_value(arr, what)
    if values.size == 0 and values.dtype.kind == "f":
        values = values.astype(np.int64)  # an empty list: no values, no dtype to object to
    if values.dtype.kind not in "iu":
        raise TypeError(f"{what}: arr must be int32 or int64, got {values.dtype}")
    values = values.astype(np.int64, copy=False)
    if axis is None or axis == 0:
        rows = values.reshape(1, -1)
    elif axis == -1:
        if values.ndim != 2:
            raise ValueError(f"{what}: axis=-1 needs a 2-D arr, got shape {list(values.shape)}")
        rows = values
    else:
        raise ValueError(f"{what}: Unsupported axis value {axis}. Only 0 and -1 are currently supported.")
    if values.size and values.min() < 0:
        raise errors.InvalidArgumentError(f"{what}: Input arr must be non-negative, got {values.min()}")
    size = int(values.max()) + 1 if values.size else 0
    if minlength is not None:
        size = max(size, _count(minlength, what, "minlength"))
    if maxlength is not None:
        maxlength = _count(maxlength, what, "maxlength")
        if maxlength < 0:
            raise errors.InvalidArgumentError(f"{what}: maxlength must be >= 0, got {maxlength}")
        size = min(size, maxlength)
    if weights is None:
        weights = np.zeros((0,), as_dtype(dtype).as_numpy_dtype)
    else:
        weights = convert_to_tensor(weights)
        if tuple(weights.shape) != values.shape:
            raise errors.InvalidArgumentError(f"{what}: weights must have arr's shape {list(values.shape)}, got "
                                              f"{list(weights.shape)}")
        weights = ops.reshape(weights, list(rows.shape))
    out = ops.dense_bincount(rows, weights, size, bool(binary_output))
    return out if axis == -1 else ops.reshape(out, [size])


# --- unique ------------------------------------------------------------------------


def _unique(x, out_idx, what):
    """(y, idx, number of distinct values) for 1-D x: the kernel numbers the values, then y
    takes each number's first position."""
    x = convert_to_tensor(x)
    idx = ops.unique_index(x, out_idx)
    numbers = _concrete_value(idx, what)
    num = int(numbers.max()) + 1 if numbers.size else 0
    positions = np.arange(numbers.size, dtype=numbers.dtype)
    first = ops.unsorted_segment_min(positions, idx, num)
    return ops.gather(x, first), idx, num


@composite
def unique(x, out_idx=int32, name=None):
    """``tf.unique``: the distinct values of 1-D x in order of first occurrence, and for each
    element of x the index of its value in them (x == y[idx]). Returns Unique(y, idx)."""
    del name
    y, idx, _ = _unique(x, out_idx, "unique")
    return Unique(y, idx)


@composite
def unique_with_counts(x, out_idx=int32, name=None):
    """``tf.unique_with_counts``: unique's (y, idx) and how often each value occurs. Returns
    UniqueWithCounts(y, idx, count)."""
    del name
    y, idx, num = _unique(x, out_idx, "unique_with_counts")
    count = ops.unsorted_segment_sum(ops.ones_like(idx), idx, num)
    return UniqueWithCounts(y, idx, count)

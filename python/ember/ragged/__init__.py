"""ember.ragged: RaggedTensor construction and ops (``tf.ragged``)."""

import numpy as _np

from ember import _C
from ember._tensor import Tensor as _Tensor
from ember.dtypes import as_dtype as _as_dtype
from ember.ragged._ragged_tensor import RaggedTensor as _RaggedTensor, _check_same_partition

__all__ = ["constant", "map_flat_values"]  # the class is ember.RaggedTensor, as in TensorFlow


def _depth(value):
    if isinstance(value, (list, tuple)):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, _np.ndarray):
        return value.ndim
    return 0


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype="int64"):
    """A RaggedTensor from nested Python lists whose lengths may differ (``tf.ragged.constant``).

    By default every level but the innermost is ragged (ragged_rank = depth - 1
    - len(inner_shape)); values are int32 for ints and float32 for floats.
    """
    del name, row_splits_dtype
    depth = _depth(pylist)
    if ragged_rank is None:
        ragged_rank = max(0, depth - 1 - (len(inner_shape) if inner_shape else 0))
    dtype = None if dtype is None else _as_dtype(dtype)
    if ragged_rank == 0:
        return _C.convert_to_tensor(pylist, dtype)
    return _build(list(pylist), ragged_rank, dtype)


def _build(rows, ragged_rank, dtype):
    lengths = [len(r) for r in rows]
    flat = [x for r in rows for x in r]
    if ragged_rank > 1:
        values = _build(flat, ragged_rank - 1, dtype)
    else:
        values = _C.convert_to_tensor(flat if flat else _np.zeros([0], _np.float32 if dtype is None
                                                                 else _np.dtype(dtype.name)), dtype)
    return _RaggedTensor.from_row_lengths(values, lengths)


def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the RaggedTensor arguments, with their row
    partition (which must be the same for all of them) kept."""
    ragged = [v for v in list(args) + list(kwargs.values()) if isinstance(v, _RaggedTensor)]
    if not ragged:
        return op(*args, **kwargs)
    for other in ragged[1:]:
        _check_same_partition(ragged[0], other)

    def flat(v):
        return v.flat_values if isinstance(v, _RaggedTensor) else v

    result = op(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()})
    if not isinstance(result, _Tensor):
        raise TypeError("map_flat_values: op must return a tensor")
    return ragged[0].with_flat_values(result)

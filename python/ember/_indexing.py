"""Tensor.__getitem__: NumPy-style indexing on top of strided_slice, gather and gather_nd.

- ints, slices (any step), ``...`` and ``None`` become one ``strided_slice``
  with TensorFlow's masks; an int out of range raises IndexError at the
  call, since the shape is known.
- one integer array (a list, a NumPy array or an ember tensor) becomes a
  ``gather`` along its axis after the basic part is sliced;
- several integer arrays, or integer arrays mixed with ints, follow NumPy's
  advanced indexing (broadcast together; the result dims go where the first
  one was if they are adjacent, else first) through one ``gather_nd``;
- a boolean mask (boolean_mask semantics) reads the mask's value, which
  waits for it, and becomes the integer arrays of its nonzero positions.
"""

import operator

import numpy as np

from ember import _C, _graph_checks
from ember._generated import ops
from ember._runtime import composite

Tensor = _C.Tensor  # ember._tensor imports this module while it sets Tensor up



class _Advanced:
    """An integer index array for one dim: a NumPy array, or an ember tensor we do not read."""

    def __init__(self, value):
        self.value = value

    @property
    def shape(self):
        return tuple(self.value.shape)


def _classify(item):
    """Returns ('basic', item) for int/slice/None/Ellipsis, ('int', n), ('array', _Advanced)
    or ('mask', bool ndarray)."""
    if item is None or item is Ellipsis or isinstance(item, slice):
        return "basic", item
    if isinstance(item, bool) or isinstance(item, np.bool_):
        raise TypeError("ember: boolean scalar indices are not supported")
    if isinstance(item, Tensor):
        if item.dtype.name == "bool":
            return "mask", item.numpy()
        if not item.dtype.is_integer:
            raise IndexError(f"tensors used as indices must be of integer or boolean type, got {item.dtype.name}")
        if item.ndim == 0:
            return "int", int(item)
        return "array", _Advanced(item)
    if isinstance(item, (list, tuple, np.ndarray)):
        array = np.asarray(item)
        if array.size == 0 and array.dtype.kind == "f":
            array = array.astype(np.int64)
        if array.dtype == np.bool_:
            return "mask", array
        if array.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if array.ndim == 0:
            return "int", int(array)
        return "array", _Advanced(array.astype(np.int64))
    try:
        return "int", operator.index(item)
    except TypeError:
        raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None (`numpy.newaxis`) and integer or "
                         f"boolean arrays are valid indices, got {item!r}") from None


def _expand(tensor, key):
    """Classifies every entry of key and finds the input dim each one indexes.

    Returns entries as (kind, value, first_dim, num_dims); masks are replaced
    by one integer array per mask dim.
    """
    entries = [_classify(item) for item in key]
    if sum(1 for kind, v in entries if kind == "basic" and v is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = 0
    for kind, v in entries:
        if kind == "mask":
            consumed += v.ndim
        elif kind != "basic" or isinstance(v, slice):
            consumed += 1
    rank = tensor.ndim
    if consumed > rank:
        raise IndexError(f"too many indices for tensor: tensor is {rank}-dimensional, but {consumed} were indexed")
    out = []
    dim = 0
    for kind, v in entries:
        if kind == "basic" and v is Ellipsis:
            out.append(("basic", v, dim, rank - consumed))
            dim += rank - consumed
        elif kind == "basic" and v is None:
            out.append(("basic", v, dim, 0))
        elif kind == "mask":
            if v.ndim == 0:
                raise TypeError("ember: boolean scalar indices are not supported")
            mask = v
            for i, n in enumerate(mask.shape):
                if tensor.shape[dim + i] != n:
                    raise IndexError(f"boolean index did not match indexed tensor along dimension {dim + i}; "
                                     f"dimension is {tensor.shape[dim + i]} but corresponding boolean dimension "
                                     f"is {n}")
            for i, positions in enumerate(np.nonzero(mask)):
                out.append(("array", _Advanced(positions.astype(np.int64)), dim + i, 1))
            dim += mask.ndim
        else:
            out.append((kind, v, dim, 1))
            dim += 1
    return out


def _check_int(n, size, axis):
    """n wrapped into [0, size), or IndexError. With an unknown size (a symbolic dim) n is
    returned as is: strided_slice wraps a negative index and checks the range when it runs."""
    if size is None:
        return n
    if not -size <= n < size:
        raise IndexError(f"index {n} is out of bounds for axis {axis} with size {size}")
    return n + size if n < 0 else n


def _basic(tensor, entries):
    """One strided_slice for the basic entries; array entries take the full dim."""
    begin, end, strides = [], [], []
    masks = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}
    for i, (kind, v, dim, _) in enumerate(entries):
        bit = 1 << i
        if kind == "array":
            b, e, s = 0, 0, 1
            masks["begin_mask"] |= bit
            masks["end_mask"] |= bit
        elif kind == "int":
            b = _check_int(v, tensor.shape[dim], dim)
            e, s = (0, 1) if b == -1 else (b + 1, 1)
            masks["shrink_axis_mask"] |= bit
        elif v is Ellipsis:
            b, e, s = 0, 0, 1
            masks["ellipsis_mask"] |= bit
        elif v is None:
            b, e, s = 0, 0, 1
            masks["new_axis_mask"] |= bit
        else:
            s = 1 if v.step is None else operator.index(v.step)
            if s == 0:
                raise ValueError("slice step cannot be zero")
            b = 0 if v.start is None else operator.index(v.start)
            e = 0 if v.stop is None else operator.index(v.stop)
            if v.start is None:
                masks["begin_mask"] |= bit
            if v.stop is None:
                masks["end_mask"] |= bit
        begin.append(b)
        end.append(e)
        strides.append(s)
    if not entries:
        return tensor
    return ops.strided_slice(tensor, begin, end, strides, **masks)


def _normalized_index(index, size):
    """An int64 index array with negatives wrapped, or IndexError; tensors are wrapped by ops."""
    if size is None:  # a traced tensor's unknown dim: gather checks the range when it runs
        if isinstance(index.value, Tensor) or (index.value < 0).any():
            raise IndexError("indexing an unknown dim (a traced tensor's None dim) takes non-negative NumPy "
                             "or list indices")
        return index.value
    if isinstance(index.value, Tensor):
        t = index.value
        negative = ops.cast(ops.less(t, 0), t.dtype)
        return ops.add(t, ops.multiply(negative, size))
    array = index.value
    bad = (array < -size) | (array >= size)
    if bad.any():
        raise IndexError(f"index {int(array[bad].flat[0])} is out of bounds for size {size}")
    return np.where(array < 0, array + size, array)


@composite
def getitem(tensor, key):
    """Tensor.__getitem__ (see the module docstring)."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(_is_symbolic_scalar(k) for k in key):
        return _symbolic_getitem(tensor, key)
    entries = _expand(tensor, key)
    arrays = [i for i, e in enumerate(entries) if e[0] == "array"]
    if not arrays:
        return _basic(tensor, entries)
    # With any array present, ints are advanced indices too (NumPy).
    advanced = [i for i, e in enumerate(entries) if e[0] in ("array", "int")]
    # Slice the basic entries; each advanced entry keeps its full dim, at
    # output position `pos` (the number of output dims before it).
    sliced_entries = [(("array",) + e[1:]) if e[0] == "int" else e for e in entries]
    base = _basic(tensor, sliced_entries)
    positions, pos = {}, 0
    for i, (kind, v, dim, ndims) in enumerate(sliced_entries):
        if kind == "array":
            positions[i] = pos
            pos += 1
        elif kind == "basic" and v is Ellipsis:
            pos += ndims
        elif kind == "basic":
            pos += 1  # None or a slice
    if len(advanced) == 1:
        i = advanced[0]
        _, index, dim, _ = entries[i]
        return ops.gather(base, _normalized_index(index, tensor.shape[dim]), axis=positions[i])
    # Several advanced indices: broadcast them, move their dims to the front
    # and gather_nd.
    index_arrays = []
    for i in advanced:
        kind, v, dim, _ = entries[i]
        size = tensor.shape[dim]
        if kind == "int":
            index_arrays.append(np.asarray(_check_int(v, size, dim), np.int64))
            continue
        value = v.value.numpy() if isinstance(v.value, Tensor) else v.value
        index_arrays.append(_normalized_index(_Advanced(np.asarray(value, np.int64)), size))
    try:
        index_arrays = np.broadcast_arrays(*index_arrays)
    except ValueError:
        shapes = " ".join(str(a.shape) for a in index_arrays)
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with shapes "
                         f"{shapes}") from None
    adv_axes = [positions[i] for i in advanced]
    rest = [a for a in range(base.ndim) if a not in adv_axes]
    front = base if adv_axes + rest == list(range(base.ndim)) else ops.transpose(base, adv_axes + rest)
    result = ops.gather_nd(front, np.stack(index_arrays, axis=-1).astype(np.int64))
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1))
    if not adjacent or adv_axes[0] == 0:
        return result
    # NumPy puts adjacent advanced dims where the first advanced index was.
    nb = index_arrays[0].ndim
    at = adv_axes[0]
    perm = list(range(nb, nb + at)) + list(range(nb)) + list(range(nb + at, result.ndim))
    return ops.transpose(result, perm)


def _is_symbolic_scalar(item):
    return isinstance(item, Tensor) and _C._is_symbolic(item) and item.ndim == 0 and item.dtype.is_integer


def _symbolic_getitem(tensor, key):
    """x[i] (and x[i, j, ...]) with integer indices computed in a trace, such as the
    counter of a converted `for i in ember.range(n)`: one gather per index, with
    negative indices counted from the end, as in TensorFlow."""
    if not all(_is_symbolic_scalar(k) or isinstance(k, (int, np.integer)) and not isinstance(k, bool)
               for k in key):
        raise IndexError("ember: inside @ember.function an index computed in the trace can only be combined "
                         "with other integer indices (x[i] or x[i, j]); use ember.gather or ember.slice")
    if len(key) > tensor.ndim:
        raise IndexError(f"too many indices: the tensor has rank {tensor.ndim}, got {len(key)} indices")
    for k in key:
        size = ops.shape(tensor, out_type=k.dtype)[0] if isinstance(k, Tensor) else tensor.shape[0]
        k = ops.where(k < 0, k + size, k) if isinstance(k, Tensor) else (k + size if k < 0 else k)
        tensor = ops.gather(tensor, k)
    return tensor


def iterate(tensor):
    """Tensor.__iter__: the slices along the first dim (a 0-d tensor raises at once)."""
    if tensor.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    if tensor.shape[0] is None:
        _graph_checks.reject_symbolic(tensor, "iterate")
    return (getitem(tensor, i) for i in range(tensor.shape[0]))

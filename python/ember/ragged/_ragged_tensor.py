"""ember.RaggedTensor: rows of different lengths, stored as flat values and row splits (``tf.RaggedTensor``).

A Python composite, as in TensorFlow: `values` (a tensor, or a RaggedTensor
for more ragged dimensions) holds the rows one after another, and
`row_splits` (int64, [nrows + 1]) says where each row starts and ends.
Element-wise arithmetic applies to the flat values, so a gradient tape sees
it. The row partition is data, read with NumPy where an op needs it (to_tensor,
to_list), so those ops run eagerly, not on symbolic row splits.
"""

import numpy as np

from ember import _C, _creation, errors
from ember._generated import ops
from ember._tensor import Tensor
from ember._tensor_shape import TensorShape
from ember.dtypes import int64
from ember._strings import _dispatch
from ember._strings._value import StringTensor, from_array  # string values: split, bytes_split, unicode_decode


def _int64(value, what):
    if isinstance(value, Tensor):
        return value if value.dtype == int64 else ops.cast(value, int64)
    array = np.asarray(value)
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"RaggedTensor: {what} must be integers, got {array.dtype}")
    return _C.convert_to_tensor(array.astype(np.int64), int64)


def _tensor(value):
    if isinstance(value, (Tensor, RaggedTensor, StringTensor)):
        return value
    return _C.convert_to_tensor(value, None)


def _splits(t):
    return t.row_splits.numpy()


class RaggedTensor:
    """A tensor whose dimension 1 (and more, when nested) varies by row. Make one with
    ``ember.ragged.constant`` or the ``from_row_lengths`` / ``from_row_splits`` factories."""

    def __init__(self, values, row_splits, internal=False):
        if not internal:
            raise ValueError("RaggedTensor: use ember.ragged.constant or RaggedTensor.from_row_splits / "
                             "from_row_lengths")
        self._values = values
        self._row_splits = row_splits

    # --- factories ----------------------------------------------------------

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Row i is ``values[row_splits[i]:row_splits[i + 1]]``."""
        del name
        values, splits = _tensor(values), _int64(row_splits, "row_splits")
        if len(splits.shape) != 1 or splits.shape[0] == 0:
            raise ValueError("RaggedTensor.from_row_splits: row_splits must be a non-empty vector")
        if validate and not _C._is_symbolic(splits):
            s = splits.numpy()
            n = values.nrows() if isinstance(values, RaggedTensor) else values.shape[0]
            if s[0] != 0 or np.any(np.diff(s) < 0) or (n is not None and not isinstance(n, Tensor) and s[-1] != n):
                raise errors.InvalidArgumentError(
                    f"RaggedTensor.from_row_splits: row_splits must start at 0, not decrease and end at the number "
                    f"of values ({n}), got {s.tolist()}")
        return cls(values, splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Consecutive rows of the given lengths."""
        del name
        lengths = _int64(row_lengths, "row_lengths")
        if _C._is_symbolic(lengths):
            splits = _dispatch.concat([ops.zeros([1], dtype=int64), ops.cumsum(lengths)], 0)
        else:  # row splits are data that to_tensor reads: keep them concrete inside traces too
            splits = np.concatenate([[0], np.cumsum(lengths.numpy())]).astype(np.int64)
        return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Value j goes to row value_rowids[j] (sorted ascending); `nrows` adds empty rows at the end."""
        del name
        ids = _int64(value_rowids, "value_rowids").numpy()
        n = int(nrows) if nrows is not None else (int(ids[-1]) + 1 if len(ids) else 0)
        if validate and (np.any(np.diff(ids) < 0) or (len(ids) and (ids[0] < 0 or ids[-1] >= n))):
            raise errors.InvalidArgumentError("RaggedTensor.from_value_rowids: value_rowids must be sorted and "
                                              f"in [0, nrows), got {ids.tolist()}")
        return cls.from_row_lengths(values, np.bincount(ids, minlength=n).astype(np.int64), validate=validate)

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=int64):
        """The rows of a dense tensor, cut to `lengths`, or before their trailing `padding` values."""
        del name, row_splits_dtype
        if ragged_rank != 1:
            raise NotImplementedError("RaggedTensor.from_tensor: only ragged_rank=1 is supported")
        tensor = _tensor(tensor)
        rows, width = tensor.shape[0], tensor.shape[1]
        if lengths is not None:
            lengths = np.minimum(_int64(lengths, "lengths").numpy(), width)
        elif padding is not None:
            is_pad = np.asarray(tensor.numpy() == np.asarray(padding))
            is_pad = is_pad.reshape(rows, width, -1).all(axis=2)
            # A row's length ends after its last value that is not padding.
            kept = ~is_pad
            lengths = np.where(kept.any(1), width - np.argmax(kept[:, ::-1], axis=1), 0)
        else:
            lengths = np.full(rows, width)
        keep = np.arange(width)[None, :] < lengths[:, None]
        index = _C.convert_to_tensor(np.argwhere(keep).astype(np.int64), int64)
        return cls.from_row_lengths(ops.gather_nd(tensor, index), lengths.astype(np.int64))

    def bounding_shape(self, axis=None, name=None, out_type=int64):
        """The shape of the smallest dense tensor that holds every row."""
        del name
        dense = list(self.to_tensor().shape) if self._row_splits.shape[0] else [0]
        shape = _creation.constant(np.array(dense, np.int64), dtype=out_type)
        return shape if axis is None else shape[axis]

    # --- structure ----------------------------------------------------------

    @property
    def values(self):
        return self._values

    @property
    def row_splits(self):
        return self._row_splits

    @property
    def flat_values(self):
        v = self._values
        return v.flat_values if isinstance(v, RaggedTensor) else v

    @property
    def nested_row_splits(self):
        inner = self._values.nested_row_splits if isinstance(self._values, RaggedTensor) else ()
        return (self._row_splits,) + tuple(inner)

    @property
    def ragged_rank(self):
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def shape(self):
        rows = self._row_splits.shape[0]
        inner = list(self._values.shape[1:])
        return TensorShape([None if rows is None else rows - 1, None] + inner)

    def nrows(self, out_type=int64, name=None):
        del name
        return ops.cast(_dispatch.shape(self._row_splits)[0] - 1, out_type)

    def row_lengths(self, axis=1, name=None):
        """The length of each row (axis 1), or of each inner row (a deeper ragged axis)."""
        del name
        if axis == 1:
            return self._row_splits[1:] - self._row_splits[:-1]
        if axis > 1 and isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        raise ValueError(f"RaggedTensor.row_lengths: axis {axis} is not a ragged axis")

    def with_values(self, new_values):
        return RaggedTensor(new_values, self._row_splits, internal=True)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    # --- composite protocols (Note [Structured loop variables], Note [Composite arguments]) ---

    def _components(self):
        return [self.flat_values] + list(self.nested_row_splits)

    def _component_invariants(self, components):
        return [tuple(c.shape) for c in components]

    def _from_components(self, components):
        values = components[0]
        for splits in reversed(components[1:]):
            values = RaggedTensor(values, splits, internal=True)
        return values

    def _arg_key(self):
        # to_tensor and to_list read the row splits as data: they are part of the key.
        return ("RaggedTensor", tuple(tuple(s.numpy().tolist()) for s in self.nested_row_splits))

    def _arg_parts(self):
        return [self.flat_values]

    def _from_arg_parts(self, parts):
        return self.with_flat_values(parts[0])

    # --- conversion ---------------------------------------------------------

    def to_tensor(self, default_value=None, name=None, shape=None):
        """The dense tensor: each row padded with `default_value` (0) to the longest row."""
        del name
        values = self._values.to_tensor(default_value) if isinstance(self._values, RaggedTensor) else self._values
        splits = _splits(self)
        lengths = np.diff(splits)
        nrows, width = len(lengths), int(lengths.max()) if len(lengths) else 0
        inner = list(values.shape[1:])
        if shape is not None:  # tf: a dim of `shape` truncates or pads; None keeps it
            target = [None if d is None else int(d) for d in shape]
            nrows = target[0] if target[0] is not None else nrows
            width = target[1] if target[1] is not None else width
        rows = np.repeat(np.arange(len(lengths)), lengths)
        cols = np.arange(int(splits[-1])) - np.repeat(splits[:-1], lengths)
        keep = (rows < nrows) & (cols < width)
        dims = [nrows, width] + inner
        if values.dtype == "string":  # host strings (ember/_strings/): filled in NumPy, b"" by default
            return _strings_to_tensor(values, dims, rows[keep], cols[keep], keep, default_value)
        fill = ops.zeros(dims, dtype=values.dtype) if default_value is None else ops.fill(
            dims, ops.cast(default_value, values.dtype))
        if not keep.any():
            return fill
        index = _C.convert_to_tensor(np.stack([rows[keep], cols[keep]], 1).astype(np.int64), int64)
        kept = values if keep.all() else _dispatch.gather(values, np.nonzero(keep)[0].astype(np.int64))
        return ops.tensor_scatter_nd_update(fill, index, kept)

    def to_list(self):
        """The rows as nested Python lists."""
        values = self._values.to_list() if isinstance(self._values, RaggedTensor) else self._values.numpy().tolist()
        splits = _splits(self)
        return [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def numpy(self):
        """The rows as a NumPy object array of arrays (TensorFlow's RaggedTensor.numpy)."""
        rows = self.to_list()
        out = np.empty(len(rows), dtype=object)
        for i, row in enumerate(rows):
            out[i] = np.array(row, dtype=np.dtype(self.dtype.name))
        return out

    def __getitem__(self, key):
        """Row `key` (an int) as a tensor, or as a RaggedTensor when rows are nested."""
        if not isinstance(key, (int, np.integer)):
            raise TypeError("RaggedTensor: only an int row index is supported")
        splits = _splits(self)
        n = len(splits) - 1
        if not -n <= key < n:
            raise IndexError(f"RaggedTensor: row {key} is out of range for {n} rows")
        key %= n
        start, stop = int(splits[key]), int(splits[key + 1])
        if isinstance(self._values, RaggedTensor):
            inner = _splits(self._values)[start:stop + 1]
            return RaggedTensor.from_row_splits(
                _slice_rows(self._values.values, int(inner[0]), int(inner[-1])), inner - inner[0])
        return self._values[start:stop]

    # --- arithmetic ---------------------------------------------------------

    def _elementwise(self, other, op, reverse=False):
        if isinstance(other, RaggedTensor):
            _check_same_partition(self, other)
            other = other.flat_values
        else:
            other = other if isinstance(other, Tensor) else _C.convert_to_tensor(other, self.dtype)
            if len(other.shape) != 0:
                raise ValueError("RaggedTensor: element-wise ops take a scalar or a RaggedTensor with the same rows")
        a, b = (other, self.flat_values) if reverse else (self.flat_values, other)
        return self.with_flat_values(op(a, b))

    def __add__(self, other):
        return self._elementwise(other, ops.add)

    def __radd__(self, other):
        return self._elementwise(other, ops.add, True)

    def __sub__(self, other):
        return self._elementwise(other, ops.subtract)

    def __rsub__(self, other):
        return self._elementwise(other, ops.subtract, True)

    def __mul__(self, other):
        return self._elementwise(other, ops.multiply)

    def __rmul__(self, other):
        return self._elementwise(other, ops.multiply, True)

    def __truediv__(self, other):
        return self._elementwise(other, ops.truediv)

    def __rtruediv__(self, other):
        return self._elementwise(other, ops.truediv, True)

    def __neg__(self):
        return self.with_flat_values(ops.negative(self.flat_values))

    def __repr__(self):
        try:
            return f"<ember.RaggedTensor {self.to_list()}>"
        except Exception:  # symbolic row splits have no value to show
            return f"<ember.RaggedTensor dtype={self.dtype.name} ragged_rank={self.ragged_rank}>"


def _strings_to_tensor(values, dims, rows, cols, keep, default_value):
    if default_value is None:
        default_value = b""
    elif hasattr(default_value, "numpy"):
        default_value = default_value.numpy()
    if isinstance(default_value, str):
        default_value = default_value.encode("utf-8")
    out = np.full(dims, default_value, dtype=object)
    out[rows, cols] = values.numpy()[keep] if values.ndim else values.numpy()
    return from_array(out)


def _slice_rows(values, start, stop):
    if isinstance(values, RaggedTensor):
        splits = _splits(values)[start:stop + 1]
        return RaggedTensor.from_row_splits(_slice_rows(values.values, int(splits[0]), int(splits[-1])),
                                            splits - splits[0])
    return values[start:stop]


def _check_same_partition(a, b):
    sa, sb = a.nested_row_splits, b.nested_row_splits
    same = len(sa) == len(sb) and all(
        x is y or (not _C._is_symbolic(x) and not _C._is_symbolic(y) and x.shape == y.shape
                   and np.array_equal(x.numpy(), y.numpy())) for x, y in zip(sa, sb))
    if not same:
        raise errors.InvalidArgumentError("RaggedTensor: the two ragged tensors have different row partitions")

"""Dataset stages that change the batch dim: batch, padded_batch, unbatch."""

import itertools

import numpy as np

from ember._checks import safe_repr
from ember._strings import _dispatch as _ops  # stack and unstack that also take string tensors
from ember._strings._shape_ops import pad_strings
from ember.data import _structure
from ember.data._dataset import UNKNOWN_CARDINALITY, UnaryDataset
from ember.errors import InvalidArgumentError
from ember.function import TensorSpec
from ember._movement import pad
from ember._tensor import Tensor
from ember.dtypes import string


def _columns(chunk, what):
    """The components of a list of elements, one list per component."""
    first = chunk[0]
    flats = [_structure.flatten(first)]
    for k, element in enumerate(chunk[1:], 1):
        if not _structure.same_structure(first, element):
            raise InvalidArgumentError(f"{what}: element {k} of the batch has another structure than "
                                       "element 0")
        flats.append(_structure.flatten(element))
    return [list(column) for column in zip(*flats)]


def _check_same(column, j, what):
    t0 = column[0]
    for k, t in enumerate(column[1:], 1):
        if t.dtype != t0.dtype:
            raise InvalidArgumentError(f"{what}: cannot batch tensors of different dtypes in component {j}: "
                                       f"element 0 is {t0.dtype.name} and element {k} is {t.dtype.name}")
        if t.shape != t0.shape:
            hint = "; use padded_batch to pad them to one shape" if len(t.shape) == len(t0.shape) else ""
            raise InvalidArgumentError(f"{what}: cannot batch tensors with different shapes in component {j}: "
                                       f"element 0 had shape {t0.shape} and element {k} had shape "
                                       f"{t.shape}{hint}")


def _batched_spec(spec, size):
    return _structure.map_components(lambda s: TensorSpec((size,) + s.shape, s.dtype), spec)


def _batch_cardinality(n, size, drop_remainder):
    if n < 0:
        return n
    return n // size if drop_remainder else -(-n // size)


class BatchDataset(UnaryDataset):
    def __init__(self, input_dataset, size, drop_remainder):
        super().__init__(input_dataset)
        self._size = size
        self._drop = drop_remainder

    def _iterate(self):
        elements = self._input._iterate()
        while True:
            chunk = list(itertools.islice(elements, self._size))
            if not chunk or (self._drop and len(chunk) < self._size):
                return
            stacked = []
            for j, column in enumerate(_columns(chunk, "batch")):
                _check_same(column, j, "batch")
                stacked.append(_ops.stack(column))
            yield _structure.pack(chunk[0], stacked)

    def _cardinality(self):
        return _batch_cardinality(self._input._cardinality(), self._size, self._drop)

    def _element_spec(self):
        return _batched_spec(self._input.element_spec, self._size if self._drop else None)


def _shape_list(value, what):
    """A padded shape as a tuple of ints and Nones (-1 means None)."""
    if isinstance(value, Tensor):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or not all(
            d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= -1) for d in value):
        raise TypeError(f"padded_batch: {what} must be a shape (a list of ints, None or -1), got {safe_repr(value)}")
    return tuple(None if d is None or d == -1 else int(d) for d in value)


def _padded_shapes(padded_shapes, spec, path=""):
    """The padded shape of each component, in flatten order, matched against the element spec."""
    if isinstance(spec, dict):
        if not isinstance(padded_shapes, dict) or sorted(padded_shapes, key=repr) != sorted(spec, key=repr):
            raise ValueError(f"padded_batch: padded_shapes{path} must be a dict with the keys {sorted(spec)}, "
                             f"got {safe_repr(padded_shapes)}")
        return [s for k in sorted(spec, key=repr) for s in _padded_shapes(padded_shapes[k], spec[k], f"{path}[{k!r}]")]
    if isinstance(spec, tuple):
        if not isinstance(padded_shapes, (tuple, list)) or len(padded_shapes) != len(spec):
            raise ValueError(f"padded_batch: padded_shapes{path} must be a sequence of {len(spec)} shapes, "
                             f"got {safe_repr(padded_shapes)}")
        return [s for i, (p, c) in enumerate(zip(padded_shapes, spec)) for s in _padded_shapes(p, c, f"{path}[{i}]")]
    shape = _shape_list(padded_shapes, f"padded_shapes{path}")
    if len(shape) != len(spec.shape) or any(p is not None and d is not None and p != d
                                             for p, d in zip(shape, spec.shape)):
        raise ValueError(f"padded_batch: the padded shape {shape} is not compatible with the shape {spec.shape} "
                         f"of the corresponding component{path and ' ' + path}")
    return [shape]


def _padding_value(value, dtype, j):
    if dtype == string:
        return _string_padding_value(value, j)
    if value is None:
        return 0
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.ndim != 0:
            raise ValueError(f"padded_batch: padding values must be scalars, got shape {array.shape} for "
                             f"component {j}")
        if array.dtype != np.dtype(dtype.as_numpy_dtype):
            raise TypeError(f"padded_batch: the padding value of component {j} is {array.dtype} but the "
                            f"component is {dtype.name}")
        return array.item()
    if isinstance(value, (bool, int, float)):
        return value
    raise TypeError(f"padded_batch: padding values must be scalars, got {safe_repr(value)}")


class PaddedBatchDataset(UnaryDataset):
    def __init__(self, input_dataset, size, padded_shapes, padding_values, drop_remainder):
        super().__init__(input_dataset)
        self._size = size
        self._drop = drop_remainder
        self._targets = None  # None: pad every dim to the longest in the batch
        self._padded_shapes = padded_shapes
        if padded_shapes is not None:
            try:
                input_spec = input_dataset.element_spec
            except Exception:  # noqa: BLE001 - an untraceable map (Note [Map element specs])
                input_spec = None  # match padded_shapes against the first batch instead
            if input_spec is not None:
                self._targets = _padded_shapes(padded_shapes, input_spec)
        self._values = padding_values
        if _structure.is_structure(padding_values):
            self._values = _structure.flatten(padding_values)

    def _value(self, j, dtype):
        value = self._values
        if isinstance(value, list):
            if j >= len(value):
                raise ValueError(f"padded_batch: padding_values has {len(value)} components, fewer than "
                                 "the elements")
            value = value[j]
        return _padding_value(value, dtype, j)

    def _pad_column(self, column, j):
        rank = len(column[0].shape)
        for k, t in enumerate(column):
            if t.dtype != column[0].dtype or len(t.shape) != rank:
                raise InvalidArgumentError(
                    f"padded_batch: component {j} differs in dtype or rank between elements: element 0 is "
                    f"{column[0].dtype.name} {column[0].shape}, element {k} is {t.dtype.name} {t.shape}")
        target = self._targets[j] if self._targets is not None else (None,) * rank
        if len(target) != rank:
            raise InvalidArgumentError(f"padded_batch: component {j} has rank {rank} but its padded shape is "
                                       f"{target}")
        longest = [max(t.shape[a] for t in column) for a in range(rank)]
        size = [longest[a] if target[a] is None else target[a] for a in range(rank)]
        value = self._value(j, column[0].dtype)
        padded = []
        for k, t in enumerate(column):
            if any(d > s for d, s in zip(t.shape, size)):
                raise InvalidArgumentError(f"padded_batch: component {j} of element {k} has shape {t.shape}, "
                                           f"larger than its padded shape {tuple(size)}")
            amounts = [[0, s - d] for d, s in zip(t.shape, size)]
            if not any(a for _, a in amounts):
                padded.append(t)
            elif t.dtype == string:
                padded.append(pad_strings(t, amounts, value))
            else:
                padded.append(pad(t, amounts, constant_values=value))
        return _ops.stack(padded)

    def _iterate(self):
        elements = self._input._iterate()
        while True:
            chunk = list(itertools.islice(elements, self._size))
            if not chunk or (self._drop and len(chunk) < self._size):
                return
            if self._padded_shapes is not None and self._targets is None:
                ranks = _structure.map_components(lambda t: TensorSpec((None,) * t.ndim, t.dtype), chunk[0])
                self._targets = _padded_shapes(self._padded_shapes, ranks)
            columns = _columns(chunk, "padded_batch")
            yield _structure.pack(chunk[0], [self._pad_column(c, j) for j, c in enumerate(columns)])

    def _cardinality(self):
        return _batch_cardinality(self._input._cardinality(), self._size, self._drop)

    def _element_spec(self):
        spec = self._input.element_spec
        specs = _structure.flatten(spec)
        targets = self._targets or [s.shape for s in specs]
        batch = self._size if self._drop else None
        return _structure.pack(spec, [TensorSpec((batch,) + tuple(t), s.dtype) for t, s in zip(targets, specs)])


class UnbatchDataset(UnaryDataset):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)

    def _iterate(self):
        for element in self._input._iterate():
            components = _structure.flatten(element)
            if not components or any(t.ndim == 0 for t in components):
                raise ValueError("unbatch: cannot unbatch an element with scalar components")
            sizes = sorted({t.shape[0] for t in components})
            if len(sizes) > 1:
                raise InvalidArgumentError("unbatch: the components of an element must have the same first "
                                           f"dim, got {sizes[0]} and {sizes[1]}")
            if not sizes[0]:
                continue
            rows = [_ops.unstack(t, sizes[0]) for t in components]
            for i in range(sizes[0]):
                yield _structure.pack(element, [r[i] for r in rows])

    def _cardinality(self):
        return UNKNOWN_CARDINALITY  # as tf.data: the batch sizes are not known ahead

    def _element_spec(self):
        spec = self._input.element_spec
        if any(len(s.shape) == 0 for s in _structure.flatten(spec)):
            raise ValueError("unbatch: cannot unbatch an input with scalar components")
        return _structure.map_components(lambda s: TensorSpec(s.shape[1:], s.dtype), spec)


def _string_padding_value(value, j):
    """A string component's padding value as bytes (b"" by default)."""
    if value is None:
        return b""
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, str):
        value = value.encode("utf-8")
    if not isinstance(value, bytes):
        raise TypeError(f"padded_batch: the padding value of string component {j} must be a string, got "
                        f"{safe_repr(value)}")
    return value

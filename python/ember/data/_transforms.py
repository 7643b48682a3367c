"""Element-wise dataset stages: map, filter, enumerate, take, skip, repeat, cache."""

import itertools
import threading

import numpy as np

from ember._checks import safe_repr
from ember._creation import convert_to_tensor
from ember.data import _structure
from ember.data._dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, UnaryDataset
from ember.dtypes import int64
from ember.function import Function, HostCallbackError, TensorSpec
from ember._tensor import Tensor


def _check_callable(fn, func, arg):
    if not callable(fn):
        raise TypeError(f"{func}: {arg} must be callable, got {safe_repr(fn)}")
    return fn


def traced_spec(fn, input_spec, what, first_output=None):
    """The element_spec of fn's results: fn traced once on symbolic tensors of input_spec
    (Note [Map element specs]). A function that calls py_function cannot be traced: its
    spec comes from `first_output()` (fn run eagerly on the first element), with every
    dim unknown, as TensorFlow leaves a py_function's result shape unknown."""
    # Note [Map element specs]: map functions run eagerly, element by element,
    # so iterating never needs a trace. Only element_spec does: like tf.data,
    # which traces at map(), we trace the function on the input's specs and
    # read the shapes and dtypes of what it returns, but only when asked.
    def call(*components):
        return _structure.call_unpacked(fn, _structure.pack(input_spec, components))

    try:
        concrete = Function(call, name=what, autograph=False).get_concrete_function(*_structure.flatten(input_spec))
    except HostCallbackError:
        if first_output is None:
            raise
        outputs = _structure.normalize_output(first_output(), what)
        return _structure.map_components(lambda t: TensorSpec([None] * len(t.shape), t.dtype), outputs)
    except Exception as e:
        if hasattr(e, "add_note"):
            e.add_note(f"(raised while tracing the {what} function on {input_spec} to find the dataset's "
                       "element_spec)")
        raise
    outputs = _structure.normalize_output(concrete.structured_outputs, what)
    return _structure.spec_of(outputs)


class MapDataset(UnaryDataset):
    def __init__(self, input_dataset, fn):
        super().__init__(input_dataset)
        self._fn = _check_callable(fn, "map", "map_func")

    def _iterate(self):
        fn = self._fn
        for element in self._input._iterate():
            yield _structure.normalize_output(_structure.call_unpacked(fn, element), "map")

    def _cardinality(self):
        return self._input._cardinality()

    def _element_spec(self):
        def first_output():
            element = next(self._input._iterate(), None)
            if element is None:
                raise ValueError("map: the function calls py_function, and the dataset is empty, so its "
                                 "element_spec is unknown")
            return _structure.call_unpacked(self._fn, element)

        return traced_spec(self._fn, self._input.element_spec, "map", first_output)


def _truth(value):
    """A predicate's result as a bool; only bool scalars are accepted, as in tf.data."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, Tensor) and value.dtype.is_bool and value.ndim == 0:
        return bool(value)
    if isinstance(value, Tensor):
        got = f"a {value.dtype.name} tensor of shape {value.shape}"
    else:
        got = safe_repr(value)
    raise ValueError(f"filter: predicate must return a scalar bool tensor (or a Python bool), got {got}")


class FilterDataset(UnaryDataset):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._predicate = _check_callable(predicate, "filter", "predicate")

    def _iterate(self):
        predicate = self._predicate
        for element in self._input._iterate():
            if _truth(_structure.call_unpacked(predicate, element)):
                yield element

    def _cardinality(self):
        return UNKNOWN_CARDINALITY  # as tf.data: even an infinite input gives unknown


class EnumerateDataset(UnaryDataset):
    def __init__(self, input_dataset, start):
        super().__init__(input_dataset)
        self._start = start

    def _iterate(self):
        for i, element in enumerate(self._input._iterate(), self._start):
            yield convert_to_tensor(np.int64(i)), element

    def _cardinality(self):
        return self._input._cardinality()

    def _element_spec(self):
        return TensorSpec((), int64), self._input.element_spec


class TakeDataset(UnaryDataset):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _iterate(self):
        if self._count < 0:
            yield from self._input._iterate()
        elif self._count > 0:  # take(0) never starts its input
            yield from itertools.islice(self._input._iterate(), self._count)

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count < 0 or n == UNKNOWN_CARDINALITY:
            return n
        return self._count if n == INFINITE_CARDINALITY else min(n, self._count)


class SkipDataset(UnaryDataset):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _iterate(self):
        elements = self._input._iterate()
        if self._count < 0:
            for _ in elements:
                pass
            return
        for _ in itertools.islice(elements, self._count):
            pass
        yield from elements

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(0, n - self._count)


class RepeatDataset(UnaryDataset):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _iterate(self):
        passes = itertools.count() if self._count < 0 else range(self._count)
        for _ in passes:
            empty = True
            for element in self._input._iterate():
                empty = False
                yield element
            if empty:
                return  # an empty pass would repeat forever without yielding anything

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count == 0 or n == 0:
            return 0
        if self._count < 0:
            return INFINITE_CARDINALITY  # also for an unknown input, as tf.data says
        return n if n < 0 else n * self._count


class CacheDataset(UnaryDataset):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        self._elements = None  # the first complete pass
        self._lock = threading.Lock()

    def _iterate(self):
        with self._lock:
            cached = self._elements
        if cached is not None:
            yield from cached
            return
        # A pass that stops early leaves nothing behind (tf.data discards partial caches too).
        recorded = []
        for element in self._input._iterate():
            recorded.append(element)
            yield element
        with self._lock:
            if self._elements is None:
                self._elements = recorded

    def _cardinality(self):
        return self._input._cardinality()

"""Dataset stages that combine datasets: flat_map, interleave, window, shard,
sample_from_datasets and choose_from_datasets."""

import os

import numpy as np

from ember import _random, errors
from ember._checks import safe_repr
from ember.data import _structure
from ember.data._dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, UnaryDataset


class DatasetSpec:
    """The spec of a dataset-valued element (``tf.data.DatasetSpec``): its element_spec."""

    def __init__(self, element_spec, dataset_shape=()):
        self.element_spec, self.shape = element_spec, tuple(dataset_shape)

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and self.element_spec == other.element_spec

    def __hash__(self):
        return hash(repr(self.element_spec))

    def __repr__(self):
        return f"DatasetSpec({self.element_spec})"


def _dataset_of(fn, element, what):
    result = _structure.call_unpacked(fn, element)
    if not isinstance(result, Dataset):
        raise TypeError(f"{what}: map_func must return a Dataset, got {safe_repr(result)}")
    return result


def _first_spec(stage, what):
    """The element_spec of the dataset map_func makes from the first input element: the function
    builds datasets from values, so it runs once on a real element rather than being traced."""
    element = next(stage._input._iterate(), None)
    if element is None:
        raise ValueError(f"{what}: the input is empty, so the element_spec of map_func's datasets is unknown")
    return _dataset_of(stage._fn, element, what).element_spec


class FlatMapDataset(UnaryDataset):
    def __init__(self, input_dataset, fn):
        super().__init__(input_dataset)
        self._fn = fn

    def _iterate(self):
        for element in self._input._iterate():
            yield from _dataset_of(self._fn, element, "flat_map")._iterate()

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _element_spec(self):
        return _first_spec(self, "flat_map")


class InterleaveDataset(UnaryDataset):
    """tf.data's interleave: `cycle_length` datasets open at once, `block_length` elements taken
    from each in turn; an exhausted one is replaced by the dataset of the next input element."""

    def __init__(self, input_dataset, fn, cycle_length, block_length):
        super().__init__(input_dataset)
        self._fn = fn
        self._cycle_length = (os.cpu_count() or 1) if cycle_length in (None, AUTOTUNE) else cycle_length
        self._block_length = block_length

    def _iterate(self):
        inputs = self._input._iterate()
        slots = [None] * self._cycle_length
        index, taken, input_done = 0, 0, False
        while True:
            if slots[index] is None and not input_done:
                element = next(inputs, None)
                if element is None:
                    input_done = True
                else:
                    slots[index] = _dataset_of(self._fn, element, "interleave")._iterate()
                    taken = 0
                    continue
            if slots[index] is not None:
                value = next(slots[index], None)
                if value is not None:
                    yield value
                    taken += 1
                    if taken < self._block_length:
                        continue
                else:
                    slots[index] = None
            elif input_done and all(s is None for s in slots):
                return
            index, taken = (index + 1) % self._cycle_length, 0

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _element_spec(self):
        return _first_spec(self, "interleave")


class ListDataset(Dataset):
    """The elements of a Python list (a window's contents)."""

    def __init__(self, elements, spec):
        self._elements, self._spec_of_elements = elements, spec

    def _iterate(self):
        return iter(self._elements)

    def _cardinality(self):
        return len(self._elements)

    def _element_spec(self):
        return self._spec_of_elements


class WindowDataset(UnaryDataset):
    """Windows of `size` elements, `stride` apart, starting every `shift` elements; each window is
    the input's structure with a dataset in place of each component."""

    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        super().__init__(input_dataset)
        self._size, self._shift, self._stride, self._drop = size, shift, stride, drop_remainder

    def _window(self, elements):
        spec = self._input.element_spec
        columns = list(zip(*[_structure.flatten(e) for e in elements]))
        specs = _structure.flatten(spec)
        return _structure.pack(spec, [ListDataset(list(c), s) for c, s in zip(columns, specs)])

    def _iterate(self):
        source = self._input._iterate()
        buffer, first, done = [], 0, False  # buffer[0] is input element number `first`
        span = (self._size - 1) * self._stride + 1
        start = 0
        while True:
            while not done and first + len(buffer) < start + span:
                element = next(source, None)
                if element is None:
                    done = True
                else:
                    buffer.append(element)
            available = first + len(buffer)
            if start >= available:
                return
            picked = [buffer[i - first] for i in range(start, min(start + span, available), self._stride)]
            if len(picked) < self._size and self._drop:
                return
            yield self._window(picked)
            start += self._shift
            drop = min(start - first, len(buffer))
            del buffer[:drop]
            first += drop

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        span = (self._size - 1) * self._stride + 1
        if self._drop:
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)

    def _element_spec(self):
        return _structure.map_components(DatasetSpec, self._input.element_spec)


class ShardDataset(UnaryDataset):
    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        self._num_shards, self._index = num_shards, index

    def _iterate(self):
        for i, element in enumerate(self._input._iterate()):
            if i % self._num_shards == self._index:
                yield element

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._num_shards + (1 if n % self._num_shards > self._index else 0)


def _common_spec(datasets, what):
    if not datasets or not all(isinstance(d, Dataset) for d in datasets):
        raise TypeError(f"{what}: datasets must be a non-empty list of ember.data.Dataset")
    spec = datasets[0].element_spec
    for i, d in enumerate(datasets[1:], 1):
        merged = _structure.specs_compatible(spec, d.element_spec)
        if merged is None:
            raise TypeError(f"{what}: dataset {i} has element_spec {d.element_spec}, incompatible with dataset "
                            f"0's {spec}")
        spec = merged
    return spec


class SampleDataset(Dataset):
    """Elements drawn from one of several datasets at random, by weight (Note [Shuffle seeds])."""

    def __init__(self, datasets, weights, seed, stop_on_empty, rerandomize):
        self._datasets = list(datasets)
        self._spec_of_elements = _common_spec(self._datasets, "sample_from_datasets")
        n = len(self._datasets)
        weights = np.full(n, 1.0 / n) if weights is None else np.asarray(
            weights.numpy() if hasattr(weights, "numpy") else weights, dtype=np.float64)
        if weights.shape != (n,) or np.any(weights < 0) or not np.all(np.isfinite(weights)) or weights.sum() <= 0:
            raise ValueError(f"sample_from_datasets: weights must be {n} non-negative numbers with a positive sum, "
                             f"got {safe_repr(weights)}")
        self._weights = weights
        self._stop = stop_on_empty
        self._seed = [s & ((1 << 64) - 1) for s in _random._dataset_seed(seed, "sample_from_datasets")]
        self._rerandomize = rerandomize
        self._passes = 0

    def _inputs(self):
        return list(self._datasets)

    def _iterate(self):
        epoch = self._passes if self._rerandomize else 0
        self._passes += 1
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(self._seed + [epoch])))
        iterators = [d._iterate() for d in self._datasets]
        weights = self._weights.copy()
        while weights.sum() > 0:
            i = int(rng.choice(len(weights), p=weights / weights.sum()))
            element = next(iterators[i], None)
            if element is not None:
                yield element
            elif self._stop:
                return
            else:
                weights[i] = 0.0

    def _cardinality(self):
        counts = [d._cardinality() for d in self._datasets]
        if all(c == INFINITE_CARDINALITY for c in counts):
            return INFINITE_CARDINALITY
        return UNKNOWN_CARDINALITY

    def _element_spec(self):
        return self._spec_of_elements


class ChooseDataset(Dataset):
    """Elements taken from datasets[i] for each i that choice_dataset yields."""

    def __init__(self, datasets, choice_dataset, stop_on_empty):
        self._datasets = list(datasets)
        self._spec_of_elements = _common_spec(self._datasets, "choose_from_datasets")
        if not isinstance(choice_dataset, Dataset):
            raise TypeError("choose_from_datasets: choice_dataset must be a Dataset of int64 scalars")
        spec = choice_dataset.element_spec
        if getattr(spec, "dtype", None) is None or spec.dtype.name != "int64" or len(spec.shape) != 0:
            raise TypeError(f"choose_from_datasets: choice_dataset must yield int64 scalars, got {spec}")
        self._choices = choice_dataset
        self._stop = stop_on_empty

    def _inputs(self):
        return self._datasets + [self._choices]

    def _iterate(self):
        iterators = [d._iterate() for d in self._datasets]
        exhausted = [False] * len(iterators)
        for choice in self._choices._iterate():
            i = int(choice)
            if not 0 <= i < len(iterators):
                raise errors.InvalidArgumentError(f"choose_from_datasets: choice {i} is not in [0, "
                                                  f"{len(iterators)})")
            element = None if exhausted[i] else next(iterators[i], None)
            if element is not None:
                yield element
                continue
            exhausted[i] = True
            if self._stop or all(exhausted):
                return

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _element_spec(self):
        return self._spec_of_elements

"""Batches for fit/evaluate/predict from NumPy arrays (nested in lists/dicts) or an ember.data.Dataset."""

import inspect
import math

import numpy as np

import ember
from ember import nest


def _is_dataset(x):
    from ember.data import Dataset
    return isinstance(x, Dataset)


def _as_array(value):
    arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    return arr.astype(np.float32) if arr.dtype == np.float64 else arr  # Keras standardizes floats to floatx


def is_batch_source(x):
    """True for inputs that yield whole batches: a Dataset, a generator, a PyDataset."""
    return _is_dataset(x) or _is_generator(x) or _is_py_dataset(x)


def _is_generator(x):
    return inspect.isgenerator(x) or (hasattr(x, "__next__") and hasattr(x, "__iter__"))


def _is_py_dataset(x):
    from ember.keras.utils import PyDataset
    return isinstance(x, PyDataset)


def _to_tensors(structure):
    def convert(v):
        if v is None:
            return None
        if isinstance(v, np.ndarray):
            return ember.convert_to_tensor(_as_array(v))
        if hasattr(v, "dtype") and hasattr(v, "shape") and not isinstance(v, np.generic):
            return ember.cast(v, "float32") if v.dtype == ember.float64 else v
        return v
    return nest.map_structure(convert, structure)


def unpack(data):
    """(x, y, sample_weight) from a batch: x, (x,), (x, y) or (x, y, sample_weight)."""
    if isinstance(data, tuple):
        if len(data) == 1:
            return data[0], None, None
        if len(data) == 2:
            return data[0], data[1], None
        if len(data) == 3:
            return data
    return data, None, None


def pack(x, y=None, sample_weight=None):
    """The batch a step receives, as Keras packs it: x (or (x,) when x is a
    tuple or list), (x, y), or (x, y, sample_weight), so `x, y = data` works."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def train_validation_split(arrays, validation_split):
    """Keras' rule: the last ``validation_split`` fraction of the (unshuffled) arrays."""
    flat = [a for a in nest.flatten(arrays) if a is not None]
    n = len(flat[0])
    split = int(math.floor(n * (1.0 - validation_split)))
    if split == 0 or split == n:
        raise ValueError(f"validation_split={validation_split} leaves no training or validation data "
                         f"({n} examples)")
    first = nest.map_structure(lambda a: None if a is None else a[:split], arrays)
    second = nest.map_structure(lambda a: None if a is None else a[split:], arrays)
    return first, second


class DataHandler:
    """``for step, batch in handler.steps()`` once per epoch; ``num_steps`` when known."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None, shuffle=False):
        self.steps_per_epoch = steps_per_epoch
        self._iterator = None
        self._source = None
        if is_batch_source(x):
            if y is not None:
                raise ValueError("`y` must be None when `x` is a dataset or generator (it yields (x, y))")
            self._source = x
            if _is_dataset(x):
                cardinality = int(x.cardinality().numpy())
                known = cardinality if cardinality >= 0 else None
            else:
                known = len(x) if _is_py_dataset(x) else None
            self.num_steps = steps_per_epoch if steps_per_epoch is not None else known
            return
        self._data = nest.map_structure(lambda a: None if a is None else _as_array(a), (x, y, sample_weight))
        flat = [a for a in nest.flatten(self._data) if a is not None]
        self._n = len(flat[0])
        if any(len(a) != self._n for a in flat):
            raise ValueError(f"Data cardinality is ambiguous: arrays of lengths {sorted({len(a) for a in flat})}")
        self.batch_size = batch_size or 32
        self.shuffle = shuffle
        full = int(math.ceil(self._n / self.batch_size))
        self.num_steps = full if steps_per_epoch is None else steps_per_epoch
        self._position = 0
        self._order = None

    def steps(self):
        if self._source is not None:
            yield from self._source_steps()
            return
        for step in range(self.num_steps):
            if self._order is None or self._position >= self._n:
                self._order = np.random.permutation(self._n) if self.shuffle else np.arange(self._n)
                self._position = 0
            idx = self._order[self._position:self._position + self.batch_size]
            self._position += self.batch_size
            if self.steps_per_epoch is None and self._position >= self._n:
                self._order = None  # the next epoch starts a new pass
            batch = nest.map_structure(lambda a: None if a is None else a[idx], self._data)
            x, y, sw = _to_tensors(batch)
            yield step, (x, y, sw)

    def _new_iterator(self):
        if _is_py_dataset(self._source):
            return (self._source[i] for i in range(len(self._source)))
        return iter(self._source)  # a generator gives itself: it cannot start again

    def _source_steps(self):
        # With steps_per_epoch, an epoch continues where the last one stopped (Keras' rule).
        if self._iterator is None or self.steps_per_epoch is None:
            self._iterator = self._new_iterator()
        step = 0
        while self.steps_per_epoch is None or step < self.steps_per_epoch:
            try:
                element = next(self._iterator)
            except StopIteration:
                if self.steps_per_epoch is not None and step > 0 and not _is_generator(self._source):
                    self._iterator = self._new_iterator()  # a finite dataset repeats to fill the steps
                    continue
                break
            x, y, sw = unpack(element)
            yield step, _to_tensors((x, y, sw))
            step += 1
        if _is_py_dataset(self._source) and hasattr(self._source, "on_epoch_end"):
            self._source.on_epoch_end()


def apply_class_weight(batch, class_weight):
    """Multiplies a batch's sample weights by the weight of each example's class
    (the label, or the argmax of a one-hot row)."""
    x, y, sw = batch
    labels = np.asarray(y.numpy() if hasattr(y, "numpy") else y)
    if labels.ndim > 1 and labels.shape[-1] > 1:
        labels = labels.argmax(-1)
    labels = labels.reshape(len(labels), -1)[:, 0].astype(np.int64)
    weights = np.array([class_weight.get(int(c), 1.0) for c in labels], np.float32)
    if sw is not None:
        weights = weights * np.asarray(sw.numpy() if hasattr(sw, "numpy") else sw, np.float32).reshape(-1)
    return x, y, ember.convert_to_tensor(weights)

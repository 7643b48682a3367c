"""ember.data.Dataset: an input pipeline with tf.data's everyday API.

A dataset is an immutable description: a source, or a transformation of
other datasets. Iterating it asks the last stage for a fresh Python
iterator of elements, which pulls from its inputs' iterators on the
consumer's thread; a prefetch stage moves its input onto a background
thread. The stages live in _sources.py, _transforms.py, _batching.py,
_shuffle.py and _prefetch.py; docs/data.md lists what differs from
tf.data.
"""

import abc

import numpy as np

from ember._checks import check_int, safe_repr
from ember._creation import convert_to_tensor
from ember.data import _structure
from ember.device import device as _device

# tf.data's sentinels: AUTOTUNE for buffer sizes and parallelism, and the
# two cardinalities that are not counts.
AUTOTUNE = -1
INFINITE_CARDINALITY = -1


_HOST_DEVICE = _device("cpu:0")  # one scope object: entering it keeps no state of its own


def host_device():
    """The scope a dataset's elements are made under (Note [Input pipelines on the CPU] in _iterator.py)."""
    return _HOST_DEVICE
UNKNOWN_CARDINALITY = -2


def check_parallelism(value, func, arg):
    """num_parallel_calls: None, AUTOTUNE or a positive int (accepted; the stages run serially)."""
    if value is None:
        return None
    value = check_int(value, func, arg)
    if value != AUTOTUNE and value < 1:
        raise ValueError(f"{func}: {arg} must be positive or ember.data.AUTOTUNE, got {value}")
    return value


def check_count(value, func, arg):
    """A take/skip/repeat count: an int, or an integer scalar tensor; -1 means all or forever."""
    return check_int(value, func, arg, minimum=-1)


class Dataset(abc.ABC):
    """A sequence of elements, each a tensor or a nested tuple or dict of tensors (``tf.data.Dataset``).

    Make one with ``from_tensor_slices``, ``from_tensors``, ``range``,
    ``from_generator`` or ``zip``; transformations (``map``, ``batch``, ``shuffle``, ...) return
    new datasets. Iterate it with ``for element in dataset`` (each loop is
    a new pass over the data) or ``as_numpy_iterator()``.
    """

    _spec = None

    # --- What each stage defines -------------------------------------------

    @abc.abstractmethod
    def _iterate(self):
        """A new Python iterator over the elements (structures of tensors)."""

    @abc.abstractmethod
    def _cardinality(self):
        """The number of elements, INFINITE_CARDINALITY or UNKNOWN_CARDINALITY, as an int."""

    @abc.abstractmethod
    def _element_spec(self):
        """The element structure with a TensorSpec per component."""

    def _inputs(self):
        """The datasets this one reads."""
        return []

    # --- Properties and iteration -------------------------------------------

    @property
    def element_spec(self):
        """The structure of an element, with an ``ember.TensorSpec`` for each component.

        Batched dims are None unless ``drop_remainder=True``. For ``map`` and
        the stages after it this traces the map function once, on specs, as
        tf.data does when ``map`` is called.
        """
        if self._spec is None:
            self._spec = self._element_spec()
        return self._spec

    def __iter__(self):
        return _iterator.Iterator(self)

    def cardinality(self):
        """The number of elements as an int64 scalar tensor; ``ember.data.INFINITE_CARDINALITY``
        (-1) for an infinite dataset and ``ember.data.UNKNOWN_CARDINALITY`` (-2) when it is not
        known without iterating (after ``filter``, say)."""
        return convert_to_tensor(np.int64(self._cardinality()))

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True  # as in TensorFlow: __len__ must not decide truth (it may raise)

    def as_numpy_iterator(self):
        """An iterator of the elements with each component a NumPy value (a writable copy;
        scalars as NumPy scalars), keeping tuples and dicts."""
        for element in self:
            yield _structure.map_components(_to_numpy, element)

    def reduce(self, initial_state, reduce_func, name=None):
        """Folds the elements into a state: ``state = reduce_func(state, element)`` for each
        element, starting from ``initial_state``; returns the final state (``tf.data``'s
        ``reduce``). The state keeps its structure; its components become tensors."""
        del name
        if not callable(reduce_func):
            raise TypeError(f"reduce: reduce_func must be callable, got {safe_repr(reduce_func)}")
        state = _structure.normalize_output(initial_state, "reduce")
        for element in self:
            state = _structure.normalize_output(reduce_func(state, element), "reduce")
        return state

    def get_single_element(self, name=None):
        """The only element of a dataset with exactly one element; ValueError otherwise."""
        del name
        iterator = iter(self)
        try:
            element = next(iterator)
        except StopIteration:
            raise ValueError("get_single_element: the dataset is empty") from None
        try:
            next(iterator)
        except StopIteration:
            return element
        raise ValueError("get_single_element: the dataset has more than one element")

    def __repr__(self):
        try:
            spec = self.element_spec
        except Exception:  # noqa: BLE001 - a repr must not raise; the spec's error shows on use
            spec = "?"
        return f"<{type(self).__name__} element_spec={spec}>"

    # --- Sources --------------------------------------------------------------

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """One element per row of ``tensors``: a tensor, or a tuple or dict of tensors whose
        first dims agree (``from_tensor_slices((x, y))`` yields ``(x[i], y[i])``)."""
        del name
        return _sources.TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset with ``tensors`` (a tensor or a tuple or dict of them) as its only element."""
        del name
        return _sources.TensorDataset(tensors)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        """Elements from a Python generator: ``generator(*args)`` is called at the start of each
        pass and each value it yields is converted to ``output_signature`` (an
        ``ember.TensorSpec`` or a tuple or dict of them; or ``output_types`` with
        ``output_shapes``). A value of the wrong structure, dtype or shape raises."""
        del name
        return _sources.GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def range(*args, output_type=None, name=None):  # noqa: A003 - tf.data's name
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)`` as scalars of
        ``output_type`` (int64 by default), like Python's range."""
        del name
        return _sources.RangeDataset(args, output_type)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Elements of several datasets side by side: ``zip(a, b)`` yields ``(a_i, b_i)``; a
        tuple or dict of datasets yields tuples or dicts. Stops at the shortest."""
        del name
        if datasets is not None:
            if args:
                raise TypeError("zip: give the datasets either as arguments or as datasets=, not both")
            structure = datasets
        elif len(args) == 1:
            structure = args[0]
        elif args:
            structure = tuple(args)
        else:
            raise TypeError("zip: needs at least one dataset")
        return _sources.ZipDataset(structure)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The files matching ``file_pattern`` (a glob or a list of globs) as scalar strings,
        shuffled each pass (by ``seed``) unless ``shuffle=False``, else sorted."""
        return _files.list_files(file_pattern, shuffle, seed, name)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements drawn at random from ``datasets`` with probabilities ``weights`` (uniform by
        default). An exhausted dataset drops out (or ends everything with
        ``stop_on_empty_dataset``). The choices follow ``seed`` and the global seed as shuffle's do."""
        return _combinators.SampleDataset(datasets, weights, seed, bool(stop_on_empty_dataset),
                                          bool(rerandomize_each_iteration))

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """For each int64 ``i`` of ``choice_dataset``, the next element of ``datasets[i]``; an
        exhausted dataset ends the result (or is skipped, without ``stop_on_empty_dataset``)."""
        return _combinators.ChooseDataset(datasets, choice_dataset, bool(stop_on_empty_dataset))

    # --- Transformations ------------------------------------------------------

    def flat_map(self, map_func, name=None):
        """``map_func`` makes a dataset from each element; their elements, one dataset after another."""
        del name
        return _combinators.FlatMapDataset(self, _transforms._check_callable(map_func, "flat_map", "map_func"))

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        """``map_func`` makes a dataset from each element; ``cycle_length`` of them (the CPU count by
        default) are read in turn, ``block_length`` (1) elements at a time, and each one that ends is
        replaced by the next element's dataset, as tf.data does. ``num_parallel_calls`` is accepted;
        reading is serial and in that order."""
        del deterministic, name
        check_parallelism(num_parallel_calls, "interleave", "num_parallel_calls")
        if cycle_length is not None and cycle_length != AUTOTUNE:
            cycle_length = check_int(cycle_length, "interleave", "cycle_length", minimum=1)
        block = 1 if block_length is None else check_int(block_length, "interleave", "block_length", minimum=1)
        return _combinators.InterleaveDataset(self, _transforms._check_callable(map_func, "interleave", "map_func"),
                                              cycle_length, block)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of ``size`` elements (``stride`` apart) starting every ``shift`` (``size``) elements,
        each a dataset (a tuple or dict of datasets for structured elements); the last windows are
        shorter unless ``drop_remainder``."""
        del name
        size = check_int(size, "window", "size", minimum=1)
        shift = size if shift is None else check_int(shift, "window", "shift", minimum=1)
        stride = check_int(stride, "window", "stride", minimum=1)
        return _combinators.WindowDataset(self, size, shift, stride, bool(drop_remainder))

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at element ``index``."""
        del name
        num_shards = check_int(num_shards, "shard", "num_shards", minimum=1)
        index = check_int(index, "shard", "index", minimum=0)
        if index >= num_shards:
            raise ValueError(f"shard: index must be in [0, num_shards={num_shards}), got {index}")
        return _combinators.ShardDataset(self, num_shards, index)

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then ``dataset``'s; their element specs must be compatible
        (same structure and dtypes; dims that differ become None)."""
        del name
        return _sources.ConcatenateDataset(self, dataset)

    def cache(self, filename="", name=None):
        """Keeps the elements of the first complete pass in memory and replays them on later
        passes (the input runs once). Only the in-memory cache (``filename=""``) exists."""
        del name
        if filename != "":
            raise NotImplementedError("cache: only the in-memory cache (filename='') is supported")
        return _transforms.CacheDataset(self)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None,
            use_unbounded_threadpool=False, name=None):
        """Applies ``map_func`` to each element; a tuple element is passed as separate
        arguments (``map(lambda x, y: ...)``), anything else as one. The function may be a
        Python function or an ``@ember.function``; it runs eagerly, once per element.
        ``num_parallel_calls`` and ``deterministic`` are accepted and checked, and elements
        are mapped one at a time, in order."""
        del deterministic, synchronous, use_unbounded_threadpool, name
        check_parallelism(num_parallel_calls, "map", "num_parallel_calls")
        return _transforms.MapDataset(self, map_func)

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` (called like ``map``'s function) returns a
        scalar bool tensor or Python bool that is true."""
        del name
        return _transforms.FilterDataset(self, predicate)

    def enumerate(self, start=0, name=None):
        """``(index, element)`` pairs with int64 indices counting from ``start``."""
        del name
        return _transforms.EnumerateDataset(self, check_int(start, "enumerate", "start"))

    def take(self, count, name=None):
        """The first ``count`` elements (all of them for -1)."""
        del name
        return _transforms.TakeDataset(self, check_count(count, "take", "count"))

    def skip(self, count, name=None):
        """All but the first ``count`` elements (none of them for -1)."""
        del name
        return _transforms.SkipDataset(self, check_count(count, "skip", "count"))

    def repeat(self, count=None, name=None):
        """The elements ``count`` times over (forever for None or -1); each pass is a new
        iteration of this dataset, so a ``shuffle`` before it reshuffles per pass. An input
        that yields nothing in a pass ends the repetition."""
        del name
        count = -1 if count is None else check_count(count, "repeat", "count")
        return _transforms.RepeatDataset(self, count)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None,
              name=None):
        """Stacks ``batch_size`` consecutive elements into one, component by component. The
        last batch is smaller unless ``drop_remainder`` drops it. Elements of a batch must
        have equal shapes (see ``padded_batch``)."""
        del deterministic, name
        check_parallelism(num_parallel_calls, "batch", "num_parallel_calls")
        return _batching.BatchDataset(self, check_int(batch_size, "batch", "batch_size", minimum=1),
                                      bool(drop_remainder))

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False,
                     name=None):
        """``batch`` for elements whose shapes differ: each component is padded to
        ``padded_shapes`` (a shape per component; None or -1 dims, and the default, pad to
        the longest in the batch) with ``padding_values`` (0 by default; one scalar for all
        components or one per component)."""
        del name
        return _batching.PaddedBatchDataset(
            self, check_int(batch_size, "padded_batch", "batch_size", minimum=1), padded_shapes,
            padding_values, bool(drop_remainder))

    def unbatch(self, name=None):
        """Splits each element into its rows along the first dim (the inverse of ``batch``)."""
        del name
        return _batching.UnbatchDataset(self)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        """Shuffles with a buffer of ``buffer_size`` elements, as tf.data does: fill the
        buffer, then repeatedly emit a uniformly chosen buffered element and put the next
        input element in its place. A buffer as large as the dataset gives a uniform
        permutation; 1 keeps the order.

        The order is a function of ``seed`` and the global seed
        (``ember.random.set_seed``), following tf.random's rule; with neither,
        it differs from run to run. ``reshuffle_each_iteration`` (default
        True) gives each pass over the dataset a new order, deterministically
        for a seeded dataset; with False every pass has the first pass's order.
        """
        del name
        size = check_int(buffer_size, "shuffle", "buffer_size")
        if size < 1 and size != UNKNOWN_CARDINALITY:
            raise ValueError(f"shuffle: buffer_size must be greater than zero or "
                             f"ember.data.UNKNOWN_CARDINALITY (the whole dataset), got {size}")
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        return _shuffle.ShuffleDataset(self, size, seed, reshuffle)

    def prefetch(self, buffer_size, name=None):
        """Computes up to ``buffer_size`` elements ahead on a background thread, so the input
        pipeline runs while the consumer computes. ``ember.data.AUTOTUNE`` picks a small
        buffer (2); 0 prefetches nothing. Errors reach the consumer at the element where they
        happened; the thread stops when the iterator is exhausted or dropped."""
        del name
        return _prefetch.PrefetchDataset(self, check_int(buffer_size, "prefetch", "buffer_size", minimum=-1))


def _to_numpy(tensor):
    value = np.array(tensor)
    return value[()] if value.ndim == 0 else value


# The stages subclass Dataset, so they are imported after it.
class UnaryDataset(Dataset):
    """A stage that reads one input dataset. Its elements keep the input's
    structure unless the stage says otherwise (map, batch, enumerate, ...)."""

    def __init__(self, input_dataset):
        self._input = input_dataset

    def _inputs(self):
        return [self._input]

    def _element_spec(self):
        return self._input.element_spec


# Dataset's methods build the datasets of these modules, which import this one: loaded last.
from ember.data import (  # noqa: E402
    _batching, _combinators, _files, _iterator, _prefetch, _shuffle, _sources, _transforms)

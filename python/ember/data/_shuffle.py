"""Dataset.shuffle: tf.data's buffered shuffle, with its seed rules.

Note [Shuffle seeds]: the dataset takes one seed pair when it is made
(_random._dataset_seed: from the op seed and the global seed, or the global
generator's next draw). Pass number e over the dataset (a new iterator, or
the next pass of a repeat after it) draws its random indices from a NumPy
PCG64 stream seeded with (pair, e), so a seeded pipeline gives the same
orders in every run, each pass its own with reshuffle_each_iteration, the
same one every pass (e = 0) without it.
"""

import itertools
import threading

import numpy as np

from ember import _random
from ember.data._dataset import UNKNOWN_CARDINALITY, UnaryDataset

_MASK64 = (1 << 64) - 1


class ShuffleDataset(UnaryDataset):
    def __init__(self, input_dataset, buffer_size, seed, reshuffle):
        super().__init__(input_dataset)
        self._buffer_size = buffer_size  # UNKNOWN_CARDINALITY: the whole input
        self._reshuffle = reshuffle
        self._seed = [s & _MASK64 for s in _random._dataset_seed(seed, "shuffle")]
        self._passes = itertools.count()
        self._lock = threading.Lock()

    @property
    def reshuffles(self):
        """True if each pass has a new order (so a trace cannot unroll it)."""
        return self._reshuffle

    def _rng(self):
        with self._lock:
            epoch = next(self._passes) if self._reshuffle else 0
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence(self._seed + [epoch])))

    def _iterate(self):
        rng = self._rng()
        elements = self._input._iterate()
        limit = None if self._buffer_size == UNKNOWN_CARDINALITY else self._buffer_size
        buffer = list(itertools.islice(elements, limit))
        # Emit a uniformly chosen buffered element; refill its slot from the input,
        # or once the input is done, with the last element (Note [Shuffle seeds]).
        while buffer:
            i = int(rng.integers(len(buffer)))
            element = buffer[i]
            try:
                buffer[i] = next(elements)
            except StopIteration:
                buffer[i] = buffer[-1]
                buffer.pop()
            yield element

    def _cardinality(self):
        return self._input._cardinality()

"""keras.utils: to_categorical, normalize, set_random_seed, get_file and Progbar."""

import numpy as _np

from ember.keras.datasets import get_file
from ember.keras.engine.progbar import Progbar


def to_categorical(x, num_classes=None):
    """One-hot rows (float32) for integer class labels; a trailing dim of 1 is dropped first."""
    x = _np.asarray(x, dtype="int64")
    shape = x.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    x = x.reshape(-1)
    if x.size and x.min() < 0:
        raise ValueError("to_categorical: class labels must be >= 0")
    num_classes = int(x.max()) + 1 if num_classes is None else int(num_classes)
    out = _np.zeros((x.size, num_classes), dtype=_np.float32)
    out[_np.arange(x.size), x] = 1.0
    return out.reshape(shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    x = _np.asarray(x, dtype=_np.float32)
    norm = _np.linalg.norm(x, ord=order, axis=axis, keepdims=True)
    return x / _np.where(norm == 0, 1, norm)


def set_random_seed(seed):
    """Seeds Python's, NumPy's and Ember's random generators."""
    import random

    import ember
    random.seed(seed)
    _np.random.seed(seed)
    ember.random.set_seed(seed)


class PyDataset:
    """Keras' PyDataset: subclass with ``__len__`` (batches per epoch) and
    ``__getitem__(i)`` returning batch i as (x, y) or (x, y, sample_weight);
    ``on_epoch_end`` runs after each epoch. Batches are read in order on
    the calling thread (workers and multiprocessing are accepted, not used)."""

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self.workers, self.use_multiprocessing, self.max_queue_size = workers, use_multiprocessing, max_queue_size

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def on_epoch_end(self):
        pass


__all__ = ["to_categorical", "normalize", "set_random_seed", "get_file", "Progbar", "PyDataset"]

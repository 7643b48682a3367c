"""Preprocessing layers: Normalization, with statistics from adapt() or given."""

import numpy as np

import ember
from ember.keras.engine.layer import Layer, ShapeOnly


class Normalization(Layer):
    """(inputs - mean) / max(sqrt(variance), 1e-7), per feature along ``axis``
    (default the last). ``adapt(data)`` computes mean and variance from NumPy
    data or an ember.data.Dataset of batches; or pass ``mean`` and
    ``variance``. ``invert=True`` maps normalized values back."""

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        self.axis = () if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
        if (mean is None) != (variance is None):
            raise ValueError("Normalization: give both mean and variance, or neither")
        self.input_mean, self.input_variance, self.invert = mean, variance, invert

    def _stat_shape(self, input_shape):
        rank = len(input_shape)
        axes = [a % rank for a in self.axis]
        return tuple(input_shape[a] if a in axes else 1 for a in range(rank)), axes

    def build(self, input_shape):
        shape, self._axes = self._stat_shape(tuple(input_shape))
        self.adapt_mean = self.add_weight(shape=shape[1:], initializer="zeros", trainable=False, name="mean")
        self.adapt_variance = self.add_weight(shape=shape[1:], initializer="ones", trainable=False, name="variance")
        if self.input_mean is not None:
            self.adapt_mean.assign(np.broadcast_to(np.asarray(self.input_mean, np.float32), shape[1:]))
            self.adapt_variance.assign(np.broadcast_to(np.asarray(self.input_variance, np.float32), shape[1:]))
        self.built = True

    def adapt(self, data, batch_size=None, steps=None):
        from ember.data import Dataset
        if isinstance(data, Dataset):
            parts = [np.asarray(b.numpy() if hasattr(b, "numpy") else b) for b in data]
            data = np.concatenate(parts, axis=0)
        data = np.asarray(data.numpy() if hasattr(data, "numpy") else data, np.float64)
        if not self.built:
            self._maybe_build(ShapeOnly((None,) + data.shape[1:]))
        reduce = tuple(a for a in range(data.ndim) if a not in [x % data.ndim for x in self.axis])
        self.adapt_mean.assign(data.mean(axis=reduce, keepdims=True)[0].astype(np.float32))
        self.adapt_variance.assign(data.var(axis=reduce, keepdims=True)[0].astype(np.float32))

    def call(self, inputs):
        mean, variance = self.adapt_mean.read_value(), self.adapt_variance.read_value()
        std = ember.maximum(ember.sqrt(variance), 1e-7)
        if self.invert:
            return inputs * std + mean
        return (inputs - mean) / std

    def get_config(self):
        def plain(v):
            return None if v is None else np.asarray(v).tolist()
        return {**super().get_config(), "axis": list(self.axis), "mean": plain(self.input_mean),
                "variance": plain(self.input_variance), "invert": self.invert}


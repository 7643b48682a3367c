"""Pooling layers: Max/AveragePooling1D/2D/3D and the global average/max poolings."""

import numpy as np

import ember
from ember import nn
from ember.keras.engine.layer import Layer
from ember.keras.layers.conv import _to_channels_first, _to_channels_last, _tuple


class _Pool(Layer):
    rank = 2
    kind = "max"

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        n = self.rank
        self.pool_size = _tuple(pool_size, n, "pool_size")
        self.strides = self.pool_size if strides is None else _tuple(strides, n, "strides")
        self.padding = padding.lower()
        if self.padding not in ("valid", "same"):
            raise ValueError(f"{type(self).__name__}: padding must be 'valid' or 'same', got {padding!r}")
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        first = self.data_format == "channels_first"
        x = _to_channels_last(inputs, self.rank) if first else inputs
        ksize, strides = [1, *self.pool_size, 1], [1, *self.strides, 1]
        op = {(1, "max"): nn.max_pool1d, (1, "avg"): nn.avg_pool1d, (2, "max"): nn.max_pool2d,
              (2, "avg"): nn.avg_pool2d, (3, "max"): nn.max_pool3d, (3, "avg"): nn.avg_pool3d}[self.rank, self.kind]
        y = op(x, ksize, strides, self.padding.upper())
        return _to_channels_first(y, self.rank) if first else y

    def get_config(self):
        return {**super().get_config(), "pool_size": list(self.pool_size), "strides": list(self.strides),
                "padding": self.padding, "data_format": self.data_format}


class MaxPooling1D(_Pool):
    rank, kind = 1, "max"


class AveragePooling1D(_Pool):
    rank, kind = 1, "avg"


class MaxPooling2D(_Pool):
    rank, kind = 2, "max"

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling2D(_Pool):
    rank, kind = 2, "avg"

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling3D(_Pool):
    rank, kind = 3, "max"

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling3D(_Pool):
    rank, kind = 3, "avg"

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class _GlobalPool(Layer):
    rank = 2
    kind = "avg"

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        self.keepdims = keepdims

    def call(self, inputs, mask=None):
        axes = list(range(1, self.rank + 1)) if self.data_format == "channels_last" else list(
            range(2, self.rank + 2))
        if mask is not None and self.rank == 1 and self.data_format == "channels_last":
            # Only the unmasked steps count (a [batch, steps] mask from Embedding or an RNN).
            m = ember.expand_dims(ember.cast(mask, inputs.dtype), -1)
            if self.kind == "avg":
                total = ember.reduce_sum(inputs * m, axis=axes, keepdims=self.keepdims)
                return total / ember.maximum(ember.reduce_sum(m, axis=axes, keepdims=self.keepdims), 1.0)
            lowest = float(np.finfo(inputs.dtype.as_numpy_dtype).min)
            masked = ember.where(ember.cast(m * ember.ones_like(inputs), "bool"), inputs,
                                 ember.fill(ember.shape(inputs), lowest))
            return ember.reduce_max(masked, axis=axes, keepdims=self.keepdims)
        reduce = ember.reduce_mean if self.kind == "avg" else ember.reduce_max
        return reduce(inputs, axis=axes, keepdims=self.keepdims)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class GlobalAveragePooling1D(_GlobalPool):
    rank, kind = 1, "avg"


class GlobalMaxPooling1D(_GlobalPool):
    rank, kind = 1, "max"


class GlobalAveragePooling2D(_GlobalPool):
    rank, kind = 2, "avg"


class GlobalMaxPooling2D(_GlobalPool):
    rank, kind = 2, "max"


class GlobalAveragePooling3D(_GlobalPool):
    rank, kind = 3, "avg"


class GlobalMaxPooling3D(_GlobalPool):
    rank, kind = 3, "max"


# Keras' short aliases.
MaxPool1D, MaxPool2D, AvgPool1D, AvgPool2D = MaxPooling1D, MaxPooling2D, AveragePooling1D, AveragePooling2D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D
MaxPool3D, AvgPool3D, GlobalAvgPool3D, GlobalMaxPool3D = (MaxPooling3D, AveragePooling3D, GlobalAveragePooling3D,
                                                          GlobalMaxPooling3D)

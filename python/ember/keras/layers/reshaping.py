"""Reshaping layers: UpSampling1D/2D, ZeroPadding1D/2D, Cropping1D/2D, RepeatVector, Permute (channels_last)."""

import ember
from ember.keras.engine.layer import Layer


def _pairs(value, n):
    # An int, n ints, or n (before, after) pairs -> n (before, after) pairs.
    if isinstance(value, int):
        return [(value, value)] * n
    value = list(value)
    if all(isinstance(v, int) for v in value):
        if len(value) == n:
            return [(v, v) for v in value]
        if n == 1 and len(value) == 2:
            return [tuple(value)]
    elif len(value) == n and all(len(v) == 2 for v in value):
        return [tuple(int(a) for a in v) for v in value]
    raise ValueError(f"expected an int, {n} ints or {n} (before, after) pairs, got {value!r}")


class UpSampling1D(Layer):
    """Repeats each step ``size`` times."""

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)

    def call(self, inputs):
        _, t, c = inputs.shape
        x = ember.tile(ember.expand_dims(inputs, 2), [1, 1, self.size, 1])
        return ember.reshape(x, [-1, t * self.size, c])

    def get_config(self):
        return {**super().get_config(), "size": self.size}


class UpSampling2D(Layer):
    """Repeats rows and columns (``interpolation="nearest"``, or "bilinear" through ember.image.resize)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = (size, size) if isinstance(size, int) else tuple(int(s) for s in size)
        if (data_format or "channels_last") != "channels_last":
            raise NotImplementedError("UpSampling2D: only channels_last is supported")
        self.data_format, self.interpolation = "channels_last", interpolation

    def call(self, inputs):
        _, h, w, c = inputs.shape
        sh, sw = self.size
        if self.interpolation == "bilinear":
            return ember.image.resize(inputs, [h * sh, w * sw], method="bilinear")
        x = ember.reshape(inputs, [-1, h, 1, w, 1, c])
        x = ember.tile(x, [1, 1, sh, 1, sw, 1])
        return ember.reshape(x, [-1, h * sh, w * sw, c])

    def get_config(self):
        return {**super().get_config(), "size": list(self.size), "data_format": self.data_format,
                "interpolation": self.interpolation}


class ZeroPadding1D(Layer):
    def __init__(self, padding=1, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 1)[0]

    def call(self, inputs):
        return ember.pad(inputs, [[0, 0], list(self.padding), [0, 0]])

    def get_config(self):
        return {**super().get_config(), "padding": list(self.padding)}


class ZeroPadding2D(Layer):
    """Pads rows and columns with zeros: an int, (rows, cols), or ((top, bottom), (left, right))."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 2)
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        (t, b), (l, r) = self.padding
        if self.data_format == "channels_first":
            return ember.pad(inputs, [[0, 0], [0, 0], [t, b], [l, r]])
        return ember.pad(inputs, [[0, 0], [t, b], [l, r], [0, 0]])

    def get_config(self):
        return {**super().get_config(), "padding": [list(p) for p in self.padding], "data_format": self.data_format}


class Cropping1D(Layer):
    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 1)[0]

    def call(self, inputs):
        a, b = self.cropping
        return inputs[:, a:inputs.shape[1] - b, :]

    def get_config(self):
        return {**super().get_config(), "cropping": list(self.cropping)}


class Cropping2D(Layer):
    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, 2)
        if (data_format or "channels_last") != "channels_last":
            raise NotImplementedError("Cropping2D: only channels_last is supported")

    def call(self, inputs):
        (t, b), (l, r) = self.cropping
        return inputs[:, t:inputs.shape[1] - b, l:inputs.shape[2] - r, :]

    def get_config(self):
        return {**super().get_config(), "cropping": [list(p) for p in self.cropping]}


class RepeatVector(Layer):
    """[batch, features] -> [batch, n, features]."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = int(n)

    def call(self, inputs):
        return ember.tile(ember.expand_dims(inputs, 1), [1, self.n, 1])

    def get_config(self):
        return {**super().get_config(), "n": self.n}


class Permute(Layer):
    """Permutes the non-batch dims; ``dims`` counts from 1."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)

    def call(self, inputs):
        return ember.transpose(inputs, [0] + list(self.dims))

    def get_config(self):
        return {**super().get_config(), "dims": list(self.dims)}

"""Merging layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate."""

import ember
from ember.keras.engine.layer import Layer


class _Merge(Layer):
    def _merge(self, a, b):
        raise NotImplementedError

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"{type(self).__name__}: expected a list of at least 2 inputs")
        out = inputs[0]
        for x in inputs[1:]:
            out = self._merge(out, x)
        return out


class Add(_Merge):
    def _merge(self, a, b):
        return a + b


class Subtract(_Merge):
    def call(self, inputs):
        if len(inputs) != 2:
            raise ValueError("Subtract: expected exactly 2 inputs")
        return inputs[0] - inputs[1]


class Multiply(_Merge):
    def _merge(self, a, b):
        return a * b


class Maximum(_Merge):
    def _merge(self, a, b):
        return ember.maximum(a, b)


class Minimum(_Merge):
    def _merge(self, a, b):
        return ember.minimum(a, b)


class Average(_Merge):
    def call(self, inputs):
        return super().call(inputs) * (1.0 / len(inputs))

    def _merge(self, a, b):
        return a + b


class Concatenate(Layer):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return ember.concat(list(inputs), axis=self.axis)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}

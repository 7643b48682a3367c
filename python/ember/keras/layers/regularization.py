"""Regularization layers: SpatialDropout1D/2D, GaussianNoise, GaussianDropout (active only when training)."""

import math

import ember
from ember import nn
from ember.keras.engine.layer import Layer


class _SpatialDropout(Layer):
    rank = 1

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate < 1:
            raise ValueError(f"{type(self).__name__}: rate must be in [0, 1), got {rate}")
        self.rate, self.seed = float(rate), seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        # One draw per example and channel, shared over the steps or pixels (the batch
        # dim is concrete here: a traced step sees the batch's real shape).
        shape = list(inputs.shape)
        noise = [shape[0]] + [1] * self.rank + [shape[-1]]
        return nn.dropout(inputs, self.rate, noise_shape=noise)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class SpatialDropout1D(_SpatialDropout):
    rank = 1


class SpatialDropout2D(_SpatialDropout):
    rank = 2


class GaussianNoise(Layer):
    """Adds zero-mean Gaussian noise of ``stddev`` when training."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.stddev, self.seed = float(stddev), seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if not training or self.stddev == 0:
            return inputs
        return inputs + ember.random.normal(list(inputs.shape), stddev=self.stddev, dtype=inputs.dtype)

    def get_config(self):
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


class GaussianDropout(Layer):
    """Multiplies by Gaussian noise of mean 1 and stddev sqrt(rate / (1 - rate)) when training."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.seed = float(rate), seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        return inputs * ember.random.normal(list(inputs.shape), mean=1.0, stddev=stddev, dtype=inputs.dtype)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}

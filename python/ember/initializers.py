"""ember.initializers: Keras' weight initializers (``tf.keras.initializers``).

Each is called with a shape and a dtype and returns a tensor. A seeded
initializer owns a random Generator made from its seed, so two
initializers built with the same seed give the same sequence of values,
and each call gives the next values of that sequence (Keras 3's rule).
Without a seed the global generator is used (``ember.random.set_seed``
makes that reproducible too). The random values come from the stateless
random ops, so they are the same on every device and thread count.
"""

import math as _math

import numpy as _np

from ember import _random
from ember._creation import convert_to_tensor as _convert_to_tensor
from ember.dtypes import as_dtype as _as_dtype, float32 as _float32
from ember._generated.ops import broadcast_to as _broadcast_to, ones as _ones, zeros as _zeros

# Keras' truncated-normal correction: the stddev of a unit normal truncated
# to [-2, 2] is 0.87962566103423978, so dividing by it restores the scale.
_TRUNCATED_STDDEV = 0.87962566103423978


def _fans(shape):
    """(fan_in, fan_out) of a weight of this shape, Keras' rule: a dense
    [in, out] kernel, or a conv kernel [..spatial.., in, out]."""
    shape = tuple(int(d) for d in shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = int(_np.prod(shape[:-2], dtype=_np.int64)) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Base class: ``initializer(shape, dtype=None)`` returns a tensor."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class _Random(Initializer):
    def __init__(self, seed=None):
        if seed is not None and not isinstance(seed, (int, _np.integer)):
            raise TypeError(f"{type(self).__name__}: seed must be an int or None, got {seed!r}")
        self.seed = None if seed is None else int(seed)
        self._generator = None if seed is None else _random.Generator.from_seed(self.seed)

    def _draw(self, kind, shape, dtype, **params):
        dtype = _float_dtype(dtype, type(self).__name__)
        source = self._generator if self._generator is not None else _random
        return getattr(source, kind)(list(shape), dtype=dtype, **params)

    def get_config(self):
        return {"seed": self.seed}


def _float_dtype(dtype, who):
    dtype = _float32 if dtype is None else _as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{who}: expected a floating dtype, got {dtype.name}")
    return dtype


class Zeros(Initializer):
    def __call__(self, shape, dtype=None):
        return _zeros(list(shape), dtype=_float32 if dtype is None else dtype)


class Ones(Initializer):
    def __call__(self, shape, dtype=None):
        return _ones(list(shape), dtype=_float32 if dtype is None else dtype)


class Constant(Initializer):
    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None):
        value = _convert_to_tensor(self.value, dtype=_float32 if dtype is None else dtype)
        return _broadcast_to(value, list(shape))

    def get_config(self):
        return {"value": self.value}


class RandomNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = float(mean), float(stddev)

    def __call__(self, shape, dtype=None):
        return self._draw("normal", shape, dtype, mean=self.mean, stddev=self.stddev)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(_Random):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = float(minval), float(maxval)

    def __call__(self, shape, dtype=None):
        return self._draw("uniform", shape, dtype, minval=self.minval, maxval=self.maxval)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class TruncatedNormal(_Random):
    """Normal values more than two standard deviations from the mean are redrawn."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = float(mean), float(stddev)

    def __call__(self, shape, dtype=None):
        return self._draw("truncated_normal", shape, dtype, mean=self.mean, stddev=self.stddev)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class VarianceScaling(_Random):
    """Scale / fan variance: ``mode`` picks the fan ("fan_in", "fan_out",
    "fan_avg"), ``distribution`` the law ("truncated_normal",
    "untruncated_normal", "uniform"), as in Keras."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        super().__init__(seed)
        if scale <= 0:
            raise ValueError(f"VarianceScaling: scale must be positive, got {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"VarianceScaling: mode must be fan_in, fan_out or fan_avg, got {mode!r}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError("VarianceScaling: distribution must be truncated_normal, untruncated_normal or "
                             f"uniform, got {distribution!r}")
        self.scale, self.mode, self.distribution = float(scale), mode, distribution

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = _fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, fan)
        if self.distribution == "uniform":
            limit = _math.sqrt(3.0 * variance)
            return self._draw("uniform", shape, dtype, minval=-limit, maxval=limit)
        if self.distribution == "untruncated_normal":
            return self._draw("normal", shape, dtype, mean=0.0, stddev=_math.sqrt(variance))
        return self._draw("truncated_normal", shape, dtype, mean=0.0,
                          stddev=_math.sqrt(variance) / _TRUNCATED_STDDEV)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed}


class GlorotUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "uniform", seed)

    def get_config(self):
        return {"seed": self.seed}


class GlorotNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)

    def get_config(self):
        return {"seed": self.seed}


class HeNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed)

    def get_config(self):
        return {"seed": self.seed}


class HeUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "uniform", seed)

    def get_config(self):
        return {"seed": self.seed}


class LecunNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "truncated_normal", seed)

    def get_config(self):
        return {"seed": self.seed}


class LecunUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "uniform", seed)

    def get_config(self):
        return {"seed": self.seed}


# Keras' snake_case aliases.
zeros, ones, constant = Zeros, Ones, Constant
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling = VarianceScaling
glorot_uniform, glorot_normal, he_normal, he_uniform = GlorotUniform, GlorotNormal, HeNormal, HeUniform
lecun_normal, lecun_uniform = LecunNormal, LecunUniform

_BY_NAME = {name: cls for name, cls in globals().items()
            if isinstance(cls, type) and issubclass(cls, Initializer) and not name.startswith("_")}


def get(identifier):
    """An initializer from a name ("glorot_uniform"), a config dict, an instance or a callable."""
    if identifier is None or isinstance(identifier, Initializer) or callable(identifier) and not isinstance(
            identifier, type):
        return identifier
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier) or _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError(f"initializers.get: unknown initializer {identifier!r}")
        return cls()
    if isinstance(identifier, dict):
        cls = _BY_NAME.get(identifier.get("class_name", ""))
        if cls is None:
            raise ValueError(f"initializers.get: unknown initializer config {identifier!r}")
        return cls.from_config(identifier.get("config", {}))
    raise ValueError(f"initializers.get: cannot interpret {identifier!r} as an initializer")

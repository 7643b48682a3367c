"""keras.activations: activation functions by name, on ember ops."""

import ember
from ember import nn as _nn


def linear(x):
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return _nn.relu(x)
    y = ember.where(x >= threshold, x, negative_slope * (x - threshold))
    return y if max_value is None else ember.minimum(y, max_value)


def relu6(x):
    return _nn.relu6(x)


def sigmoid(x):
    return ember.sigmoid(x)


def tanh(x):
    return ember.tanh(x)


def softmax(x, axis=-1):
    return _nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return _nn.log_softmax(x, axis=axis)


def softplus(x):
    return _nn.softplus(x)


def softsign(x):
    return x / (1.0 + ember.abs(x))


def elu(x, alpha=1.0):
    return _nn.elu(x) if alpha == 1.0 else ember.where(x > 0, x, alpha * (ember.exp(x) - 1.0))


def selu(x):
    return _nn.selu(x)


def gelu(x, approximate=False):
    return _nn.gelu(x, approximate=approximate)


def silu(x):
    return _nn.silu(x)


swish = silu


def leaky_relu(x, negative_slope=0.2):
    return _nn.leaky_relu(x, alpha=negative_slope)


def exponential(x):
    return ember.exp(x)


def hard_sigmoid(x):
    return ember.clip_by_value(x / 6.0 + 0.5, 0.0, 1.0)


_BY_NAME = {f.__name__: f for f in (linear, relu, relu6, sigmoid, tanh, softmax, log_softmax, softplus, softsign,
                                    elu, selu, gelu, silu, leaky_relu, exponential, hard_sigmoid)}
_BY_NAME["swish"] = silu


def get(identifier):
    """An activation from a name ("relu"), None (linear) or a callable."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"activations.get: unknown activation {identifier!r}")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"activations.get: cannot interpret {identifier!r} as an activation")


def serialize(activation):
    name = getattr(activation, "__name__", None)
    if name in _BY_NAME:
        return name
    raise ValueError(f"activations.serialize: {activation!r} is not a named Keras activation")

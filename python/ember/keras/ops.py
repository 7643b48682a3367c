"""keras.ops: the everyday part of Keras 3's backend-neutral ops (NumPy-style names and arguments) on ember ops."""

import ember
from ember import math as _math
from ember import nn as _nn

# Elementwise ops whose Keras and Ember names and arguments agree.
abs, exp, log, log1p, sqrt, square, sin, cos, tan, tanh, sign, floor, ceil, round = (  # noqa: A001
    ember.abs, ember.exp, ember.log, ember.log1p, ember.sqrt, ember.square, ember.sin, ember.cos, ember.tan,
    ember.tanh, ember.sign, ember.floor, ember.ceil, ember.round)
add, subtract, multiply, divide, maximum, minimum, equal, not_equal = (
    ember.add, ember.subtract, ember.multiply, ember.divide, ember.maximum, ember.minimum, ember.equal,
    ember.not_equal)
greater, greater_equal, less, less_equal = ember.greater, ember.greater_equal, ember.less, ember.less_equal
negative, matmul, einsum, where, cast, stop_gradient = (
    ember.negative, ember.matmul, ember.einsum, ember.where, ember.cast, ember.stop_gradient)
logical_and, logical_or, logical_not = ember.logical_and, ember.logical_or, ember.logical_not
zeros_like, ones_like, expand_dims, reshape = ember.zeros_like, ember.ones_like, ember.expand_dims, ember.reshape
power = ember.pow
true_divide = ember.truediv


def convert_to_tensor(x, dtype=None, sparse=None):
    return ember.convert_to_tensor(x, dtype=dtype)


def convert_to_numpy(x):
    return x.numpy() if hasattr(x, "numpy") else x


def shape(x):
    return tuple(x.shape)


def zeros(shape, dtype=None):
    return ember.zeros(list(shape), dtype=dtype or "float32")


def ones(shape, dtype=None):
    return ember.ones(list(shape), dtype=dtype or "float32")


def arange(start, stop=None, step=1, dtype=None):
    return ember.range(start, stop, step, dtype=dtype)


def sum(x, axis=None, keepdims=False):  # noqa: A001
    return ember.reduce_sum(x, axis=axis, keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    return ember.reduce_mean(x, axis=axis, keepdims=keepdims)


def max(x, axis=None, keepdims=False, initial=None):  # noqa: A001
    return ember.reduce_max(x, axis=axis, keepdims=keepdims)


def min(x, axis=None, keepdims=False, initial=None):  # noqa: A001
    return ember.reduce_min(x, axis=axis, keepdims=keepdims)


def prod(x, axis=None, keepdims=False, dtype=None):
    return ember.reduce_prod(x, axis=axis, keepdims=keepdims)


def var(x, axis=None, keepdims=False):
    return _math.reduce_variance(x, axis=axis, keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    return _math.reduce_std(x, axis=axis, keepdims=keepdims)


def all(x, axis=None, keepdims=False):  # noqa: A001
    return ember.reduce_all(ember.cast(x, "bool"), axis=axis, keepdims=keepdims)


def any(x, axis=None, keepdims=False):  # noqa: A001
    return ember.reduce_any(ember.cast(x, "bool"), axis=axis, keepdims=keepdims)


def logsumexp(x, axis=None, keepdims=False):
    return ember.reduce_logsumexp(x, axis=axis, keepdims=keepdims)


def argmax(x, axis=None, keepdims=False):
    out = ember.argmax(ember.reshape(x, [-1]) if axis is None else x, axis=0 if axis is None else axis)
    return ember.expand_dims(out, axis) if keepdims and axis is not None else out


def argmin(x, axis=None, keepdims=False):
    out = ember.argmin(ember.reshape(x, [-1]) if axis is None else x, axis=0 if axis is None else axis)
    return ember.expand_dims(out, axis) if keepdims and axis is not None else out


def clip(x, x_min, x_max):
    return ember.clip_by_value(x, x_min, x_max)


def concatenate(xs, axis=0):
    return ember.concat(list(xs), axis=axis)


def stack(x, axis=0):
    return ember.stack(list(x), axis=axis)


def split(x, indices_or_sections, axis=0):
    if isinstance(indices_or_sections, int):
        return ember.split(x, indices_or_sections, axis=axis)
    # NumPy's split points -> section sizes.
    points = [0] + list(indices_or_sections) + [x.shape[axis]]
    return ember.split(x, [b - a for a, b in zip(points, points[1:])], axis=axis)


def transpose(x, axes=None):
    return ember.transpose(x, perm=axes)


def squeeze(x, axis=None):
    return ember.squeeze(x, axis=None if axis is None else ([axis] if isinstance(axis, int) else list(axis)))


def tile(x, repeats):
    return ember.tile(x, list(repeats))


def take(x, indices, axis=None):
    if axis is None:
        return ember.gather(ember.reshape(x, [-1]), indices)
    return ember.gather(x, indices, axis=axis)


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    return ember.one_hot(x, num_classes, axis=axis, dtype=dtype or "float32")


def top_k(x, k, sorted=True):  # noqa: A002
    return _math.top_k(x, k=k, sorted=sorted)


def relu(x):
    return _nn.relu(x)


def sigmoid(x):
    return ember.sigmoid(x)


def softmax(x, axis=-1):
    return _nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return _nn.log_softmax(x, axis=axis)


def gelu(x, approximate=True):
    return _nn.gelu(x, approximate=approximate)


def silu(x):
    return _nn.silu(x)


def softplus(x):
    return _nn.softplus(x)


def dot(x1, x2):
    return ember.tensordot(x1, x2, axes=1) if len(x1.shape) > 1 or len(x2.shape) > 1 else ember.reduce_sum(x1 * x2)

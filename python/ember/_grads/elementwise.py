"""Gradients of the element-wise ops (op_defs/elementwise.yaml).

Real dtypes only for now: the complex gradients need a conjugate op.
"""

import math

from ember._generated import ops
from ember._grads._util import unbroadcast, zeros_where_false

# --- Unary ---------------------------------------------------------------


def negative(op, grad):
    return ops.negative(grad)


def abs(op, grad):  # noqa: A001 - the op's name
    return ops.multiply(grad, ops.sign(op.inputs[0]))


def exp(op, grad):
    return ops.multiply(grad, op.outputs[0])


def log(op, grad):
    return ops.divide(grad, op.inputs[0])


def sqrt(op, grad):
    # d sqrt(x) = 1 / (2 sqrt(x))
    return ops.divide(grad, ops.multiply(op.outputs[0], 2.0))


def tanh(op, grad):
    y = op.outputs[0]
    return ops.multiply(grad, ops.subtract(1.0, ops.square(y)))


def sigmoid(op, grad):
    y = op.outputs[0]
    return ops.multiply(grad, ops.multiply(y, ops.subtract(1.0, y)))


def sign(op, grad):
    return ops.zeros_like(op.inputs[0])


def square(op, grad):
    return ops.multiply(grad, ops.multiply(op.inputs[0], 2.0))


def reciprocal(op, grad):
    return ops.negative(ops.multiply(grad, ops.square(op.outputs[0])))


def rsqrt(op, grad):
    y = op.outputs[0]
    return ops.multiply(ops.multiply(grad, ops.multiply(ops.square(y), y)), -0.5)


def expm1(op, grad):
    return ops.multiply(grad, ops.add(op.outputs[0], 1.0))


def log1p(op, grad):
    return ops.divide(grad, ops.add(op.inputs[0], 1.0))


def sin(op, grad):
    return ops.multiply(grad, ops.cos(op.inputs[0]))


def cos(op, grad):
    return ops.negative(ops.multiply(grad, ops.sin(op.inputs[0])))


def tan(op, grad):
    return ops.multiply(grad, ops.add(ops.square(op.outputs[0]), 1.0))


def asin(op, grad):
    return ops.multiply(grad, ops.rsqrt(ops.subtract(1.0, ops.square(op.inputs[0]))))


def acos(op, grad):
    return ops.negative(asin(op, grad))


def atan(op, grad):
    return ops.divide(grad, ops.add(ops.square(op.inputs[0]), 1.0))


def sinh(op, grad):
    return ops.multiply(grad, ops.cosh(op.inputs[0]))


def cosh(op, grad):
    return ops.multiply(grad, ops.sinh(op.inputs[0]))


def asinh(op, grad):
    return ops.multiply(grad, ops.rsqrt(ops.add(ops.square(op.inputs[0]), 1.0)))


def acosh(op, grad):
    return ops.multiply(grad, ops.rsqrt(ops.subtract(ops.square(op.inputs[0]), 1.0)))


def atanh(op, grad):
    return ops.divide(grad, ops.subtract(1.0, ops.square(op.inputs[0])))


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def erf(op, grad):
    x = op.inputs[0]
    return ops.multiply(grad, ops.multiply(ops.exp(ops.negative(ops.square(x))), _TWO_OVER_SQRT_PI))


def erfc(op, grad):
    return ops.negative(erf(op, grad))


def softplus(op, grad):
    return ops.multiply(grad, ops.sigmoid(op.inputs[0]))


def piecewise_constant(op, grad):
    """floor, ceil, round: the gradient is zero almost everywhere; TensorFlow gives None."""
    return None


# --- Binary (with broadcasting) --------------------------------------------


def _pair(op, gx, gy):
    x, y = op.inputs
    return [None if gx is None else unbroadcast(gx, x.shape), None if gy is None else unbroadcast(gy, y.shape)]


def add(op, grad):
    return _pair(op, grad, grad)


def subtract(op, grad):
    return _pair(op, grad, ops.negative(grad))


def multiply(op, grad):
    x, y = op.inputs
    return _pair(op, ops.multiply(grad, y), ops.multiply(grad, x))


def divide(op, grad):
    x, y = op.inputs
    gx = ops.divide(grad, y)
    gy = ops.negative(ops.multiply(gx, ops.divide(x, y)))
    return _pair(op, gx, gy)


def maximum(op, grad):
    x, y = op.inputs
    x_wins = ops.greater_equal(x, y)
    return _pair(op, zeros_where_false(x_wins, grad), zeros_where_false(ops.logical_not(x_wins), grad))


def minimum(op, grad):
    x, y = op.inputs
    x_wins = ops.less_equal(x, y)
    return _pair(op, zeros_where_false(x_wins, grad), zeros_where_false(ops.logical_not(x_wins), grad))


def floormod(op, grad):
    # x - floor(x / y) * y
    x, y = op.inputs
    return _pair(op, grad, ops.negative(ops.multiply(grad, ops.floordiv(x, y))))


def pow(op, grad):  # noqa: A001 - the op's name
    x, y = op.inputs
    z = op.outputs[0]
    gx = ops.multiply(grad, ops.multiply(y, ops.pow(x, ops.subtract(y, 1.0))))
    # d/dy x^y = x^y log x, taken as 0 where x <= 0 (TensorFlow's choice).
    positive = ops.greater(x, ops.zeros_like(x))
    safe_x = ops.where(positive, x, ops.ones_like(x))
    gy = ops.multiply(grad, zeros_where_false(positive, ops.multiply(z, ops.log(safe_x))))
    return _pair(op, gx, gy)


def squared_difference(op, grad):
    x, y = op.inputs
    g = ops.multiply(grad, ops.multiply(ops.subtract(x, y), 2.0))
    return _pair(op, g, ops.negative(g))


def atan2(op, grad):
    y, x = op.inputs
    scale = ops.divide(grad, ops.add(ops.square(x), ops.square(y)))
    return _pair(op, ops.multiply(scale, x), ops.negative(ops.multiply(scale, y)))


def xlogy(op, grad):
    # TensorFlow's convention: where x is 0, like the value, both partials
    # are 0 (d/dx is not log(y), and d/dy is not 0/y, NaN at y = 0).
    x, y = op.inputs
    zeros = ops.zeros_like(x)
    x_is_zero = ops.equal(x, zeros)
    gx = ops.xlogy(ops.cast(ops.logical_not(x_is_zero), x.dtype), y)
    gy = ops.where(x_is_zero, zeros, ops.divide(x, y))
    return _pair(op, ops.multiply(grad, gx), ops.multiply(grad, gy))


def where(op, grad):
    cond, x, y = op.inputs
    zeros = ops.zeros_like(grad)
    return [None, unbroadcast(ops.where(cond, grad, zeros), x.shape),
            unbroadcast(ops.where(cond, zeros, grad), y.shape)]


def clip_by_value(op, grad):
    t, lo, hi = op.inputs
    below = ops.less(t, lo)
    above = ops.greater(t, hi)
    inside = ops.logical_not(ops.logical_or(below, above))
    # grad has the output's (broadcast) shape, and so do the masks.
    return [unbroadcast(zeros_where_false(inside, grad), t.shape),
            unbroadcast(zeros_where_false(below, grad), lo.shape),
            unbroadcast(zeros_where_false(above, grad), hi.shape)]


def add_n(op, grad):
    return [grad] * len(op.inputs)

"""ember.experimental.numpy: common NumPy names on Ember ops (a subset of ``tf.experimental.numpy``).

Arrays are ember tensors, so the results work with every Ember op, inside
@ember.function and under a GradientTape. Dtypes follow NumPy, as
tf.experimental.numpy does: Python floats make float64 arrays and Python
ints int64 ones, binary ops promote with NumPy's rules
(numpy.result_type, where Python scalars are weak), and the mean of
integers is float64.
"""

import builtins

import numpy as _np

from ember import _C
from ember._tensor import Tensor as _Tensor
# NumPy's dtype names, re-exported (tnp.float32, ...).
from ember.dtypes import (as_dtype as _as_dtype, bool as bool_, float16, float32, float64, int8, int16,  # noqa: F401
                          int32, int64, uint8)

ndarray = _Tensor
newaxis = None
pi, e, inf, nan = _np.pi, _np.e, _np.inf, _np.nan


def _ops():
    import ember  # the public namespace: the wrappers below look ops up in it by name, at call time
    return ember


def _np_dtype(value):
    """The NumPy dtype of a tensor, or the value itself for numpy.result_type (Python scalars are weak)."""
    if isinstance(value, _Tensor):
        return _np.dtype(value.dtype.name)
    if isinstance(value, (builtins.bool, int, float, complex)):
        return value
    return _np.asarray(value).dtype


def asarray(a, dtype=None):
    """`a` as a tensor: tensors keep their dtype; other values get NumPy's (float64 for floats)."""
    if isinstance(a, _Tensor):
        return a if dtype is None or _as_dtype(dtype) == a.dtype else _ops().cast(a, dtype)
    array = _np.asarray(a, dtype=None if dtype is None else _np.dtype(_as_dtype(dtype).name))
    return _C.convert_to_tensor(array, None)


def array(object, dtype=None, copy=True, ndmin=0):  # noqa: A002 - NumPy's name
    out = asarray(object, dtype)
    if copy and isinstance(object, _Tensor):
        out = _ops().identity(out)
    while len(out.shape) < ndmin:
        out = _ops().expand_dims(out, 0)
    return out


def _promote(*values):
    dtype = _np.result_type(*[_np_dtype(v) for v in values])
    return [asarray(v, dtype.name) for v in values]


def _float(x):
    """NumPy's float result for integer input (exp, log, sqrt, mean of ints)."""
    x = asarray(x)
    return _ops().cast(x, float64) if x.dtype.is_integer or x.dtype == bool_ else x


# --- creation -------------------------------------------------------------


def zeros(shape, dtype=float64):
    return _ops().zeros(shape, dtype=dtype)


def ones(shape, dtype=float64):
    return _ops().ones(shape, dtype=dtype)


def full(shape, fill_value, dtype=None):
    value = asarray(fill_value, dtype)
    return _ops().fill(list(_np.atleast_1d(shape)) if _np.ndim(shape) else [int(shape)], value)


def zeros_like(a, dtype=None):
    return _ops().zeros_like(asarray(a), dtype=dtype)


def ones_like(a, dtype=None):
    return _ops().ones_like(asarray(a), dtype=dtype)


def eye(N, M=None, k=0, dtype=float64):  # noqa: N803 - NumPy's names
    return asarray(_np.eye(N, M, k), dtype)


def arange(start, stop=None, step=1, dtype=None):
    if dtype is None:
        dtype = _np.result_type(*[_np_dtype(v) for v in (start, stop, step) if v is not None]).name
    if stop is None:
        start, stop = 0, start
    return _ops().range(start, stop, step, dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float64, axis=0):
    step = (stop - start) / builtins.max(num - 1 if endpoint else num, 1)
    end = stop if endpoint else start + step * (num - 1)
    out = _ops().linspace(asarray(start, float64), asarray(end, float64), num, axis=axis)
    out = _ops().cast(out, dtype) if _as_dtype(dtype) != float64 else out
    return (out, step) if retstep else out


# --- shape ----------------------------------------------------------------


def reshape(a, newshape=None, order="C", shape=None):
    if order != "C":
        raise NotImplementedError("reshape: only order='C' is supported")
    return _ops().reshape(asarray(a), newshape if shape is None else shape)


def transpose(a, axes=None):
    return _ops().transpose(asarray(a), perm=axes)


def concatenate(arrays, axis=0):
    arrays = _promote(*arrays)
    if axis is None:
        return _ops().concat([_ops().reshape(x, [-1]) for x in arrays], 0)
    return _ops().concat(arrays, axis)


def stack(arrays, axis=0):
    return _ops().stack(_promote(*arrays), axis=axis)


def expand_dims(a, axis):
    return _ops().expand_dims(asarray(a), axis)


def squeeze(a, axis=None):
    return _ops().squeeze(asarray(a), axis=axis)


def shape(a):
    return tuple(asarray(a).shape)


def ndim(a):
    return len(asarray(a).shape)


def size(a):
    return int(_np.prod(asarray(a).shape, dtype=_np.int64))


# --- reductions -----------------------------------------------------------


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def sum(a, axis=None, dtype=None, keepdims=False):  # noqa: A001
    a = asarray(a)
    if dtype is None and (a.dtype == bool_ or (a.dtype.is_integer and a.dtype.size < 8)):
        dtype = int64  # NumPy sums small integers (and bools) as int64
    return _ops().reduce_sum(asarray(a, dtype), axis=_axis(axis), keepdims=keepdims)


def prod(a, axis=None, dtype=None, keepdims=False):
    return _ops().reduce_prod(asarray(a, dtype), axis=_axis(axis), keepdims=keepdims)


def mean(a, axis=None, dtype=None, keepdims=False):
    a = _float(a) if dtype is None else asarray(a, dtype)
    return _ops().reduce_mean(a, axis=_axis(axis), keepdims=keepdims)


def var(a, axis=None, dtype=None, keepdims=False):
    return _ops().math.reduce_variance(_float(asarray(a, dtype)), axis=_axis(axis), keepdims=keepdims)


def std(a, axis=None, dtype=None, keepdims=False):
    return _ops().math.reduce_std(_float(asarray(a, dtype)), axis=_axis(axis), keepdims=keepdims)


def max(a, axis=None, keepdims=False):  # noqa: A001
    return _ops().reduce_max(asarray(a), axis=_axis(axis), keepdims=keepdims)


def min(a, axis=None, keepdims=False):  # noqa: A001
    return _ops().reduce_min(asarray(a), axis=_axis(axis), keepdims=keepdims)


amax, amin = max, min


def all(a, axis=None, keepdims=False):  # noqa: A001
    return _ops().reduce_all(_ops().cast(asarray(a), bool_), axis=_axis(axis), keepdims=keepdims)


def any(a, axis=None, keepdims=False):  # noqa: A001
    return _ops().reduce_any(_ops().cast(asarray(a), bool_), axis=_axis(axis), keepdims=keepdims)


def argmax(a, axis=None):
    a = asarray(a)
    return _ops().argmax(_ops().reshape(a, [-1]) if axis is None else a, axis=0 if axis is None else axis)


def argmin(a, axis=None):
    a = asarray(a)
    return _ops().argmin(_ops().reshape(a, [-1]) if axis is None else a, axis=0 if axis is None else axis)


def cumsum(a, axis=None, dtype=None):
    a = asarray(a, dtype)
    return _ops().cumsum(_ops().reshape(a, [-1]) if axis is None else a, axis=0 if axis is None else axis)


# --- element-wise -----------------------------------------------------------


def _unary(op, to_float=True):
    def apply(x):
        return getattr(_ops(), op)(_float(x) if to_float else asarray(x))
    apply.__name__ = op
    apply.__doc__ = f"NumPy's {op}, element-wise."
    return apply


exp, log, sqrt, sin, cos, tan, tanh = (_unary(n) for n in ("exp", "log", "sqrt", "sin", "cos", "tan", "tanh"))
abs, negative, square, sign = (_unary(n, False) for n in ("abs", "negative", "square", "sign"))  # noqa: A001
absolute = abs


def _binary(op):
    def apply(x1, x2):
        a, b = _promote(x1, x2)
        return getattr(_ops(), op)(a, b)
    apply.__name__ = op
    apply.__doc__ = f"NumPy's {op}, element-wise with NumPy's dtype promotion."
    return apply


add, subtract, multiply, maximum, minimum, power = (
    _binary(n) for n in ("add", "subtract", "multiply", "maximum", "minimum", "pow"))
equal, not_equal, less, greater, less_equal, greater_equal = (
    _binary(n) for n in ("equal", "not_equal", "less", "greater", "less_equal", "greater_equal"))


def divide(x1, x2):
    a, b = _promote(_float(x1) if not isinstance(x1, (float, int)) else float(x1), x2)
    return _ops().truediv(_float(a), _float(b))


true_divide = divide


def where(condition, x=None, y=None):
    """The elements of x where condition, else of y; with one argument, the indices of the
    true elements, one tensor per dimension (NumPy's nonzero)."""
    condition = _ops().cast(asarray(condition), bool_)
    if x is None and y is None:
        found = _ops().where(condition)
        return tuple(_ops().unstack(found, num=len(condition.shape), axis=1))
    a, b = _promote(x, y)
    return _ops().where(condition, a, b)


def clip(a, a_min, a_max):
    a, lo, hi = _promote(a, a_min, a_max)
    return _ops().clip_by_value(a, lo, hi)


def dot(a, b):
    """NumPy's dot: products for scalars, the inner product of vectors, matrix products,
    and for N-D arrays a sum over a's last axis and b's second-to-last."""
    a, b = _promote(a, b)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return _ops().multiply(a, b)
    b_axis = 0 if len(b.shape) == 1 else len(b.shape) - 2
    return _ops().tensordot(a, b, [[len(a.shape) - 1], [b_axis]])


def matmul(x1, x2):
    a, b = _promote(x1, x2)
    if len(a.shape) == 0 or len(b.shape) == 0:
        raise ValueError("matmul: input operands must not be scalars")
    squeeze_a, squeeze_b = len(a.shape) == 1, len(b.shape) == 1
    a = _ops().expand_dims(a, 0) if squeeze_a else a
    b = _ops().expand_dims(b, -1) if squeeze_b else b
    out = _ops().matmul(a, b)
    if squeeze_b:
        out = _ops().squeeze(out, axis=-1)
    if squeeze_a:
        out = _ops().squeeze(out, axis=-2 if not squeeze_b else -1)
    return out


def sort(a, axis=-1):
    return _ops().sort(asarray(a), axis=axis)


def argsort(a, axis=-1):
    return _ops().argsort(asarray(a), axis=axis)


def allclose(a, b, rtol=1e-05, atol=1e-08):
    a, b = _promote(a, b)
    return builtins.bool(_np.allclose(a.numpy(), b.numpy(), rtol=rtol, atol=atol))

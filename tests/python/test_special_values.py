"""Special values through the vector paths of the element-wise math ops.

Each input holds NaN, +-inf, +-0, subnormals, the extremes of the dtype
and ordinary values, and is long enough (67 elements) for the kernels'
vector loops and their scalar tails. NumPy (or the C library, through
math) is the reference: NaN where it gives NaN, the same infinity, the
same signed zero, and finite values within a relative tolerance (Note
[IEEE special values] in csrc/kernels/cpu/ieee_math.h).
"""

import math

import numpy as np
import pytest

import ember


def special_inputs(dtype):
    fi = np.finfo(dtype)
    values = [np.nan, np.inf, -np.inf, 0.0, -0.0, fi.smallest_subnormal, -fi.smallest_subnormal, fi.tiny / 3,
              -fi.tiny / 3, fi.tiny, fi.max, -fi.max, 1.0, -1.0, 0.5, -0.5, 2.0, 10.0, -10.0, 88.0, -88.0, 100.0,
              -100.0, 700.0, -700.0, 750.0, -750.0, 1e10, -1e10, 1e-3, -1e-3, 0.99, -0.99, 1.5]
    with np.errstate(over="ignore"):
        return np.resize(np.array(values, dtype), 67)


def in_float64(fn):
    """A reference computed in float64 by a scalar function, rounded to the input's dtype."""
    vectorized = np.vectorize(fn, otypes=[np.float64])
    return lambda x: vectorized(x.astype(np.float64)).astype(x.dtype)


def ref_sigmoid(x):
    with np.errstate(over="ignore"):
        return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


def ref_erf(v):
    return math.erf(v) if not math.isnan(v) else math.nan


def ref_erfc(v):
    return math.erfc(v) if not math.isnan(v) else math.nan


OPS = {
    "abs": (ember.abs, np.abs),
    "negative": (ember.negative, np.negative),
    "sqrt": (ember.sqrt, np.sqrt),
    "rsqrt": (ember.rsqrt, lambda x: 1 / np.sqrt(x)),
    "exp": (ember.exp, np.exp),
    "expm1": (ember.expm1, np.expm1),
    "log": (ember.math.log, np.log),
    "log1p": (ember.log1p, np.log1p),
    "sin": (ember.sin, np.sin),
    "cos": (ember.cos, np.cos),
    "tan": (ember.tan, np.tan),
    "asin": (ember.asin, np.arcsin),
    "acos": (ember.acos, np.arccos),
    "atan": (ember.atan, np.arctan),
    "sinh": (ember.sinh, np.sinh),
    "cosh": (ember.cosh, np.cosh),
    "tanh": (ember.tanh, np.tanh),
    "asinh": (ember.asinh, np.arcsinh),
    "acosh": (ember.acosh, np.arccosh),
    "atanh": (ember.atanh, np.arctanh),
    "erf": (ember.erf, in_float64(ref_erf)),
    "erfc": (ember.erfc, in_float64(ref_erfc)),
    "sigmoid": (ember.sigmoid, ref_sigmoid),
    "reciprocal": (ember.reciprocal, np.reciprocal),
    "square": (ember.square, np.square),
    "floor": (ember.floor, np.floor),
    "ceil": (ember.ceil, np.ceil),
    "round": (ember.round, np.rint),
    "sign": (ember.sign, np.sign),
}

# Where Ember keeps Eigen's result, which is within tolerance but may
# flush a subnormal result to zero: the tolerance covers it (atol below).
RTOL = {np.float32: 2e-6, np.float64: 1e-13}
# Transcendental functions: a few ULP more.
LOOSE = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf",
         "erfc", "expm1", "log1p", "sigmoid", "exp", "log"}


def mismatches(got, want, dtype, rtol):
    atol = np.finfo(dtype).tiny  # a subnormal result may be off by less than the smallest normal
    bad = []
    for i, (a, b) in enumerate(zip(got, want)):
        if np.isnan(b):
            ok = np.isnan(a)
        elif np.isinf(b) or np.isinf(a):
            ok = a == b
        elif b == 0 and a == 0:
            ok = np.signbit(a) == np.signbit(b)
        else:
            ok = abs(float(a) - float(b)) <= rtol * abs(float(b)) + atol
        if not ok:
            bad.append(i)
    return bad


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_special_values_match_numpy(name, dtype):
    fn, ref = OPS[name]
    x = special_inputs(dtype)
    with np.errstate(all="ignore"):
        want = ref(x)
    got = fn(x).numpy()
    assert got.dtype == want.dtype
    rtol = RTOL[dtype] * (8 if name in LOOSE else 1)
    bad = mismatches(got, want, dtype, rtol)
    detail = ", ".join(f"{name}({x[i]!r}) = {got[i]!r}, want {want[i]!r}" for i in bad[:5])
    assert not bad, detail


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_special_values_inside_a_fused_function(dtype):
    # The fused kernel runs the same functors (Note [Element-wise fusion]).
    x = special_inputs(dtype)

    @ember.function
    def f(v):
        return ember.sqrt(v) + ember.math.log(v) * ember.exp(-v)

    with np.errstate(all="ignore"):
        want = np.sqrt(x) + np.log(x) * np.exp(-x)
    got = f(x).numpy()
    bad = mismatches(got, want, dtype, RTOL[dtype] * 8)
    assert not bad, [(x[i], got[i], want[i]) for i in bad[:5]]


def test_sqrt_is_correctly_rounded():
    # The hardware square root, not an estimate refined by a Newton step.
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1e6, 4096).astype(np.float32)
    np.testing.assert_array_equal(ember.sqrt(x).numpy(), np.sqrt(x))

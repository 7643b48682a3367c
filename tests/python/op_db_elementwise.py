"""op_db entries for the element-wise library: unary math, division, pow,
logical and bitwise ops, where and clip_by_value (op_defs/elementwise.yaml)."""

import math

import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample, _np_kind, binary_samples, make, ref_divide, same_dtype


# --- Samples ------------------------------------------------------------------


def unary_in(lo, hi):
    """unary_samples for float ops defined on [lo, hi] (asin, acosh, ...)."""
    def gen(dtype, rng):
        u = lambda *shape: rng.uniform(lo, hi, shape).astype(dtype)  # noqa: E731
        yield Sample("2d", (u(3, 4),))
        yield Sample("scalar", (u(),))
        yield Sample("empty", (u(0, 3),))
        yield Sample("large", (u(LARGE),))
    return gen


def unary_numeric(with_nan=False):
    """Covers zero and halves (coarse values) besides random ones."""
    def gen(dtype, rng):
        yield Sample("2d", (make(rng, (3, 4), dtype),))
        yield Sample("coarse", (make(rng, (2, 3, 4), dtype, "coarse"),))
        yield Sample("scalar", (make(rng, (), dtype),))
        yield Sample("empty", (make(rng, (0, 3), dtype),))
        yield Sample("large", (make(rng, (LARGE,), dtype),))
        if with_nan and _np_kind(dtype) == "f":
            yield Sample("nan_inf", (np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], dtype),))
    return gen


def special_values(dtype, rng):
    big = 6e4 if np.dtype(dtype) == np.float16 else 1e30  # finite, near the top of the range
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -1.5, 2.0, np.nan, big], dtype)
    yield Sample("specials", (specials.reshape(2, 4),))
    yield Sample("scalar", (np.array(np.inf, dtype),))
    yield Sample("empty", (np.zeros((0, 3), dtype),))
    with np.errstate(over="ignore"):  # float16's big value may overflow to inf: one more special
        large = np.resize(specials, LARGE) * make(rng, (LARGE,), dtype, "positive")
    yield Sample("large", (large,))


def round_samples(dtype, rng):
    yield from unary_numeric()(dtype, rng)
    if _np_kind(dtype) == "f":  # halves round to even
        yield Sample("halves", (np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5], dtype),))


def division_samples(dtype, rng):
    yield from binary_samples("nonzero")(dtype, rng)
    if _np_kind(dtype) == "u":
        yield Sample("exact_and_not", (np.array([7, 6, 0, 255, 9], dtype), np.array([2, 3, 5, 16, 9], dtype)))
        return
    signs = np.array([7, -7, 7, -7, 6, -6, 0], dtype)
    divisors = np.array([2, 2, -2, -2, 3, -3, 5], dtype)
    yield Sample("signs", (signs, divisors))
    if _np_kind(dtype) == "i":  # the most negative value // -1 wraps, as in NumPy
        low = np.iinfo(dtype).min
        yield Sample("min_by_minus_one", (np.array([low, low, 5], dtype), np.array([-1, 1, -1], dtype)))
    if _np_kind(dtype) == "f":
        yield Sample("inexact", (np.array([1.0, -1.0, 0.7], dtype), np.array([0.1, 0.1, -0.1], dtype)))


def pow_samples(dtype, rng):
    if _np_kind(dtype) == "f":
        yield from binary_samples(x_kind="positive")(dtype, rng)
        yield Sample("negative_base_int_exp", (np.array([-2.0, -3.0, -0.5], dtype), np.array([3.0, 2.0, -1.0], dtype)))
        return
    exp = lambda *shape: rng.integers(0, 6, shape).astype(dtype)  # noqa: E731
    yield Sample("same", (make(rng, (3, 4), dtype), exp(3, 4)))
    yield Sample("bcast_col_row", (make(rng, (3, 1), dtype), exp(1, 4)))
    yield Sample("scalar_tensor", (make(rng, (), dtype), exp(2, 3)))
    yield Sample("empty", (make(rng, (0, 3), dtype), exp(1, 3)))
    yield Sample("large", (make(rng, (LARGE,), dtype), exp(LARGE)))
    yield Sample("zero_exponent", (np.array([0, -3, 5], dtype), np.array([0, 0, 0], dtype)))


def bitwise_samples(dtype, rng):
    big = lambda *shape: rng.integers(-2**30, 2**30, shape).astype(dtype)  # noqa: E731
    yield Sample("same", (big(3, 4), big(3, 4)))
    yield Sample("bcast_vector", (big(2, 3), big(3)))
    yield Sample("scalars", (big(), big()))
    yield Sample("empty", (big(0, 3), big(0, 3)))
    yield Sample("large", (big(LARGE), big(LARGE)))


def where_samples(dtype, rng):
    # The condition is passed as a (weak, bool) Python list: test_ops donates
    # argument 0 through negative(), which a bool tensor cannot take.
    m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
    c = lambda *shape: make(rng, shape, np.bool_).tolist()  # noqa: E731
    yield Sample("same", (c(3, 4), m(3, 4), m(3, 4)))
    yield Sample("bcast_all_three", (c(3, 1), m(1, 4), m(4)))
    yield Sample("bcast_cond_only", (c(4), m(2, 3, 4), m(2, 3, 4)))
    yield Sample("scalar_cond", (c(), m(2, 3), m(2, 3)))
    yield Sample("scalar_y", (c(2, 3), m(2, 3), m()))
    yield Sample("scalars", (c(), m(), m()))
    yield Sample("empty", (c(3), m(0, 3), m(1, 3)))
    yield Sample("large", (c(LARGE), m(LARGE), m(LARGE)))
    yield Sample("large_bcast", (c(700, 1), m(100), m(700, 100)))


def clip_samples(dtype, rng):
    m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
    if _np_kind(dtype) == "u":  # no negative bounds: [0, 3) and [8, 15) around values in [0, 20)
        lo = lambda *shape: rng.integers(0, 3, shape).astype(dtype)  # noqa: E731
        hi = lambda *shape: rng.integers(8, 15, shape).astype(dtype)  # noqa: E731
    else:
        lo = lambda *shape: (make(rng, shape, dtype, "positive") * -1).astype(dtype)  # noqa: E731
        hi = lambda *shape: make(rng, shape, dtype, "positive")  # noqa: E731
    yield Sample("scalar_bounds", (m(3, 4), lo(), hi()))
    yield Sample("same", (m(3, 4), lo(3, 4), hi(3, 4)))
    yield Sample("bcast_vector", (m(2, 3), lo(3), hi(2, 1)))
    yield Sample("scalar", (m(), lo(), hi()))
    yield Sample("empty", (m(0, 3), lo(), hi()))
    yield Sample("large", (m(LARGE), lo(), hi()))
    yield Sample("large_bcast", (m(700, 100), lo(100), hi(700, 1)))
    yield Sample("min_above_max", (m(2, 3), hi(), lo()))  # TF: the minimum wins


# --- Errors -------------------------------------------------------------------


def errors(op_name, good, bad, arity=2):
    """A broadcast mismatch in `good` dtype, and inputs of a `bad` dtype."""
    def gen():
        if arity == 1:
            yield ErrorInput("bad_dtype", (np.ones(3, bad),), {}, TypeError,
                             rf"^{op_name}: .*dtype {np.dtype(bad).name}")
            return
        mismatch = (np.ones((2, 3), good), np.ones((4,), good)) + (np.ones((), good),) * (arity - 2)
        yield ErrorInput("shape_mismatch", mismatch, {}, ValueError, rf"^{op_name}: .*[Ii]ncompatible")
        if bad is None:
            return
        yield ErrorInput("bad_dtype", (np.ones(2, bad),) * arity, {}, TypeError,
                         rf"^{op_name}: .*dtype {np.dtype(bad).name}")
    return gen


def where_errors():
    x = np.ones((2, 3), np.float32)
    yield ErrorInput("shape_mismatch", (np.ones((2, 3), np.bool_), x, np.ones(4, np.float32)), {}, ValueError,
                     r"^where: .*[Ii]ncompatible")
    yield ErrorInput("condition_not_bool", (x, x, x), {}, TypeError, r"^where: .*dtype float32")


# --- References -----------------------------------------------------------------


def ref_float64(fn):
    """Computes in float64 and rounds to the input dtype (C-library functions)."""
    vec = np.vectorize(fn, otypes=[np.float64])

    def ref(x):
        return np.asarray(vec(x.astype(np.float64)) if x.size else x.astype(np.float64)).astype(x.dtype)
    return ref


def ref_softplus(x):
    return np.logaddexp(0.0, x.astype(np.float64)).astype(x.dtype)


def ref_where(condition, x, y):
    return np.where(np.asarray(condition, np.bool_), x, y)


def ref_clip(t, lo, hi):
    return np.maximum(np.minimum(t, hi), lo)


def ref_xlogy(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0, x * np.log(y)).astype(x.dtype)


def xlogy_samples(dtype, rng):
    """x takes zeros (coarse values); y stays positive, except where x is 0:
    there the result is 0 even for y = 0, inf or NaN."""
    yield from binary_samples(y_kind="positive", x_kind="coarse")(dtype, rng)
    x = np.array([0, 0, 0, 1.5, -2], dtype)
    y = np.array([0, np.inf, np.nan, 0.5, 3], dtype)
    yield Sample("zero_x", (x, y))


def ref_squared_difference(x, y):
    if _np_kind(x.dtype) == "f":  # one rounding, as ember computes halves in float32
        return np.square(x.astype(np.float64) - y.astype(np.float64)).astype(x.dtype)
    return np.square(x - y)


def ref_floordiv(x, y):
    with np.errstate(over="ignore"):  # the most negative integer // -1 wraps
        return np.floor_divide(x, y)


def ref_add_n(inputs):
    """Floats sum in float64 and round once (ember sums halves in float32);
    integers wrap in their own dtype."""
    stacked = np.stack(inputs)
    dtype = stacked.dtype
    if _np_kind(dtype) in "fc":
        wide = np.complex128 if _np_kind(dtype) == "c" else np.float64
        return np.sum(stacked.astype(wide), axis=0).astype(dtype)
    return np.sum(stacked, axis=0, dtype=dtype)


# --- Entries ------------------------------------------------------------------

# Integer dtypes that divide and truediv accept by converting them to float64.
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8")


def add_n_samples(dtype, rng):
    yield Sample("one", ([make(rng, (2, 3), dtype)],))
    yield Sample("three", ([make(rng, (4, 5), dtype) for _ in range(3)],))
    yield Sample("scalar", ([make(rng, (), dtype), make(rng, (), dtype)],))
    yield Sample("empty", ([make(rng, (0, 3), dtype)] * 2,))
    yield Sample("large", ([make(rng, (LARGE,), dtype) for _ in range(4)],))


def add_n_errors():
    f32 = np.float32
    yield ErrorInput("no_inputs", ([],), {}, ValueError, r"^add_n: argument 'inputs' is an empty list")
    yield ErrorInput("shape_mismatch", ([np.zeros((2, 3), f32), np.zeros((3,), f32)],), {}, ValueError,
                     r"^add_n: all inputs must have the same shape")
    yield ErrorInput("bool", ([np.zeros(3, np.bool_)],), {}, TypeError, r"^add_n: ")


def entries(ember):
    m, bw = ember.math, ember.bitwise
    f32, i32, b = np.float32, np.int32, np.bool_
    loose = {"float32": (2e-5, 1e-6)}  # vectorized float32 transcendental vs the C library
    out = [
        # Unary, numeric.
        OpInfo("sign", ember.sign, np.sign, unary_numeric(with_nan=True), errors("sign", f32, b, 1)),
        OpInfo("square", ember.square, np.square, unary_numeric(), errors("square", f32, b, 1)),
        OpInfo("round", ember.round, same_dtype(np.round), round_samples, errors("round", f32, b, 1)),
        # Unary, float.
        OpInfo("reciprocal", ember.reciprocal, np.reciprocal, unary_in(0.5, 3.0), errors("reciprocal", f32, i32, 1)),
        OpInfo("rsqrt", ember.rsqrt, same_dtype(lambda x: 1.0 / np.sqrt(x)), unary_in(0.1, 9.0),
               errors("rsqrt", f32, i32, 1), tols=loose),
        OpInfo("expm1", ember.expm1, np.expm1, unary_in(-3.0, 3.0), errors("expm1", f32, i32, 1), tols=loose),
        OpInfo("log1p", ember.log1p, np.log1p, unary_in(-0.9, 5.0), errors("log1p", f32, i32, 1), tols=loose),
        OpInfo("sin", ember.sin, np.sin, unary_in(-6.0, 6.0), errors("sin", f32, i32, 1), tols=loose),
        OpInfo("cos", ember.cos, np.cos, unary_in(-6.0, 6.0), errors("cos", f32, i32, 1), tols=loose),
        OpInfo("tan", ember.tan, np.tan, unary_in(-1.4, 1.4), errors("tan", f32, i32, 1), tols=loose),
        OpInfo("asin", ember.asin, np.arcsin, unary_in(-1.0, 1.0), errors("asin", f32, i32, 1), tols=loose),
        OpInfo("acos", ember.acos, np.arccos, unary_in(-1.0, 1.0), errors("acos", f32, i32, 1), tols=loose),
        OpInfo("atan", ember.atan, np.arctan, unary_in(-5.0, 5.0), errors("atan", f32, i32, 1), tols=loose),
        OpInfo("sinh", ember.sinh, np.sinh, unary_in(-4.0, 4.0), errors("sinh", f32, i32, 1), tols=loose),
        OpInfo("cosh", ember.cosh, np.cosh, unary_in(-4.0, 4.0), errors("cosh", f32, i32, 1), tols=loose),
        OpInfo("asinh", ember.asinh, np.arcsinh, unary_in(-5.0, 5.0), errors("asinh", f32, i32, 1), tols=loose),
        OpInfo("acosh", ember.acosh, np.arccosh, unary_in(1.0, 6.0), errors("acosh", f32, i32, 1), tols=loose),
        OpInfo("atanh", ember.atanh, np.arctanh, unary_in(-0.95, 0.95), errors("atanh", f32, i32, 1), tols=loose),
        OpInfo("erf", ember.erf, ref_float64(math.erf), unary_in(-3.0, 3.0), errors("erf", f32, i32, 1), tols=loose),
        OpInfo("erfc", ember.erfc, ref_float64(math.erfc), unary_in(-3.0, 3.0), errors("erfc", f32, i32, 1),
               tols=loose),
        OpInfo("floor", ember.floor, np.floor, unary_numeric(with_nan=True), errors("floor", f32, i32, 1)),
        OpInfo("ceil", ember.ceil, np.ceil, unary_numeric(with_nan=True), errors("ceil", f32, i32, 1)),
        OpInfo("softplus", ember.nn.softplus, ref_softplus, unary_in(-30.0, 30.0), errors("softplus", f32, i32, 1),
               tols=loose),
        OpInfo("is_nan", ember.is_nan, np.isnan, special_values, errors("is_nan", f32, i32, 1)),
        OpInfo("is_inf", ember.is_inf, np.isinf, special_values, errors("is_inf", f32, i32, 1)),
        OpInfo("is_finite", ember.is_finite, np.isfinite, special_values, errors("is_finite", f32, i32, 1)),
        OpInfo("logical_not", ember.logical_not, np.logical_not, unary_numeric(), errors("logical_not", b, f32, 1)),
        # Binary.
        OpInfo("truediv", ember.truediv, ref_divide, binary_samples("nonzero"), errors("truediv", f32, None),
               extra_dtypes=INT_DTYPES),
        OpInfo("floordiv", ember.floordiv, ref_floordiv, division_samples, errors("floordiv", f32, b)),
        OpInfo("floormod", m.floormod, np.remainder, division_samples, errors("floormod", f32, b),
               tols={"float32": (1e-5, 1e-5)}),
        OpInfo("pow", ember.pow, np.power, pow_samples, errors("pow", f32, b), tols=loose),
        OpInfo("squared_difference", ember.squared_difference, ref_squared_difference, binary_samples(),
               errors("squared_difference", f32, b)),
        OpInfo("atan2", ember.atan2, np.arctan2, binary_samples(), errors("atan2", f32, i32), tols=loose),
        OpInfo("xlogy", m.xlogy, ref_xlogy, xlogy_samples, errors("xlogy", f32, i32), tols=loose),
        OpInfo("logical_and", ember.logical_and, np.logical_and, binary_samples(), errors("logical_and", b, f32)),
        OpInfo("logical_or", ember.logical_or, np.logical_or, binary_samples(), errors("logical_or", b, f32)),
        OpInfo("logical_xor", ember.logical_xor, np.logical_xor, binary_samples(), errors("logical_xor", b, f32)),
        OpInfo("bitwise_and", bw.bitwise_and, np.bitwise_and, bitwise_samples, errors("bitwise_and", i32, f32)),
        OpInfo("bitwise_or", bw.bitwise_or, np.bitwise_or, bitwise_samples, errors("bitwise_or", i32, f32)),
        OpInfo("bitwise_xor", bw.bitwise_xor, np.bitwise_xor, bitwise_samples, errors("bitwise_xor", i32, f32)),
    ]
    out.append(OpInfo("where", ember.where, ref_where, where_samples, where_errors, type_var="T"))
    out.append(OpInfo("clip_by_value", ember.clip_by_value, ref_clip, clip_samples,
                      errors("clip_by_value", f32, b, arity=3)))
    out.append(OpInfo("add_n", ember.add_n, ref_add_n, add_n_samples, add_n_errors))
    return out

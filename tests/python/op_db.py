"""OpInfo-style database: one record per op with a NumPy reference, sample and error inputs.

The dtypes each record tests come from ``_C._op_info`` (the op_defs type
variables), so the database cannot drift from the op definitions. In a
sample, every ``np.ndarray`` argument becomes an ember tensor input; any
other value (lists, bools, strings, dtypes) is passed as is, as an attr.
"""

import dataclasses
import importlib
import pathlib
from typing import Callable, Optional

import ml_dtypes  # noqa: F401 - registers bfloat16 with NumPy (np.dtype("bfloat16"))
import numpy as np

from ember import _C

LARGE = 70_000  # above the CPU kernels' parallel threshold

# (rtol, atol) per dtype name; integers and bool compare exactly.
# float16 and bfloat16 allow about one unit in the last place (2^-10, 2^-7);
# complex64 compares like float32 (assert_allclose takes |a - b|).
DEFAULT_TOLS = {
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-2, 1e-2),
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-12),
    "complex64": (1e-5, 1e-6),
    "int8": (0, 0),
    "int16": (0, 0),
    "int32": (0, 0),
    "int64": (0, 0),
    "uint8": (0, 0),
    "bool": (0, 0),
}


@dataclasses.dataclass
class Sample:
    name: str
    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    tols: Optional[dict] = None  # per-sample override of the op's tolerances


@dataclasses.dataclass
class ErrorInput:
    name: str
    args: tuple
    kwargs: dict
    exc: type
    regex: str  # must name the op


@dataclasses.dataclass
class OpInfo:
    name: str
    op: Callable
    ref: Callable  # NumPy reference: same args (arrays) and kwargs; returns the expected array
    samples: Callable  # (dtype_name, rng) -> iterable of Sample
    errors: Callable = lambda: ()  # () -> iterable of ErrorInput
    type_var: Optional[str] = None  # the type var whose set gives the tested dtypes (default: the first)
    extra_dtypes: tuple = ()  # dtypes accepted by promotion beyond the type var (divide's ints)
    tols: dict = dataclasses.field(default_factory=dict)

    @property
    def info(self):
        return _C._op_info(self.name)

    @property
    def dtypes(self):
        type_vars = self.info["type_vars"]
        if not type_vars:  # list(any) ops (call_function): the record names its dtypes
            return tuple(self.extra_dtypes)
        var = self.type_var or next(iter(type_vars))
        return tuple(type_vars[var]) + tuple(self.extra_dtypes)

    def tolerance(self, dtype_name, sample):
        tols = dict(DEFAULT_TOLS)
        tols.update(self.tols)
        if sample.tols:
            tols.update(sample.tols)
        return tols[dtype_name]


# --- Value generators ------------------------------------------------------


def make(rng, shape, dtype, kind="any"):
    """An array of the given shape and dtype. kind: 'any', 'positive' (> 0.5),
    'nonzero' (|x| >= 0.5), 'coarse' (few distinct values, so that
    comparisons see ties). Unsigned 'any' values are >= 0; complex values
    draw the real part as above and the imaginary part from [-1, 1]
    ('coarse': from a few halves)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if dtype.kind == "c":
        real = make(rng, shape, np.float64, kind)
        imag = (rng.integers(-2, 3, shape) * 0.5) if kind == "coarse" else rng.uniform(-1.0, 1.0, shape)
        return np.asarray(real + 1j * imag).astype(dtype)
    if dtype.kind == "u":
        if kind in ("positive", "nonzero"):
            return rng.integers(1, 10, shape).astype(dtype)
        if kind == "coarse":
            return rng.integers(0, 5, shape).astype(dtype)
        return rng.integers(0, 20, shape).astype(dtype)
    if dtype.kind == "i":
        if kind == "positive":
            return rng.integers(1, 10, shape).astype(dtype)
        if kind == "nonzero":
            return (rng.integers(1, 10, shape) * rng.choice([-1, 1], shape)).astype(dtype)
        if kind == "coarse":
            return rng.integers(-2, 3, shape).astype(dtype)
        return rng.integers(-10, 10, shape).astype(dtype)
    # Floats, bfloat16 (NumPy kind 'V') included: drawn in float64, then rounded.
    if kind == "positive":
        return rng.uniform(0.5, 2.0, shape).astype(dtype)
    if kind == "nonzero":
        return (rng.uniform(0.5, 2.0, shape) * rng.choice([-1, 1], shape)).astype(dtype)
    if kind == "coarse":
        return (rng.integers(-2, 3, shape) * 0.5).astype(dtype)
    return rng.uniform(-3.0, 3.0, shape).astype(dtype)


def unary_samples(kind="any"):
    def gen(dtype, rng):
        yield Sample("2d", (make(rng, (3, 4), dtype, kind),))
        yield Sample("3d", (make(rng, (2, 3, 4), dtype, kind),))
        yield Sample("scalar", (make(rng, (), dtype, kind),))
        yield Sample("empty", (make(rng, (0, 3), dtype, kind),))
        yield Sample("large", (make(rng, (LARGE,), dtype, kind),))
    return gen


BINARY_SHAPES = [
    ("same", (3, 4), (3, 4)),
    ("bcast_col_row", (3, 1), (1, 4)),
    ("bcast_vector", (2, 3), (3,)),
    ("bcast_left_vector", (3,), (2, 3)),
    ("scalar_tensor", (), (2, 3)),
    ("tensor_scalar", (2, 3), ()),
    ("scalars", (), ()),
    ("empty", (0, 3), (0, 3)),
    ("empty_bcast", (0, 3), (1, 3)),
    ("large", (LARGE,), (LARGE,)),
    ("large_bcast", (700, 100), (100,)),
]


def binary_samples(y_kind="any", x_kind="any"):
    def gen(dtype, rng):
        for name, xs, ys in BINARY_SHAPES:
            yield Sample(name, (make(rng, xs, dtype, x_kind), make(rng, ys, dtype, y_kind)))
    return gen


def binary_errors(op_name, bad_dtype=np.bool_):
    def gen():
        yield ErrorInput("shape_mismatch", (np.ones((2, 3), np.float32), np.ones((4,), np.float32)), {},
                         ValueError, rf"^{op_name}: .*[Ii]ncompatible")
        if bad_dtype is not None:
            yield ErrorInput("bad_dtype", (np.ones(2, bad_dtype), np.ones(2, bad_dtype)), {},
                             TypeError, rf"^{op_name}: .*dtype {np.dtype(bad_dtype).name}")
    return gen


def unary_errors(op_name, bad_dtype):
    def gen():
        yield ErrorInput("bad_dtype", (np.ones(3, bad_dtype),), {},
                         TypeError, rf"^{op_name}: .*dtype {np.dtype(bad_dtype).name}")
    return gen


def same_dtype(fn):
    """Wraps a NumPy reference so its result keeps the input's dtype."""
    def ref(x, *args, **kwargs):
        return np.asarray(fn(x, *args, **kwargs)).astype(x.dtype)
    return ref


# --- References that need more than one NumPy call --------------------------


def ref_divide(x, y):
    if x.dtype.kind in "iub":
        return np.divide(x.astype(np.float64), y.astype(np.float64))
    return np.divide(x, y)


def ref_sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


def ref_reduce(kind):
    """reduce_sum, _max and _mean in the input dtype. Floats and complex compute
    in float64 / complex128 and round once (the kernels accumulate float16 and
    bfloat16 in float32, far closer to that than to NumPy's float16 sums);
    integer sums wrap like np.sum(x, dtype=x.dtype); the integer mean is TF's,
    truncated toward zero, of the exact (int64) sum."""
    def ref(x, axis=None, keepdims=False):
        ax = tuple(axis) if isinstance(axis, (list, tuple)) else axis
        if _np_kind(x.dtype) in "fc":
            wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
            fn = {"sum": np.sum, "max": np.max, "mean": np.mean}[kind]
            with np.errstate(invalid="ignore"):
                return np.asarray(fn(wide, axis=ax, keepdims=keepdims)).astype(x.dtype)
        if kind == "sum":
            return np.asarray(np.sum(x, axis=ax, keepdims=keepdims, dtype=x.dtype))
        if kind == "max":
            return np.asarray(np.max(x, axis=ax, keepdims=keepdims))
        total = np.sum(x, axis=ax, keepdims=keepdims, dtype=np.int64)
        count = x.size // max(np.asarray(total).size, 1) if x.size else 1
        return np.asarray(np.trunc(total / count)).astype(x.dtype)
    return ref


def ref_matmul(a, b, transpose_a=False, transpose_b=False):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    kind = _np_kind(a.dtype)
    if kind in "fc":  # float64 / complex128, rounded once, as the kernels do
        wide = np.complex128 if kind == "c" else np.float64
        return np.matmul(a.astype(wide), b.astype(wide)).astype(a.dtype)
    return np.matmul(a, b)


def ref_transpose(a, perm=None):
    return np.transpose(a, perm)


def ref_reshape(x, shape):
    return np.reshape(x, shape)


def _np_kind(dtype):
    """NumPy's dtype.kind, with bfloat16 ('V' in NumPy) as 'f'."""
    dtype = np.dtype(dtype)
    return "f" if dtype == np.dtype("bfloat16") else dtype.kind


def ref_cast(x, dtype):
    """Note [Cast semantics] in csrc/kernels/cpu/cast_convert.h: complex to real
    keeps the real part; float to integer truncates and saturates (NaN -> 0);
    integers wrap; the rest is NumPy's astype."""
    dst = np.dtype(dtype)
    src_kind, dst_kind = _np_kind(x.dtype), _np_kind(dst)
    if src_kind in "fc" and x.dtype != np.float64:
        x = x.astype(np.complex128 if src_kind == "c" else np.float64)
    if dst_kind == "b":
        return x != 0
    if src_kind == "c" and dst_kind != "c":
        x = np.real(x)
    if src_kind in "fc" and dst_kind in "iu":
        info = np.iinfo(dst)
        t = np.trunc(x)
        high = t >= float(info.max) + 1.0  # float(max) + 1 is exactly 2^k
        low = t <= float(info.min) - 1.0
        out = np.zeros(x.shape, dst)  # NaN -> 0
        inside = ~(high | low | np.isnan(t))
        out[inside] = t[inside].astype(dst)
        out[high], out[low] = info.max, info.min
        return out
    if dst == np.dtype("bfloat16") and src_kind != "f":
        x = x.astype(np.float32)  # ml_dtypes casts to bfloat16 only from some dtypes
    return x.astype(dst)


def ref_fill(dims, value):
    return np.full(dims, value, dtype=value.dtype)


def ref_check_numerics(x, message):
    del message
    return x


# --- Sample generators with attrs ------------------------------------------


def reduce_samples(kind):
    def gen(dtype, rng):
        x3 = make(rng, (2, 3, 4), dtype, "positive" if kind == "mean" else "any")
        yield Sample("all", (x3,))
        yield Sample("axis0", (x3,), {"axis": 0})
        yield Sample("axis_neg", (x3,), {"axis": -1})
        yield Sample("axis_list", (x3,), {"axis": [0, 2]})
        yield Sample("axis_list_neg", (x3,), {"axis": [-1, -3]})
        yield Sample("keepdims", (x3,), {"axis": [1], "keepdims": True})
        yield Sample("keepdims_all", (x3,), {"keepdims": True})
        yield Sample("axis_empty_list", (x3,), {"axis": []})
        yield Sample("mixed_sign", (make(rng, (3, 5), dtype),), {"axis": 1})  # the int mean truncates toward 0
        yield Sample("scalar", (make(rng, (), dtype),))
        yield Sample("empty_rows", (make(rng, (0, 3), dtype),), {"axis": 1})
        if _np_kind(dtype) == "f":  # NaN propagates along rows and down columns
            x = np.array([[1, np.nan, 3], [2, -np.inf, 0], [np.inf, 1, np.nan]], dtype)
            yield Sample("nan_rows", (x,), {"axis": 1})
            yield Sample("nan_columns", (x,), {"axis": 0})
        # Summation order differs from the reference's over 70k terms. The half
        # types need no loosening: their float32 sums are far more exact than
        # the one rounding to float16/bfloat16 both sides do.
        loose = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4)}
        # Positive values make int8 sums wrap (the means must not), but 70k of
        # them sum past float16's largest value, 65504: float16 sums take both signs.
        big = "any" if kind == "sum" and dtype == "float16" else "positive"
        yield Sample("large_all", (make(rng, (LARGE,), dtype, big),), {}, loose)
        yield Sample("large_axis0", (make(rng, (700, 100), dtype, "positive"),), {"axis": 0}, loose)
        yield Sample("large_axis1", (make(rng, (700, 100), dtype, "positive"),), {"axis": 1}, loose)
    return gen


def reduce_errors(op_name):
    def gen():
        x = np.ones((2, 3), np.float32)
        yield ErrorInput("axis_out_of_range", (x,), {"axis": 2}, ValueError, rf"^{op_name}: .*axis")
        yield ErrorInput("axis_too_negative", (x,), {"axis": [-3]}, ValueError, rf"^{op_name}: .*axis")
        yield ErrorInput("axis_duplicate", (x,), {"axis": [1, -1]}, ValueError, rf"^{op_name}: .*[Dd]uplicate")
        yield ErrorInput("axis_bad_type", (x,), {"axis": "x"}, TypeError, rf"^{op_name}: .*axis")
        yield ErrorInput("keepdims_bad_type", (x,), {"keepdims": "yes"}, TypeError, rf"^{op_name}: .*keepdims")
        yield ErrorInput("bool_input", (np.ones(3, np.bool_),), {}, TypeError, rf"^{op_name}: .*dtype bool")
    return gen


def matmul_samples(dtype, rng):
    m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
    yield Sample("plain", (m(3, 4), m(4, 5)))
    yield Sample("transpose_a", (m(4, 3), m(4, 5)), {"transpose_a": True})
    yield Sample("transpose_b", (m(3, 4), m(5, 4)), {"transpose_b": True})
    yield Sample("transpose_both", (m(4, 3), m(5, 4)), {"transpose_a": True, "transpose_b": True})
    yield Sample("batch", (m(2, 3, 4), m(2, 4, 5)))
    yield Sample("batch_bcast", (m(2, 1, 3, 4), m(5, 4, 2)))
    yield Sample("batch_bcast_transpose_b", (m(3, 4), m(2, 5, 4)), {"transpose_b": True})
    yield Sample("empty_rows", (m(0, 4), m(4, 5)))
    yield Sample("empty_inner", (m(3, 0), m(0, 5)))
    yield Sample("empty_batch", (m(0, 3, 4), m(4, 5)))
    yield Sample("vector_like", (m(1, 6), m(6, 1)))
    yield Sample("large", (m(300, 40), m(40, 250)))
    yield Sample("large_batch_bcast", (m(4, 1, 100, 40), m(3, 40, 60)))  # rows of 12 batches in parallel


def matmul_errors():
    x = np.ones((2, 3), np.float32)
    yield ErrorInput("inner_mismatch", (x, x), {}, ValueError, r"^matmul: ")
    yield ErrorInput("rank1", (np.ones(3, np.float32), np.ones(3, np.float32)), {}, ValueError, r"^matmul: ")
    yield ErrorInput("batch_mismatch", (np.ones((2, 2, 3), np.float32), np.ones((3, 3, 2), np.float32)), {},
                     ValueError, r"^matmul: ")
    yield ErrorInput("bad_attr_type", (x, x), {"transpose_b": "yes"}, TypeError, r"^matmul: .*transpose_b")
    yield ErrorInput("bool_input", (np.ones((2, 2), np.bool_),) * 2, {}, TypeError, r"^matmul: .*dtype bool")


def reshape_samples(dtype, rng):
    x = make(rng, (2, 6), dtype)
    yield Sample("2d", (x, [3, 4]))
    yield Sample("flatten", (x, [-1]))
    yield Sample("infer_middle", (x, [2, -1, 3]))
    yield Sample("scalar_up", (make(rng, (), dtype), [1, 1]))
    yield Sample("to_scalar", (make(rng, (1, 1), dtype), []))
    yield Sample("empty", (make(rng, (0, 3), dtype), [3, 0]))
    yield Sample("large", (make(rng, (LARGE,), dtype), [700, -1]))


def reshape_errors():
    x = np.ones((2, 3), np.float32)
    yield ErrorInput("count_mismatch", (x, [4, 4]), {}, ValueError, r"^reshape: ")
    yield ErrorInput("two_unknown", (x, [-1, -1]), {}, ValueError, r"^reshape: ")
    yield ErrorInput("not_divisible", (x, [4, -1]), {}, ValueError, r"^reshape: ")
    yield ErrorInput("bad_attr_type", (x, "abc"), {}, TypeError, r"^reshape: .*shape")


def transpose_samples(dtype, rng):
    yield Sample("2d_default", (make(rng, (3, 4), dtype),))
    yield Sample("3d_default", (make(rng, (2, 3, 4), dtype),))
    yield Sample("3d_perm", (make(rng, (2, 3, 4), dtype),), {"perm": [2, 0, 1]})
    yield Sample("3d_perm_swap", (make(rng, (2, 3, 4), dtype),), {"perm": [1, 0, 2]})
    yield Sample("identity_perm", (make(rng, (2, 3), dtype),), {"perm": [0, 1]})
    yield Sample("scalar", (make(rng, (), dtype),))
    yield Sample("empty", (make(rng, (0, 3), dtype),))
    yield Sample("large", (make(rng, (700, 100), dtype),))


def transpose_errors():
    x = np.ones((2, 3), np.float32)
    yield ErrorInput("repeated", (x,), {"perm": [0, 0]}, ValueError, r"^transpose: ")
    yield ErrorInput("wrong_length", (x,), {"perm": [0]}, ValueError, r"^transpose: ")
    yield ErrorInput("out_of_range", (x,), {"perm": [0, 2]}, ValueError, r"^transpose: ")
    yield ErrorInput("bad_attr_type", (x,), {"perm": "ab"}, TypeError, r"^transpose: .*perm")


def cast_samples(dtype, rng):
    src = np.dtype(dtype)
    kind = _np_kind(src)
    if kind in "fc":  # fractional values of both signs: truncation toward zero, nonzero -> True
        values = np.array([-2.75, -1.5, -0.25, 0.0, 0.25, 1.5, 2.75, 100.0])
        if kind == "c":  # (0, 2j) is nonzero: it casts to True
            values = values + 1j * np.array([1.0, -2.0, 0.0, 2.0, 0.0, -0.5, 3.0, 0.0])
        values = values.astype(src)
    elif kind == "u":  # 200 and 255 wrap to negative int8
        values = np.array([0, 1, 2, 3, 7, 100, 200, 255], src)
    elif kind == "i":  # int8 holds +-100; wider ones wrap +-1000 into int8/uint8
        big = 100 if src.itemsize == 1 else 1000
        values = np.array([-3, -1, 0, 1, 2, 7, big, -big], src)
    else:
        values = np.array([True, False, True, True, False, False, True, False])
    for dst in _C._op_info("cast")["type_vars"]["DstT"]:
        yield Sample(f"to_{dst}", (values.reshape(2, 4), dst))
        yield Sample(f"scalar_to_{dst}", (values[1].reshape(()), dst))
        yield Sample(f"empty_to_{dst}", (values[:0].reshape(0, 2), dst))
        yield Sample(f"large_to_{dst}", (np.resize(values, LARGE), dst))


def cast_errors():
    x = np.ones(3, np.float32)
    yield ErrorInput("unknown_dtype", (x, "complex128"), {}, TypeError, r"^cast: .*dtype")
    yield ErrorInput("dtype_not_dtype", (x, 5), {}, TypeError, r"^cast: .*dtype")


def fill_samples(dtype, rng):
    v = make(rng, (), dtype)
    yield Sample("2d", ([2, 3], v))
    yield Sample("scalar", ([], v))
    yield Sample("empty", ([0, 3], v))
    yield Sample("large", ([LARGE], v))


def fill_errors():
    yield ErrorInput("value_not_scalar", ([2], np.ones((2, 3), np.float32)), {}, ValueError, r"^fill: .*scalar")
    yield ErrorInput("negative_dim", ([-1, 2], np.float32(1)), {}, ValueError, r"^fill: ")
    yield ErrorInput("dims_bad_type", ("ab", np.float32(1)), {}, TypeError, r"^fill: .*dims")


def creation_samples(dtype, rng):
    del rng
    yield Sample("2d", ([2, 3],), {"dtype": dtype})
    yield Sample("scalar", ([],), {"dtype": dtype})
    yield Sample("empty", ([0, 4],), {"dtype": dtype})
    yield Sample("large", ([LARGE],), {"dtype": dtype})


def creation_errors(op_name):
    def gen():
        yield ErrorInput("negative_dim", ([-2],), {}, ValueError, rf"^{op_name}: .*non-negative")
        yield ErrorInput("bad_dtype", ([2],), {"dtype": "foo"}, TypeError, rf"^{op_name}: .*dtype")
        yield ErrorInput("shape_bad_type", (3.5,), {}, TypeError, rf"^{op_name}: .*shape")
    return gen


def check_numerics_samples(dtype, rng):
    for s in unary_samples()(dtype, rng):
        yield Sample(s.name, s.args + ("all finite",))


def check_numerics_errors():
    x = np.ones(3, np.float32)
    yield ErrorInput("int_input", (np.ones(3, np.int32), "m"), {}, TypeError, r"^check_numerics: .*dtype int32")
    yield ErrorInput("message_bad_type", (x, 5), {}, TypeError, r"^check_numerics: .*message")


# --- The database ----------------------------------------------------------


def _build():
    import ember

    dbg, nn = ember.debugging, ember.nn
    entries = [
        # Unary.
        OpInfo("negative", ember.negative, np.negative, unary_samples(), unary_errors("negative", np.bool_)),
        OpInfo("abs", ember.abs, np.abs, unary_samples(), unary_errors("abs", np.bool_)),
        OpInfo("exp", ember.exp, np.exp, unary_samples(), unary_errors("exp", np.int32)),
        OpInfo("log", ember.log, np.log, unary_samples("positive"), unary_errors("log", np.int32)),
        OpInfo("sqrt", ember.sqrt, np.sqrt, unary_samples("positive"), unary_errors("sqrt", np.int64)),
        OpInfo("tanh", ember.tanh, np.tanh, unary_samples(), unary_errors("tanh", np.bool_)),
        OpInfo("sigmoid", ember.sigmoid, ref_sigmoid, unary_samples(), unary_errors("sigmoid", np.int32)),
        OpInfo("relu", nn.relu, same_dtype(lambda x: np.maximum(x, 0)), unary_samples(),
               unary_errors("relu", np.bool_)),
        OpInfo("identity", ember.identity, np.array, unary_samples()),
        OpInfo("stop_gradient", ember.stop_gradient, np.array, unary_samples()),
        # Binary arithmetic.
        OpInfo("add", ember.add, np.add, binary_samples(), binary_errors("add")),
        OpInfo("subtract", ember.subtract, np.subtract, binary_samples(), binary_errors("subtract")),
        OpInfo("multiply", ember.multiply, np.multiply, binary_samples(), binary_errors("multiply")),
        OpInfo("divide", ember.divide, ref_divide, binary_samples("nonzero"), binary_errors("divide", None),
               extra_dtypes=("int8", "int16", "int32", "int64", "uint8")),
        OpInfo("maximum", ember.maximum, np.maximum, binary_samples("coarse", "coarse"), binary_errors("maximum")),
        OpInfo("minimum", ember.minimum, np.minimum, binary_samples("coarse", "coarse"), binary_errors("minimum")),
        # Comparisons.
        OpInfo("equal", ember.equal, np.equal, binary_samples("coarse", "coarse"), binary_errors("equal", None)),
        OpInfo("not_equal", ember.not_equal, np.not_equal, binary_samples("coarse", "coarse"),
               binary_errors("not_equal", None)),
        OpInfo("less", ember.less, np.less, binary_samples("coarse", "coarse"), binary_errors("less")),
        OpInfo("less_equal", ember.less_equal, np.less_equal, binary_samples("coarse", "coarse"),
               binary_errors("less_equal")),
        OpInfo("greater", ember.greater, np.greater, binary_samples("coarse", "coarse"), binary_errors("greater")),
        OpInfo("greater_equal", ember.greater_equal, np.greater_equal, binary_samples("coarse", "coarse"),
               binary_errors("greater_equal")),
        # Linear algebra; float32 sums over 40 terms need a looser atol near zero,
        # complex64 more: each term is 4 real products whose rounding errors add up
        # (observed 6e-6 on results near 0). float16/bfloat16 keep the default, one
        # ulp: the kernel and the reference each round an exact-enough sum once.
        OpInfo("matmul", ember.matmul, ref_matmul, matmul_samples, matmul_errors,
               tols={"float32": (1e-5, 1e-5), "complex64": (1e-5, 2e-5)}),
        # Reductions.
        OpInfo("reduce_sum", ember.reduce_sum, ref_reduce("sum"), reduce_samples("sum"), reduce_errors("reduce_sum")),
        OpInfo("reduce_max", ember.reduce_max, ref_reduce("max"), reduce_samples("max"), reduce_errors("reduce_max")),
        OpInfo("reduce_mean", ember.reduce_mean, ref_reduce("mean"), reduce_samples("mean"),
               reduce_errors("reduce_mean")),
        # Shape ops.
        OpInfo("reshape", ember.reshape, ref_reshape, reshape_samples, reshape_errors),
        OpInfo("transpose", ember.transpose, ref_transpose, transpose_samples, transpose_errors),
        OpInfo("cast", ember.cast, ref_cast, cast_samples, cast_errors, type_var="SrcT"),
        # Creation.
        OpInfo("fill", ember.fill, ref_fill, fill_samples, fill_errors),
        OpInfo("zeros", ember.zeros, lambda shape, dtype: np.zeros(shape, dtype), creation_samples,
               creation_errors("zeros")),
        OpInfo("ones", ember.ones, lambda shape, dtype: np.ones(shape, dtype), creation_samples,
               creation_errors("ones")),
        # Debugging.
        OpInfo("check_numerics", dbg.check_numerics, ref_check_numerics, check_numerics_samples,
               check_numerics_errors),
    ]
    # Families added later keep their entries in op_db_<family>.py modules
    # beside this file, each with `def entries(ember): -> list[OpInfo]`.
    for path in sorted(pathlib.Path(__file__).parent.glob("op_db_*.py")):
        module = importlib.import_module(path.stem)
        entries.extend(module.entries(ember))
    names = [e.name for e in entries]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    assert not duplicates, f"op_db: duplicate entries for {duplicates}"
    return {e.name: e for e in entries}


OP_DB = _build()


def samples_for(info, dtype_name):
    """The samples of one (op, dtype), from a fixed seed so test ids are stable."""
    seed = sum(map(ord, f"{info.name}/{dtype_name}"))
    return list(info.samples(dtype_name, np.random.default_rng(seed)))

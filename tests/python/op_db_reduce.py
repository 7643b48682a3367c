"""op_db records for the reduction, scan, sorting and linear algebra ops beyond
reduce_sum/_mean/_max and matmul (which stay in op_db.py)."""

import warnings

import numpy as np

from ember import _C
from op_db import LARGE, ErrorInput, OpInfo, Sample, _np_kind, make, reduce_errors


def _axes(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


def _is_float(dtype):
    """float16, bfloat16 (NumPy kind 'V'), float32 or float64."""
    return _np_kind(dtype) == "f"


def _wide(x):
    """Floats as float64 and complex as complex128, for references that round
    once to the input dtype (Note [Half compute]); integers as they are."""
    if _is_float(x.dtype):
        return x.astype(np.float64)
    return x.astype(np.complex128) if x.dtype.kind == "c" else x


def _near_one(rng, shape, dtype):
    """Factors whose long products stay finite and exact enough: +-1 for signed
    ints, 1 and 255 (-1 wrapped) for uint8, 1 +- 0.001 for floats (1 +- 0.01 for
    bfloat16, whose neighbours of 1 are 2^-8 and 2^-7 away)."""
    kind = _np_kind(dtype)
    if kind == "i":
        return rng.choice([-1, 1], shape).astype(dtype)
    if kind == "u":
        return rng.choice([1, 255], shape).astype(dtype)
    eps = 0.01 if dtype == "bfloat16" else 0.001
    return rng.uniform(1 - eps, 1 + eps, shape).astype(dtype)


# Summation order differs from the reference's over long inputs; the half types
# round once from float32 sums, within their default one-unit tolerance.
LOOSE = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4)}


def ref_reduction(fn, float64=False):
    """A NumPy reduction with TF's axis/keepdims arguments, in the input's dtype.
    Floats and complex compute wide (_wide); float64=True widens ints too."""
    def ref(x, axis=None, keepdims=False):
        src = x.astype(np.float64) if float64 else _wide(x)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's var of nothing: NaN, with a warning
            out = fn(src, axis=_axes(axis), keepdims=keepdims)
        return np.asarray(out).astype(x.dtype)
    return ref


def np_logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True) if x.size else np.zeros([1] * x.ndim)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    if keepdims:
        return out
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def np_min(x, axis=None, keepdims=False):
    top = np.inf if _is_float(x.dtype) else np.iinfo(x.dtype).max
    return np.min(x, axis=axis, keepdims=keepdims, initial=top)  # initial: defined when empty


def reduction_samples(kind="any", large=True):
    def gen(dtype, rng):
        if dtype == "bool":
            mk = lambda *s: make(rng, s, dtype)  # noqa: E731
        else:
            mk = lambda *s: make(rng, s, dtype, kind)  # noqa: E731
        x3 = mk(2, 3, 4)
        yield Sample("all", (x3,))
        yield Sample("axis0", (x3,), {"axis": 0})
        yield Sample("axis_neg", (x3,), {"axis": -1})
        yield Sample("axis_middle", (x3,), {"axis": 1})
        yield Sample("axis_list", (x3,), {"axis": [0, 2]})
        yield Sample("keepdims", (x3,), {"axis": [1], "keepdims": True})
        yield Sample("axis_empty_list", (x3,), {"axis": []})
        yield Sample("scalar", (mk(),))
        yield Sample("empty_rows", (mk(0, 3),), {"axis": 0})
        if large:
            yield Sample("large_all", (mk(LARGE),), {}, LOOSE)
            yield Sample("large_axis0", (mk(700, 100),), {"axis": 0}, LOOSE)
            # Few columns over many rows: the rows are cut into chunks (Note [Reducing few columns over
            # many rows]), with one outer block and with two.
            yield Sample("tall_leading_axes", (mk(4000, 7, 3),), {"axis": [0, 1]}, LOOSE)
            yield Sample("tall_middle_axis", (mk(2, 9000, 8),), {"axis": 1}, LOOSE)
        else:  # products: values of magnitude ~1, so 70k factors stay finite
            yield Sample("large_all", (_near_one(rng, LARGE, dtype),), {}, LOOSE)
            yield Sample("large_axis0", (_near_one(rng, (700, 100), dtype),), {"axis": 0}, LOOSE)
            yield Sample("tall_middle_axis", (_near_one(rng, (2, 9000, 8), dtype),), {"axis": 1}, LOOSE)
    return gen


def bool_reduction_samples():
    base = reduction_samples()

    def gen(dtype, rng):
        yield from base(dtype, rng)
        # Constant inputs, where any/all differ from a random mix.
        yield Sample("all_true", (np.ones((3, 4), np.bool_),), {"axis": 1})
        yield Sample("all_false", (np.zeros((3, 4), np.bool_),), {"axis": 0})
    return gen


def float_reduction_errors(op_name):
    base = reduce_errors(op_name)

    def gen():
        for e in base():
            if e.name != "bool_input":
                yield e
        yield ErrorInput("int_input", (np.ones(3, np.int32),), {}, TypeError, rf"^{op_name}: .*dtype int32")
    return gen


def bool_reduction_errors(op_name):
    def gen():
        x = np.ones((2, 3), np.bool_)
        yield ErrorInput("axis_out_of_range", (x,), {"axis": 2}, ValueError, rf"^{op_name}: .*axis")
        yield ErrorInput("axis_duplicate", (x,), {"axis": [0, -2]}, ValueError, rf"^{op_name}: .*[Dd]uplicate")
        yield ErrorInput("float_input", (np.ones(3, np.float32),), {}, TypeError, rf"^{op_name}: .*dtype float32")
    return gen


# --- argmax / argmin --------------------------------------------------------


def ref_arg(fn):
    def ref(x, axis=None, output_type="int64"):
        return np.asarray(fn(_wide(x), axis=0 if axis is None else axis)).astype(output_type)
    return ref


def arg_samples(dtype, rng):
    coarse = lambda *s: make(rng, s, dtype, "coarse")  # noqa: E731  (ties: the first index wins)
    yield Sample("default_axis", (coarse(4, 3),))
    yield Sample("axis1_int32", (coarse(3, 5),), {"axis": 1, "output_type": "int32"})
    yield Sample("axis_neg_3d", (coarse(2, 3, 4),), {"axis": -2})
    yield Sample("vector", (coarse(7),), {"axis": 0})
    yield Sample("empty_other_dim", (coarse(0, 3),), {"axis": 1})
    if _is_float(dtype):
        x = np.array([[1, np.nan, 3, np.nan], [np.inf, 2, -np.inf, 0]], dtype)
        yield Sample("nan_wins", (x,), {"axis": 1})
        yield Sample("nan_wins_columns", (x.T.copy(),), {"axis": 0})
    yield Sample("large", (make(rng, (700, 100), dtype),), {"axis": 0})


def arg_errors(op_name):
    def gen():
        x = np.ones((2, 3), np.float32)
        yield ErrorInput("axis_out_of_range", (x,), {"axis": 2}, ValueError, rf"^{op_name}: .*axis")
        yield ErrorInput("empty_axis", (np.ones((0, 3), np.float32),), {"axis": 0}, ValueError,
                         rf"^{op_name}: .*empty")
        yield ErrorInput("scalar", (np.float32(1),), {}, ValueError, rf"^{op_name}: .*axis")
        yield ErrorInput("bad_output_type", (x,), {"output_type": "float32"}, TypeError, rf"^{op_name}: ")
        yield ErrorInput("bool_input", (np.ones(3, np.bool_),), {}, TypeError, rf"^{op_name}: .*dtype bool")
    return gen


# --- cumsum / cumprod ---------------------------------------------------------


def ref_scan(fn, identity):
    """Integers scan in their dtype, wrapping; floats and complex wide (_wide)."""
    def ref(x, axis=0, exclusive=False, reverse=False):
        src = _wide(x)
        y = np.flip(src, axis) if reverse else src
        out = fn(y, axis=axis, dtype=src.dtype)
        if exclusive and x.size:
            out = np.moveaxis(out, axis, 0)
            out = np.concatenate([np.full((1,) + out.shape[1:], identity, src.dtype), out[:-1]])
            out = np.moveaxis(out, 0, axis)
        return (np.flip(out, axis) if reverse else out).astype(x.dtype)
    return ref


def scan_samples(kind):
    def gen(dtype, rng):
        mk = lambda *s: make(rng, s, dtype, "coarse" if kind == "prod" else "any")  # noqa: E731
        yield Sample("default_axis", (mk(4, 3),))
        yield Sample("axis1", (mk(3, 5),), {"axis": 1})
        yield Sample("exclusive", (mk(3, 5),), {"axis": 1, "exclusive": True})
        yield Sample("reverse", (mk(4, 3),), {"reverse": True})
        yield Sample("exclusive_reverse", (mk(2, 3, 4),), {"axis": -2, "exclusive": True, "reverse": True})
        yield Sample("vector", (mk(6),))
        yield Sample("empty", (mk(0, 3),), {"axis": 1})
        if kind == "prod":
            yield Sample("large", (_near_one(rng, (700, 100), dtype),), {"axis": 0}, LOOSE)
        else:  # int8 sums wrap here
            yield Sample("large", (mk(700, 100),), {"axis": 0}, {"float32": (1e-4, 1e-3), "complex64": (1e-4, 1e-3)})
    return gen


def scan_errors(op_name):
    def gen():
        x = np.ones((2, 3), np.float32)
        yield ErrorInput("axis_out_of_range", (x,), {"axis": 2}, ValueError, rf"^{op_name}: .*axis")
        yield ErrorInput("axis_too_negative", (x,), {"axis": -3}, ValueError, rf"^{op_name}: .*axis")
        yield ErrorInput("scalar", (np.float32(1),), {}, ValueError, rf"^{op_name}: .*axis")
        yield ErrorInput("bool_input", (np.ones(3, np.bool_),), {}, TypeError, rf"^{op_name}: .*dtype bool")
    return gen


# --- sort / argsort / top_k ---------------------------------------------------


def _stable_order(x, axis, descending):
    """A stable argsort with NaN above every number: equal values (NaNs
    included) keep their index order in both directions."""
    w = x.astype(np.float64)
    nan = np.isnan(w)
    key = np.where(nan, 0.0, -w if descending else w)
    return np.lexsort((key, ~nan if descending else nan), axis=axis)


def ref_sort(values, axis=-1, direction="ASCENDING"):
    order = _stable_order(values, axis, direction == "DESCENDING")
    return np.take_along_axis(values, order, axis)


def ref_argsort(values, axis=-1, direction="ASCENDING", stable=False):
    del stable  # ties keep their order in both directions
    return _stable_order(values, axis, direction == "DESCENDING").astype(np.int32)


def ref_top_k(x, k=1, sorted=True):  # noqa: A002
    del sorted
    order = _stable_order(x, -1, descending=True)[..., :k]
    return np.take_along_axis(x, order, -1), order.astype(np.int32)


def _nan_ties(dtype):
    return np.array([3, np.nan, -np.inf, 1, np.inf, np.nan, 0, 1, -0.0], dtype)


def sort_samples(dtype, rng):
    coarse = lambda *s: make(rng, s, dtype, "coarse")  # noqa: E731  (ties)
    yield Sample("last_axis", (coarse(3, 6),))
    yield Sample("descending", (coarse(3, 6),), {"direction": "DESCENDING"})
    yield Sample("axis0", (coarse(5, 4),), {"axis": 0})
    yield Sample("axis_middle_desc", (coarse(2, 5, 3),), {"axis": 1, "direction": "DESCENDING"})
    yield Sample("vector", (make(rng, (9,), dtype),))
    yield Sample("empty", (coarse(0, 3),))
    if _is_float(dtype):
        yield Sample("nan_inf", (_nan_ties(dtype),))
        yield Sample("nan_inf_desc", (_nan_ties(dtype),), {"direction": "DESCENDING"})
        yield Sample("nan_columns", (_nan_ties(dtype).reshape(3, 3),), {"axis": 0})
    # 70k values: float16 and bfloat16 draw many ties from [-3, 3].
    yield Sample("large", (make(rng, (700, 100), dtype),), {"axis": 0})
    yield Sample("large_desc", (make(rng, (100, 700), dtype),), {"direction": "DESCENDING"})


def argsort_samples(dtype, rng):
    yield from sort_samples(dtype, rng)
    yield Sample("stable", (make(rng, (4, 6), dtype, "coarse"),), {"stable": True})


def sort_errors(op_name):
    def gen():
        x = np.ones((2, 3), np.float32)
        yield ErrorInput("bad_direction", (x,), {"direction": "UP"}, ValueError, rf"^{op_name}: .*direction")
        yield ErrorInput("axis_out_of_range", (x,), {"axis": 2}, ValueError, rf"^{op_name}: .*axis")
        yield ErrorInput("scalar", (np.float32(1),), {}, ValueError, rf"^{op_name}: .*rank")
        yield ErrorInput("bool_input", (np.ones(3, np.bool_),), {}, TypeError, rf"^{op_name}: .*dtype bool")
    return gen


def top_k_samples(dtype, rng):
    coarse = lambda *s: make(rng, s, dtype, "coarse")  # noqa: E731
    yield Sample("default_k", (coarse(3, 6),))
    yield Sample("k3_ties", (coarse(3, 6),), {"k": 3})
    yield Sample("k_full_3d", (coarse(2, 3, 4),), {"k": 4, "sorted": False})
    yield Sample("k0", (coarse(2, 5),), {"k": 0})
    yield Sample("vector", (make(rng, (9,), dtype),), {"k": 2})
    yield Sample("empty_rows", (coarse(0, 4),), {"k": 2})
    if _is_float(dtype):
        yield Sample("nan_ties", (_nan_ties(dtype),), {"k": 5})
    yield Sample("large", (make(rng, (700, 100), dtype),), {"k": 5})
    yield Sample("large_row", (make(rng, (LARGE,), dtype),), {"k": 50})


def top_k_errors():
    x = np.ones((2, 3), np.float32)
    yield ErrorInput("k_too_large", (x,), {"k": 4}, ValueError, r"^top_k: .*k=4")
    yield ErrorInput("k_negative", (x,), {"k": -1}, ValueError, r"^top_k: .*k")
    yield ErrorInput("scalar", (np.float32(1),), {}, ValueError, r"^top_k: .*rank")
    yield ErrorInput("bool_input", (np.ones(3, np.bool_),), {}, TypeError, r"^top_k: .*dtype bool")


# --- tensordot / norm ---------------------------------------------------------


def ref_tensordot(a, b, axes):
    axes = [axes] if isinstance(axes, int) else list(axes)
    np_axes = axes[0] if len(axes) == 1 else (axes[:len(axes) // 2], axes[len(axes) // 2:])
    if a.dtype.kind == "f":
        return np.tensordot(a.astype(np.float64), b.astype(np.float64), np_axes).astype(a.dtype)
    return np.asarray(np.tensordot(a, b, np_axes)).astype(a.dtype)


def tensordot_samples(dtype, rng):
    m = lambda *s: make(rng, s, dtype)  # noqa: E731
    yield Sample("matrix_product", (m(3, 4), m(4, 5), 1))
    yield Sample("axis_pairs", (m(2, 3, 4), m(4, 3, 5), [1, 2, 1, 0]))
    yield Sample("single_pair_negative", (m(3, 4), m(4, 2), [-1, 0]))
    yield Sample("outer", (m(3), m(4), 0))
    yield Sample("full_to_scalar", (m(3, 4), m(3, 4), 2))
    yield Sample("empty", (m(0, 4), m(4, 5), 1))
    yield Sample("empty_contraction", (m(3, 0), m(0, 2), 1))
    yield Sample("large", (m(300, 40), m(40, 250), 1), tols={"float32": (1e-5, 1e-5)})


def tensordot_errors():
    x = np.ones((2, 3), np.float32)
    yield ErrorInput("dim_mismatch", (x, x, 1), {}, ValueError, r"^tensordot: .*differ")
    yield ErrorInput("n_too_large", (x, x, 3), {}, ValueError, r"^tensordot: .*axes")
    yield ErrorInput("odd_axes", (x, x, [0, 1, 0]), {}, ValueError, r"^tensordot: .*axes")
    yield ErrorInput("axis_out_of_range", (x, x, [2, 0]), {}, ValueError, r"^tensordot: .*range")
    yield ErrorInput("repeated_axis", (x, np.ones((2, 2), np.float32), [0, 0, 0, 1]), {}, ValueError,
                     r"^tensordot: .*repeated")
    yield ErrorInput("bool_input", (np.ones((2, 2), np.bool_),) * 2 + (1,), {}, TypeError,
                     r"^tensordot: .*dtype bool")


def ref_norm(tensor, ord="euclidean", axis=None, keepdims=False):  # noqa: A002
    x = np.abs(tensor.astype(np.float64))
    ax = _axes(axis)
    if isinstance(axis, list) and len(axis) == 2 and ord not in ("fro", "euclidean"):  # 1, inf, 2, 'nuc'
        return np.asarray(np.linalg.norm(tensor.astype(np.float64), ord=ord, axis=tuple(axis),
                                         keepdims=keepdims)).astype(tensor.dtype)
    if not isinstance(ord, str):  # a vector p-norm
        flat = x.ravel() if axis is None else x
        return np.asarray(np.linalg.norm(flat, ord=ord, axis=ax, keepdims=keepdims and axis is not None)
                          ).astype(tensor.dtype)
    if ord == "1":
        out = np.sum(x, axis=ax, keepdims=keepdims)
    elif ord == "inf":
        out = np.max(x, axis=ax, keepdims=keepdims, initial=0.0)
    else:
        out = np.sqrt(np.sum(x * x, axis=ax, keepdims=keepdims))
    return np.asarray(out).astype(tensor.dtype)


def norm_samples(dtype, rng):
    x3 = make(rng, (2, 3, 4), dtype)
    yield Sample("default", (x3,))
    yield Sample("axis1_l1", (x3,), {"ord": "1", "axis": 1})
    yield Sample("axis0_inf", (x3,), {"ord": "inf", "axis": 0})
    yield Sample("axis_neg_2_keepdims", (x3,), {"ord": "2", "axis": -1, "keepdims": True})
    yield Sample("fro_pair", (x3,), {"ord": "fro", "axis": [0, 2]})
    yield Sample("euclidean_pair_keepdims", (x3,), {"axis": [-1, -2], "keepdims": True})
    yield Sample("scalar", (make(rng, (), dtype),))
    yield Sample("empty", (make(rng, (0, 3), dtype),), {"axis": 0})
    yield Sample("large", (make(rng, (LARGE,), dtype),), {}, {"float32": (1e-4, 1e-4)})
    # tf.norm's other ords, composites of several ops: each rounds in the narrow types.
    loose = {"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2), "float32": (1e-5, 1e-5)}
    yield Sample("p3_axis1", (x3,), {"ord": 3, "axis": 1}, loose)
    yield Sample("p_half_all", (x3,), {"ord": 0.5}, loose)
    yield Sample("p1_5_keepdims", (x3,), {"ord": 1.5, "axis": -1, "keepdims": True}, loose)
    yield Sample("matrix_1", (x3,), {"ord": 1, "axis": [1, 2]}, loose)
    yield Sample("matrix_inf", (x3,), {"ord": np.inf, "axis": [2, 1]}, loose)
    yield Sample("matrix_2", (x3,), {"ord": 2, "axis": [0, 2]}, loose)
    yield Sample("matrix_nuc_keepdims", (x3,), {"ord": "nuc", "axis": [1, 2], "keepdims": True}, loose)


def norm_errors():
    x = np.ones((2, 3), np.float32)
    yield ErrorInput("fro_vector", (x,), {"ord": "fro", "axis": 1}, ValueError, r"^norm: .*ord")
    yield ErrorInput("unknown_ord", (x,), {"ord": "max", "axis": [0, 1]}, ValueError, r"^norm: .*ord")
    yield ErrorInput("nonpositive_p", (x,), {"ord": 0, "axis": 1}, ValueError, r"^norm: .*ord")
    yield ErrorInput("three_axes", (np.ones((2, 2, 2), np.float32),), {"axis": [0, 1, 2]}, ValueError,
                     r"^norm: .*axis")
    yield ErrorInput("axis_out_of_range", (x,), {"axis": 2}, ValueError, r"^norm: .*axis")
    yield ErrorInput("int_input", (np.ones(3, np.int32),), {}, TypeError, r"^norm: .*dtype int32")


def _pending(ember):
    """Records for ops whose definitions wait on codegen support (Note [Pending
    op definitions] in csrc/kernels/cpu/sort.cc), by op name."""
    return {
        "argmax": lambda: OpInfo("argmax", ember.argmax, ref_arg(np.argmax), arg_samples, arg_errors("argmax")),
        "argmin": lambda: OpInfo("argmin", ember.argmin, ref_arg(np.argmin), arg_samples, arg_errors("argmin")),
        "cumsum": lambda: OpInfo("cumsum", ember.cumsum, ref_scan(np.cumsum, 0), scan_samples("sum"),
                                 scan_errors("cumsum")),
        "cumprod": lambda: OpInfo("cumprod", ember.math.cumprod, ref_scan(np.cumprod, 1), scan_samples("prod"),
                                  scan_errors("cumprod")),
        "sort": lambda: OpInfo("sort", ember.sort, ref_sort, sort_samples, sort_errors("sort")),
        "argsort": lambda: OpInfo("argsort", ember.argsort, ref_argsort, argsort_samples, sort_errors("argsort")),
        "top_k": lambda: OpInfo("top_k", ember.math.top_k, ref_top_k, top_k_samples, top_k_errors),
        "tensordot": lambda: OpInfo("tensordot", ember.tensordot, ref_tensordot, tensordot_samples,
                                    tensordot_errors, tols={"float32": (1e-5, 1e-5), "complex64": (1e-5, 2e-5)}),
        "norm": lambda: OpInfo("norm", ember.linalg.norm, ref_norm, norm_samples, norm_errors),
    }


def entries(ember):
    m = ember.math
    defined = set(_C._op_names())
    pending = [make_info() for name, make_info in _pending(ember).items() if name in defined]
    return pending + [
        OpInfo("reduce_min", ember.reduce_min, ref_reduction(np_min), reduction_samples(),
               reduce_errors("reduce_min")),
        OpInfo("reduce_prod", ember.reduce_prod, ref_reduction(np.prod), reduction_samples("coarse", large=False),
               reduce_errors("reduce_prod")),
        OpInfo("reduce_any", ember.reduce_any, ref_reduction(np.any), bool_reduction_samples(),
               bool_reduction_errors("reduce_any")),
        OpInfo("reduce_all", ember.reduce_all, ref_reduction(np.all), bool_reduction_samples(),
               bool_reduction_errors("reduce_all")),
        OpInfo("reduce_logsumexp", ember.reduce_logsumexp, ref_reduction(np_logsumexp, float64=True),
               reduction_samples(), float_reduction_errors("reduce_logsumexp")),
        OpInfo("reduce_variance", m.reduce_variance, ref_reduction(np.var, float64=True), reduction_samples(),
               float_reduction_errors("reduce_variance")),
        OpInfo("reduce_std", m.reduce_std, ref_reduction(np.std, float64=True), reduction_samples(),
               float_reduction_errors("reduce_std")),
    ]

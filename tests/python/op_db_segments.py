"""op_db records for the segment, counting and searching ops (op_defs/segments.yaml).

The records call the ops themselves (ember._generated.ops) with their size attrs given, so
the generic tests can also trace them; the public functions that compute those sizes from
values (math.segment_*, math.bincount, unique) are tested in test_segments.py.
"""

import ml_dtypes
import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample, make

_HALF = (np.dtype(np.float16), np.dtype("bfloat16"))


def _errors(op_name, *cases):
    def gen():
        for name, args, kwargs, exc, pattern in cases:
            yield ErrorInput(name, args, kwargs, exc, rf"^{op_name}: {pattern}")
    return gen


def _compute_dtype(dtype):
    """The kernels compute float16 and bfloat16 in float32 (Note [Half compute])."""
    return np.dtype(np.float32) if np.dtype(dtype) in _HALF else np.dtype(dtype)


def _lowest_highest(dtype):
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype) if dtype.kind in "iu" else ml_dtypes.finfo(dtype)
    return info.min, info.max


# --- segment_* and unsorted_segment_* ----------------------------------------------


def _segment_ref(kind, sorted_ids):
    """NumPy reference: ufunc.at accumulates in index order, as the kernel does."""
    def ref(data, segment_ids, num_segments):
        dtype = data.dtype
        cdt = _compute_dtype(dtype)
        k = segment_ids.ndim
        inner = data.shape[k:]
        ids = segment_ids.reshape(-1).astype(np.int64)
        rows = data.reshape((ids.size,) + inner).astype(cdt)
        keep = ids >= 0
        ids, rows = ids[keep], rows[keep]
        lowest, highest = _lowest_highest(dtype)
        start = {"sum": 0, "mean": 0, "sqrt_n": 0, "prod": 1, "max": lowest, "min": highest}[kind]
        out = np.full((num_segments,) + inner, start, dtype=cdt)
        ufunc = {"prod": np.multiply, "max": np.maximum, "min": np.minimum}.get(kind, np.add)
        with np.errstate(over="ignore", invalid="ignore"):
            ufunc.at(out, ids, rows)
        counts = np.bincount(ids, minlength=num_segments).reshape((num_segments,) + (1,) * len(inner))
        if kind == "mean":
            n = np.maximum(counts, 1)
            if cdt.kind in "iu":
                wide = out.astype(np.int64)
                out = (np.sign(wide) * (np.abs(wide) // n)).astype(cdt)
            else:
                out = (out / n.astype(cdt)).astype(cdt)
        elif kind == "sqrt_n":
            out = (out / np.sqrt(np.maximum(counts, 1)).astype(cdt)).astype(cdt)
        elif sorted_ids and kind in ("max", "min"):
            out = np.where(counts == 0, cdt.type(0), out)
        return out.astype(dtype)
    return ref


def sorted_segment_samples(kind):
    def gen(dtype, rng):
        value_kind = "coarse" if kind == "prod" else "any"
        yield Sample("2d_gaps", (make(rng, (6, 3), dtype, value_kind), np.array([0, 0, 2, 2, 2, 5], np.int32), 6))
        yield Sample("1d_int64_ids", (make(rng, (5,), dtype, value_kind), np.array([0, 1, 1, 3, 3], np.int64), 4))
        yield Sample("3d", (make(rng, (4, 2, 3), dtype, value_kind), np.array([1, 1, 1, 2], np.int32), 3))
        yield Sample("trailing_empty_segments", (make(rng, (3, 2), dtype, value_kind), np.array([0, 0, 1]), 4))
        yield Sample("empty", (make(rng, (0, 3), dtype), np.zeros(0, np.int32), 0))
        ids = np.sort(rng.integers(0, 3000, LARGE)).astype(np.int32)
        yield Sample("large", (make(rng, (LARGE,), dtype, value_kind), ids, 3000))
    return gen


def unsorted_segment_samples(kind):
    # The small samples (the ones test_gradients differentiates) leave no segment empty:
    # max's identity, the dtype's lowest value, would swamp finite differences. Empty
    # segments are covered by "empty_segments" (over test_gradients' size limit), "empty"
    # and "large".
    def gen(dtype, rng):
        value_kind = "coarse" if kind == "prod" else "any"
        yield Sample("prefix_2d_ids", (make(rng, (4, 3, 2), dtype, value_kind),
                                       np.array([[0, 1, 2], [3, 4, 0], [1, -1, 2], [3, 4, 4]], np.int32), 5))
        yield Sample("1d_negative_ids", (make(rng, (6,), dtype, value_kind),
                                         np.array([3, -1, 0, 2, -2, 1], np.int64), 4))
        yield Sample("full_shape_ids", (make(rng, (2, 3), dtype, value_kind),
                                        np.array([[0, 1, 0], [1, 1, 2]], np.int32), 3))
        yield Sample("scalar_data_and_ids", (make(rng, (), dtype, value_kind), np.array(0, np.int32), 1))
        yield Sample("empty_segments", (make(rng, (101, 4), dtype, value_kind),
                                        rng.integers(-1, 50, 101).astype(np.int32), 60))
        yield Sample("empty", (make(rng, (0, 2), dtype), np.zeros(0, np.int32), 3))
        yield Sample("large", (make(rng, (LARGE,), dtype, value_kind),
                               rng.integers(-1, 1000, LARGE).astype(np.int64), 1000))
    return gen


_DATA = np.ones((3, 2), np.float32)
_IDS = np.array([0, 0, 1], np.int32)


def segment_errors(op_name):
    return _errors(
        op_name,
        ("ids_2d", (_DATA, np.zeros((3, 1), np.int32), 2), {}, ValueError, ".*segment_ids must be 1-D"),
        ("ids_length", (_DATA, np.zeros(2, np.int32), 2), {}, ValueError, ".*same size as dimension 0"),
        ("negative_num_segments", (_DATA, _IDS, -1), {}, ValueError, ".*num_segments must be >= 0"),
        ("float_ids", (_DATA, np.zeros(3, np.float32), 2), {}, TypeError, ".*"),
    )


def unsorted_segment_errors(op_name):
    return _errors(
        op_name,
        ("ids_not_a_prefix", (_DATA, np.zeros((3, 3), np.int32), 2), {}, ValueError, ".*must be a prefix"),
        ("ids_longer", (_DATA, np.zeros((3, 2, 1), np.int32), 2), {}, ValueError, ".*must be a prefix"),
        ("negative_num_segments", (_DATA, _IDS, -1), {}, ValueError, ".*num_segments must be >= 0"),
    )


# --- dense_bincount and histogram_fixed_width ----------------------------------------


def ref_dense_bincount(input, weights, size, binary_output=False):
    out = np.zeros((input.shape[0], size), weights.dtype)
    for r, row in enumerate(input):
        keep = row < size
        w = weights[r][keep] if weights.size else None
        counts = np.bincount(row[keep], weights=w, minlength=size)[:size]
        out[r] = (counts > 0) if binary_output else counts.astype(weights.dtype)
    return out


def dense_bincount_samples(dtype, rng):
    def ints(shape, high, idx=np.int32):
        return rng.integers(0, high, shape).astype(idx)
    yield Sample("counts", (ints((1, 20), 6), np.zeros(0, dtype), 8))
    yield Sample("weighted_rows", (ints((3, 7), 5, np.int64), make(rng, (3, 7), dtype), 5))
    yield Sample("beyond_size_dropped", (ints((2, 9), 10), make(rng, (2, 9), dtype), 4))
    yield Sample("binary", (ints((2, 9), 6), np.zeros(0, dtype), 6, True))
    yield Sample("empty", (ints((1, 0), 3), np.zeros(0, dtype), 3))
    yield Sample("large", (ints((1, LARGE), 200), make(rng, (1, LARGE), dtype), 200),
                 tols={"float32": (1e-4, 1e-3), "float64": (1e-9, 1e-9)})


def ref_histogram(values, value_range, nbins=100, dtype="int32"):
    lo, hi = value_range
    v = values.reshape(-1)
    if v.dtype.kind == "f":
        v = v[~np.isnan(v)]
        offset = (np.maximum(v, lo) - lo).astype(np.float64)
    else:
        offset = np.maximum(v.astype(np.float64), float(lo)) - float(lo)
    step = (float(hi) - float(lo)) / nbins
    bins = np.minimum(np.floor(offset / step), nbins - 1).astype(np.int64)
    return np.bincount(bins, minlength=nbins).astype(dtype)


def histogram_samples(dtype, rng):
    span = np.array([-2, 2] if np.dtype(dtype).kind == "f" else [-5, 5], dtype)
    yield Sample("clamped", (make(rng, (20,), dtype), span), {"nbins": 5})
    yield Sample("2d_int64_counts", (make(rng, (4, 6), dtype), span), {"nbins": 7, "dtype": "int64"})
    yield Sample("scalar", (make(rng, (), dtype), span), {"nbins": 3})
    yield Sample("empty", (make(rng, (0, 3), dtype), span), {"nbins": 4})
    yield Sample("default_nbins", (make(rng, (30,), dtype), span))
    yield Sample("large", (make(rng, (LARGE,), dtype), span), {"nbins": 50})


# --- unique_index, searchsorted, reverse_sequence -------------------------------------


def ref_unique_index(x, out_idx="int32"):
    _, first, inverse = np.unique(x.astype(np.float64), return_index=True, return_inverse=True)
    rank = np.empty(first.size, np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[inverse.reshape(-1)].astype(out_idx)


def unique_index_samples(dtype, rng):
    yield Sample("ties", (make(rng, (12,), dtype, "coarse"),))
    yield Sample("int64_out", (make(rng, (9,), dtype, "coarse"),), {"out_idx": "int64"})
    yield Sample("distinct", (np.arange(5).astype(dtype),))
    yield Sample("empty", (make(rng, (0,), dtype),))
    yield Sample("large", (make(rng, (LARGE,), dtype),))


def ref_searchsorted(sorted_sequence, values, side="left", out_type="int32"):
    rows = int(np.prod(values.shape[:-1]))
    seq = sorted_sequence.astype(np.float64).reshape(rows, sorted_sequence.shape[-1])
    vals = values.astype(np.float64).reshape(rows, values.shape[-1])
    out = np.zeros(vals.shape, np.int64)
    for r in range(rows):
        out[r] = np.searchsorted(seq[r], vals[r], side=side)
    return out.reshape(values.shape).astype(out_type)


def searchsorted_samples(dtype, rng):
    def sorted_rows(shape):
        return np.sort(make(rng, shape, dtype, "coarse").astype(np.float64), axis=-1).astype(dtype)
    yield Sample("1d", (sorted_rows((10,)), make(rng, (7,), dtype, "coarse")))
    yield Sample("2d_right", (sorted_rows((3, 8)), make(rng, (3, 5), dtype, "coarse")), {"side": "right"})
    yield Sample("3d_int64", (sorted_rows((2, 2, 6)), make(rng, (2, 2, 4), dtype, "coarse")), {"out_type": "int64"})
    yield Sample("rows_regrouped", (sorted_rows((4, 5)), make(rng, (2, 2, 3), dtype, "coarse")))
    yield Sample("empty", (sorted_rows((3, 0)), make(rng, (3, 4), dtype)))
    yield Sample("large", (sorted_rows((LARGE,)), make(rng, (LARGE,), dtype)), {"side": "right"})


def ref_reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None):
    batch_axis = 0 if batch_axis is None else batch_axis
    moved = np.moveaxis(input, (batch_axis, seq_axis), (0, 1)).copy()
    for b, n in enumerate(seq_lengths):
        moved[b, :n] = moved[b, :n][::-1]
    return np.moveaxis(moved, (0, 1), (batch_axis, seq_axis))


def reverse_sequence_samples(dtype, rng):
    yield Sample("2d", (make(rng, (3, 5), dtype), np.array([0, 3, 5], np.int32)), {"seq_axis": 1})
    yield Sample("3d_batch_last", (make(rng, (4, 2, 3), dtype), np.array([2, 4, 1], np.int64)),
                 {"seq_axis": 0, "batch_axis": 2})
    yield Sample("negative_axes", (make(rng, (2, 3, 4), dtype), np.array([1, 3], np.int32)),
                 {"seq_axis": -2, "batch_axis": -3})
    yield Sample("empty", (make(rng, (0, 4), dtype), np.zeros(0, np.int32)), {"seq_axis": 1})
    yield Sample("large", (make(rng, (2, LARGE // 2), dtype), np.array([LARGE // 2, 1000], np.int32)),
                 {"seq_axis": 1})


def entries(ember):
    from ember._generated import ops

    records = []
    for kind in ("sum", "mean", "max", "min", "prod"):
        name = f"segment_{kind}"
        records.append(OpInfo(name, getattr(ops, name), _segment_ref(kind, True), sorted_segment_samples(kind),
                              segment_errors(name), tols={"float16": (2e-3, 2e-3)}))
    for kind in ("sum", "mean", "sqrt_n", "max", "min", "prod"):
        name = f"unsorted_segment_{kind}"
        records.append(OpInfo(name, getattr(ops, name), _segment_ref(kind, False), unsorted_segment_samples(kind),
                              unsorted_segment_errors(name), tols={"float16": (2e-3, 2e-3)}))
    records += [
        OpInfo("dense_bincount", ops.dense_bincount, ref_dense_bincount, dense_bincount_samples, _errors(
            "dense_bincount",
            ("input_1d", (np.zeros(3, np.int32), np.zeros(0, np.float32), 2), {}, ValueError, ".*2-D"),
            ("weights_shape", (np.zeros((1, 3), np.int32), np.ones((1, 2), np.float32), 2), {}, ValueError,
             ".*weights"),
            ("negative_size", (np.zeros((1, 3), np.int32), np.zeros(0, np.float32), -1), {}, ValueError, ".*size"),
        ), type_var="T"),
        OpInfo("unique_index", ops.unique_index, ref_unique_index, unique_index_samples, _errors(
            "unique_index", ("x_2d", (np.zeros((2, 2), np.float32),), {}, ValueError, ".*1-D"),
            ("out_idx_float", (np.zeros(2, np.float32),), {"out_idx": "float32"}, TypeError, ".*"))),
        OpInfo("searchsorted", ember.searchsorted, ref_searchsorted, searchsorted_samples, _errors(
            "searchsorted",
            ("bad_side", (np.zeros(3, np.float32), np.zeros(2, np.float32)), {"side": "middle"}, ValueError,
             ".*side"),
            ("row_mismatch", (np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32)), {}, ValueError,
             ".*Leading dim_size"),
            ("scalar_values", (np.zeros(3, np.float32), np.float32(1)), {}, ValueError, ".*rank >= 1"))),
        OpInfo("reverse_sequence", ember.reverse_sequence, ref_reverse_sequence, reverse_sequence_samples, _errors(
            "reverse_sequence",
            ("no_seq_axis", (np.zeros((2, 3), np.float32), np.zeros(2, np.int32)), {}, ValueError,
             ".*seq_axis is required"),
            ("same_axes", (np.zeros((2, 3), np.float32), np.zeros(2, np.int32)), {"seq_axis": 0}, ValueError,
             ".*must differ"),
            ("lengths_size", (np.zeros((2, 3), np.float32), np.zeros(3, np.int32)), {"seq_axis": 1}, ValueError,
             ".*seq_lengths has 3 entries"),
            ("axis_range", (np.zeros((2, 3), np.float32), np.zeros(2, np.int32)), {"seq_axis": 2}, ValueError,
             ".*out of range"))),
        OpInfo("histogram_fixed_width", ember.histogram_fixed_width, ref_histogram, histogram_samples, _errors(
            "histogram_fixed_width",
            ("zero_bins", (np.zeros(3, np.float32), np.array([0, 1], np.float32)), {"nbins": 0}, ValueError,
             ".*nbins"),
            ("range_shape", (np.zeros(3, np.float32), np.array([0, 1, 2], np.float32)), {}, ValueError,
             ".*value_range"),
            ("bool_values", (np.zeros(3, np.bool_), np.array([0, 1], np.bool_)), {}, TypeError, ".*"))),
    ]
    return records

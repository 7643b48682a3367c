"""op_db records for the movement and indexing ops (op_defs/movement.yaml, op_defs/indexing.yaml)."""

import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample, make

# --- NumPy references ----------------------------------------------------------


def ref_squeeze(x, axis=None):
    return np.squeeze(x, axis=None if axis is None else tuple(np.atleast_1d(axis)))


def ref_pad(x, paddings, mode="CONSTANT", constant_values=0):
    kwargs = {"constant_values": np.asarray(constant_values).astype(x.dtype)} if mode.upper() == "CONSTANT" else {}
    if x.ndim == 0:
        return x.copy()
    return np.pad(x, np.asarray(paddings, np.int64), mode=mode.lower(), **kwargs)


def ref_slice(x, begin, size):
    return x[tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))]


def ref_strided_slice(x, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                      shrink_axis_mask=0):
    key = []
    for i in range(len(begin)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(begin[i])
        else:
            key.append(slice(None if begin_mask & bit else begin[i], None if end_mask & bit else end[i],
                             1 if strides is None else strides[i]))
    return np.array(x[tuple(key)])


def ref_gather(params, indices, axis=None, batch_dims=0):
    axis = batch_dims if axis is None else axis % params.ndim
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([ref_gather(p, i, axis - 1, batch_dims - 1) for p, i in zip(params, indices)])


def ref_gather_nd(params, indices, batch_dims=0):
    if batch_dims == 0:
        return np.array(params[tuple(np.moveaxis(indices, -1, 0))])
    return np.stack([ref_gather_nd(p, i, batch_dims - 1) for p, i in zip(params, indices)])


def ref_scatter_nd(indices, updates, shape):
    out = np.zeros(shape, updates.dtype)
    (np.logical_or if updates.dtype == np.bool_ else np.add).at(out, tuple(np.moveaxis(indices, -1, 0)), updates)
    return out


def ref_tensor_scatter_nd_update(tensor, indices, updates):
    out = tensor.copy()
    out[tuple(np.moveaxis(indices, -1, 0))] = updates
    return out


def ref_one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None):
    if dtype is None:
        dtype = np.asarray(on_value).dtype if on_value is not None else np.float32
    eye = np.eye(depth, dtype=np.float64)
    valid = (indices >= 0) & (indices < depth)
    hot = np.where(valid[..., None], eye[np.clip(indices, 0, max(depth - 1, 0))] if depth else
                   np.zeros(indices.shape + (0,)), 0.0)
    out = np.where(hot == 1, 1.0 if on_value is None else on_value, 0.0 if off_value is None else off_value)
    if axis not in (None, -1):
        out = np.moveaxis(out, -1, axis)
    return out.astype(dtype)


def ref_range(start, limit, delta=1, dtype=None):
    """Computed in int64 or float64 and cast: narrow integers wrap and
    float16 rounds (to inf past 65504) like the kernel's static_cast."""
    dtype = np.dtype(dtype)
    wide = np.int64 if dtype.kind in "iu" else np.float64
    with np.errstate(over="ignore"):
        return np.arange(start, limit, delta, wide).astype(dtype)


def ref_linspace(start, stop, num, axis=0):
    return np.linspace(start.astype(np.float64), stop.astype(np.float64), num, axis=axis).astype(start.dtype)


def ref_eye(num_rows, num_columns=None, batch_shape=None, dtype="float32"):
    m = np.eye(num_rows, num_columns, dtype=dtype)
    return np.array(np.broadcast_to(m, tuple(batch_shape or ()) + m.shape))


# --- Samples -------------------------------------------------------------------


def _index(rng, n, shape, dtype=np.int32):
    return rng.integers(0, n, shape).astype(dtype)


def expand_dims_samples(dtype, rng):
    yield Sample("middle", (make(rng, (2, 3), dtype), 1))
    yield Sample("negative", (make(rng, (2, 3), dtype), -1))
    yield Sample("scalar", (make(rng, (), dtype), 0))
    yield Sample("large", (make(rng, (LARGE,), dtype), 0))


def squeeze_samples(dtype, rng):
    yield Sample("all", (make(rng, (1, 3, 1, 2), dtype),))
    yield Sample("axis_list", (make(rng, (1, 3, 1), dtype),), {"axis": [-1]})
    yield Sample("axis_int", (make(rng, (1, 3, 1), dtype),), {"axis": 0})
    yield Sample("empty", (make(rng, (0, 1), dtype),), {"axis": 1})
    yield Sample("large", (make(rng, (LARGE, 1), dtype),))


def tile_samples(dtype, rng):
    yield Sample("2d", (make(rng, (2, 3), dtype), [2, 3]))
    yield Sample("zero", (make(rng, (2, 3), dtype), [0, 1]))
    yield Sample("scalar", (make(rng, (), dtype), []))
    yield Sample("large", (make(rng, (100, 70), dtype), [10, 1]))


def pad_samples(dtype, rng):
    x = make(rng, (3, 4), dtype)
    yield Sample("constant", (x, [[1, 2], [0, 3]]))
    yield Sample("constant_value", (x, [[1, 0], [2, 1]]), {"constant_values": 1})
    yield Sample("reflect", (x, [[2, 2], [3, 1]]), {"mode": "REFLECT"})
    yield Sample("symmetric", (make(rng, (2, 3, 2), dtype), [[2, 1], [3, 3], [0, 2]]), {"mode": "symmetric"})
    yield Sample("scalar", (make(rng, (), dtype), []))
    yield Sample("large", (make(rng, (300, 250), dtype), [[3, 2], [1, 4]]), {"mode": "REFLECT"})


def broadcast_to_samples(dtype, rng):
    yield Sample("bcast_col_row", (make(rng, (3, 1), dtype), [2, 3, 4]))
    yield Sample("scalar", (make(rng, (), dtype), [2, 3]))
    yield Sample("empty", (make(rng, (1, 3), dtype), [0, 3]))
    yield Sample("large", (make(rng, (1, 100), dtype), [700, 100]))


def slice_samples(dtype, rng):
    yield Sample("2d", (make(rng, (4, 5), dtype), [1, 2], [2, 3]))
    yield Sample("to_end", (make(rng, (4, 5), dtype), [1, 0], [-1, 2]))
    yield Sample("empty", (make(rng, (4, 5), dtype), [4, 0], [0, -1]))
    yield Sample("large", (make(rng, (400, 300), dtype), [10, 20], [350, -1]))


def strided_slice_samples(dtype, rng):
    x = make(rng, (4, 5, 6), dtype)
    yield Sample("basic", (x, [1, 0, 2], [3, 5, 6], [1, 2, 2]))
    yield Sample("negative_stride", (x, [-1, 4], [0, 0], [-1, -2]), {"end_mask": 1})
    yield Sample("masks", (x, [0, 1, 0], [0, 3, 0], [1, 1, 1]),
                 {"begin_mask": 1, "end_mask": 1, "shrink_axis_mask": 4})
    yield Sample("ellipsis_new_axis", (x, [0, 0, 2], [0, 0, 3], [1, 1, 1]),
                 {"ellipsis_mask": 1, "new_axis_mask": 2, "shrink_axis_mask": 4})
    yield Sample("clamped", (x, [-10, 2], [10, 100], None))
    yield Sample("large", (make(rng, (300, 400), dtype), [0, 399], [300, 0], [2, -3]), {"end_mask": 2})


def reverse_samples(dtype, rng):
    yield Sample("one_axis", (make(rng, (3, 4), dtype), [1]))
    yield Sample("two_axes", (make(rng, (2, 3, 4), dtype), [0, -1]))
    yield Sample("empty", (make(rng, (0, 3), dtype), [0]))
    yield Sample("large", (make(rng, (300, 250), dtype), [0, 1]))


def roll_samples(dtype, rng):
    yield Sample("one_axis", (make(rng, (3, 4), dtype), 1, 1))
    yield Sample("two_axes", (make(rng, (3, 4, 5), dtype), [2, -7], [0, 2]))
    yield Sample("repeated_axis", (make(rng, (6,), dtype), [2, 3], [0, 0]))
    yield Sample("empty", (make(rng, (0, 3), dtype), 1, 1))
    yield Sample("large", (make(rng, (300, 250), dtype), [5, -11], [0, 1]))


def gather_samples(dtype, rng):
    p = make(rng, (5, 4, 3), dtype)
    yield Sample("axis0", (p, _index(rng, 5, (2, 3))))
    yield Sample("axis1_int64", (p, _index(rng, 4, (6,), np.int64)), {"axis": 1})
    yield Sample("axis_neg", (p, _index(rng, 3, ())), {"axis": -1})
    yield Sample("batch_dims", (p, _index(rng, 4, (5, 2))), {"axis": 1, "batch_dims": 1})
    yield Sample("empty", (p, np.zeros((0,), np.int32)))
    yield Sample("large", (make(rng, (1000, 70), dtype), _index(rng, 1000, (1000,))))


def gather_nd_samples(dtype, rng):
    p = make(rng, (4, 5, 3), dtype)
    idx2 = np.stack([_index(rng, 4, (3,)), _index(rng, 5, (3,))], axis=-1)
    yield Sample("slices", (p, idx2))
    yield Sample("elements_int64", (p, np.array([[0, 1, 2], [3, 4, 0]], np.int64)))
    yield Sample("batch_dims", (p, _index(rng, 5, (4, 2, 1))), {"batch_dims": 1})
    yield Sample("empty", (p, np.zeros((0, 2), np.int32)))
    yield Sample("large", (make(rng, (500, 140), dtype), _index(rng, 500, (500, 1))))


def scatter_nd_samples(dtype, rng):
    yield Sample("elements", (np.array([[0, 1], [2, 3], [0, 1]], np.int32), make(rng, (3,), dtype), [3, 4]))
    yield Sample("slices_int64", (np.array([[2], [0]], np.int64), make(rng, (2, 4), dtype), [3, 4]))
    yield Sample("empty", (np.zeros((0, 1), np.int32), make(rng, (0, 4), dtype), [3, 4]))
    yield Sample("large", (_index(rng, 700, (50, 1)), make(rng, (50, 100), dtype), [700, 100]))


def tensor_scatter_nd_update_samples(dtype, rng):
    t = make(rng, (4, 5), dtype)
    yield Sample("elements", (t, np.array([[0, 1], [3, 4]], np.int32), make(rng, (2,), dtype)))
    yield Sample("rows_int64", (t, np.array([[2], [0]], np.int64), make(rng, (2, 5), dtype)))
    yield Sample("empty", (t, np.zeros((0, 2), np.int32), make(rng, (0,), dtype)))
    rows = rng.permutation(700)[:50].reshape(50, 1).astype(np.int32)
    yield Sample("large", (make(rng, (700, 100), dtype), rows, make(rng, (50, 100), dtype)))


def one_hot_samples(dtype, rng):
    yield Sample("basic", (np.array([0, 2, -1, 5], np.int32), 4), {"dtype": dtype})
    # on_value / off_value as NumPy scalars of dtype: the output takes their dtype.
    on, off = np.ones((), np.dtype(dtype))[()], np.zeros((), np.dtype(dtype))[()]
    yield Sample("values_axis0", (np.array([[1, 0], [2, 2]], np.int64), 3),
                 {"on_value": on, "off_value": off, "axis": 0})
    yield Sample("scalar", (np.array(1, np.int32), 3), {"dtype": dtype})
    yield Sample("large", (_index(rng, 70, (1000,)), 70), {"dtype": dtype})


def metadata_samples(dtype, rng):
    yield Sample("2d", (make(rng, (2, 3), dtype),))
    yield Sample("scalar", (make(rng, (), dtype),))
    yield Sample("empty", (make(rng, (0, 3), dtype),))
    yield Sample("large", (make(rng, (LARGE,), dtype),))


def shape_samples(dtype, rng):
    yield from metadata_samples(dtype, rng)
    yield Sample("int64", (make(rng, (2, 3, 4), dtype),), {"out_type": "int64"})


def range_samples(dtype, rng):
    del rng
    yield Sample("basic", (2, 20, 3), {"dtype": dtype})
    if np.dtype(dtype).kind != "u":
        yield Sample("negative_delta", (10, -3, -2), {"dtype": dtype})
    yield Sample("empty", (4, 4), {"dtype": dtype})
    yield Sample("large", (0, LARGE), {"dtype": dtype})


def linspace_samples(dtype, rng):
    del rng
    yield Sample("basic", (np.array(0.0, dtype), np.array(1.0, dtype), 5))
    yield Sample("bcast_vector", (np.array([0.0, 1.0], dtype), np.array([[2.0], [4.0]], dtype), 3), {"axis": -1})
    yield Sample("one", (np.array(3.0, dtype), np.array(4.0, dtype), 1))
    yield Sample("empty", (np.array(0.0, dtype), np.array(1.0, dtype), 0))
    yield Sample("large", (np.array(-5.0, dtype), np.array(5.0, dtype), LARGE))


def eye_samples(dtype, rng):
    del rng
    yield Sample("square", (3,), {"dtype": dtype})
    yield Sample("wide_batch", (2,), {"num_columns": 4, "batch_shape": [2, 1], "dtype": dtype})
    yield Sample("empty", (0,), {"dtype": dtype})
    yield Sample("large", (300,), {"num_columns": 250, "dtype": dtype})


def ref_unstack(value, num=None, axis=0):
    return [np.take(value, i, axis) for i in range(value.shape[axis])]


def ref_split(value, num_or_size_splits, axis=0):
    if np.ndim(num_or_size_splits) == 0:
        return np.split(value, num_or_size_splits, axis)
    sizes = list(num_or_size_splits)
    if -1 in sizes:
        sizes[sizes.index(-1)] = value.shape[axis] - (sum(sizes) + 1)
    return np.split(value, np.cumsum(sizes)[:-1], axis)


def concat_samples(dtype, rng):
    yield Sample("axis0", ([make(rng, (2, 3), dtype), make(rng, (1, 3), dtype)], 0))
    yield Sample("axis_neg_three", ([make(rng, (2, 1), dtype), make(rng, (2, 3), dtype), make(rng, (2, 2), dtype)],
                                    -1))
    yield Sample("empty", ([make(rng, (0, 3), dtype), make(rng, (2, 3), dtype)], 0))
    yield Sample("large", ([make(rng, (350, 100), dtype), make(rng, (350, 100), dtype)], 1))


def stack_samples(dtype, rng):
    yield Sample("axis0", ([make(rng, (2, 3), dtype), make(rng, (2, 3), dtype)],))
    yield Sample("axis_last", ([make(rng, (2, 3), dtype)] * 3,), {"axis": -1})
    yield Sample("scalars", ([make(rng, (), dtype), make(rng, (), dtype)],))
    yield Sample("large", ([make(rng, (35_000,), dtype), make(rng, (35_000,), dtype)],), {"axis": 1})


def unstack_samples(dtype, rng):
    yield Sample("axis0", (make(rng, (3, 4), dtype),))
    yield Sample("axis1_num", (make(rng, (2, 3, 2), dtype),), {"num": 3, "axis": 1})
    yield Sample("empty", (make(rng, (2, 0), dtype),))
    yield Sample("large", (make(rng, (2, LARGE // 2), dtype),))


def split_samples(dtype, rng):
    yield Sample("equal", (make(rng, (6, 2), dtype), 3))
    yield Sample("sizes_axis1", (make(rng, (2, 7), dtype), [2, -1, 1]), {"axis": 1})
    yield Sample("empty_part", (make(rng, (4,), dtype), [0, 4]))
    yield Sample("large", (make(rng, (700, 100), dtype), [300, 400]))


# --- Error inputs --------------------------------------------------------------

_X = np.ones((2, 3), np.float32)
_I = np.array([[0, 1]], np.int32)


def _errors(op_name, *cases):
    def gen():
        for name, args, kwargs, exc, pattern in cases:
            yield ErrorInput(name, args, kwargs, exc, rf"^{op_name}: {pattern}")
    return gen




def entries(ember):
    return [
        OpInfo("expand_dims", ember.expand_dims, np.expand_dims, expand_dims_samples, _errors(
            "expand_dims", ("axis_out_of_range", (_X, 3), {}, ValueError, ".*axis"),
            ("axis_bad_type", (_X, "a"), {}, TypeError, ".*axis"))),
        OpInfo("squeeze", ember.squeeze, ref_squeeze, squeeze_samples, _errors(
            "squeeze", ("not_one", (_X,), {"axis": 0}, ValueError, ".*squeeze dim"),
            ("axis_out_of_range", (_X,), {"axis": [2]}, ValueError, ".*axis"))),
        OpInfo("tile", ember.tile, np.tile, tile_samples, _errors(
            "tile", ("wrong_length", (_X, [2]), {}, ValueError, ".*multiples"),
            ("negative", (_X, [1, -1]), {}, ValueError, ".*non-negative"))),
        OpInfo("pad", ember.pad, ref_pad, pad_samples, _errors(
            "pad", ("bad_mode", (_X, [[1, 1], [1, 1]]), {"mode": "WRAP"}, ValueError, ".*mode"),
            ("reflect_too_far", (_X, [[2, 0], [0, 0]]), {"mode": "REFLECT"}, ValueError, ".*at most"),
            ("wrong_rank", (_X, [[1, 1]]), {}, ValueError, ".*paddings"),
            ("not_pairs", (_X, [1, 1, 1, 1]), {}, ValueError, ".*shape \\[rank, 2\\]"))),
        OpInfo("broadcast_to", ember.broadcast_to, lambda x, shape: np.array(np.broadcast_to(x, shape)),
               broadcast_to_samples, _errors(
                   "broadcast_to", ("incompatible", (_X, [4, 3, 4]), {}, ValueError, ".*broadcast"),
                   ("negative", (_X, [-1, 3]), {}, ValueError, ".*non-negative"))),
        OpInfo("slice", ember.slice, ref_slice, slice_samples, _errors(
            "slice", ("begin_out_of_range", (_X, [3, 0], [1, 1]), {}, ValueError, ".*begin"),
            ("size_too_big", (_X, [1, 0], [2, 1]), {}, ValueError, ".*size"),
            ("wrong_length", (_X, [0], [1]), {}, ValueError, ".*begin"))),
        OpInfo("strided_slice", ember.strided_slice, ref_strided_slice, strided_slice_samples, _errors(
            "strided_slice", ("zero_stride", (_X, [0], [1], [0]), {}, ValueError, ".*non-zero"),
            ("shrink_out_of_range", (_X, [5], [6]), {"shrink_axis_mask": 1}, ValueError, ".*out of bounds"),
            ("too_many", (_X, [0, 0, 0], [1, 1, 1]), {}, ValueError, ".*too many"),
            ("length_mismatch", (_X, [0, 0], [1]), {}, ValueError, ".*same length"))),
        OpInfo("reverse", ember.reverse, lambda x, axis: np.flip(x, tuple(axis)), reverse_samples, _errors(
            "reverse", ("duplicate", (_X, [1, -1]), {}, ValueError, ".*duplicate"),
            ("out_of_range", (_X, [2]), {}, ValueError, ".*axis"))),
        OpInfo("roll", ember.roll, np.roll, roll_samples, _errors(
            "roll", ("length_mismatch", (_X, [1, 2], [0]), {}, ValueError, ".*same length"),
            ("out_of_range", (_X, 1, 5), {}, ValueError, ".*axis"))),
        OpInfo("gather", ember.gather, ref_gather, gather_samples, _errors(
            "gather", ("batch_dims_after_axis", (_X, _I), {"axis": 0, "batch_dims": 1}, ValueError, ".*batch_dims"),
            ("axis_out_of_range", (_X, _I), {"axis": 2}, ValueError, ".*axis"),
            ("float_indices", (_X, np.ones(2, np.float32)), {}, TypeError, ".*dtype float32"),
            ("scalar_params", (np.float32(1), _I), {}, ValueError, ".*scalar"))),
        OpInfo("gather_nd", ember.gather_nd, ref_gather_nd, gather_nd_samples, _errors(
            "gather_nd", ("depth_too_big", (_X, np.zeros((1, 3), np.int32)), {}, ValueError, ".*indices.shape"),
            ("scalar_indices", (_X, np.int32(0)), {}, ValueError, ".*scalar"),
            ("batch_mismatch", (_X, np.zeros((3, 1), np.int32)), {"batch_dims": 1}, ValueError, ".*must equal"))),
        OpInfo("scatter_nd", ember.scatter_nd, ref_scatter_nd, scatter_nd_samples, _errors(
            "scatter_nd", ("updates_shape", (_I, np.ones(2, np.float32), [3, 3]), {}, ValueError, ".*updates"),
            ("negative_shape", (_I, np.ones(1, np.float32), [-3, 3]), {}, ValueError, ".*non-negative"),
            ("depth_too_big", (np.zeros((1, 3), np.int32), np.ones(1, np.float32), [3, 3]), {}, ValueError,
             ".*indices.shape"))),
        OpInfo("tensor_scatter_nd_update", ember.tensor_scatter_nd_update, ref_tensor_scatter_nd_update,
               tensor_scatter_nd_update_samples, _errors(
                   "tensor_scatter_nd_update",
                   ("updates_shape", (_X, _I, np.ones((1, 3), np.float32)), {}, ValueError, ".*updates"),
                   ("float_indices", (_X, np.zeros((1, 2), np.float32), np.ones(1, np.float32)), {}, TypeError,
                    ".*dtype float32"))),
        OpInfo("one_hot", ember.one_hot, ref_one_hot, one_hot_samples, _errors(
            "one_hot", ("negative_depth", (np.zeros(2, np.int32), -1), {}, ValueError, ".*depth"),
            ("bad_axis", (np.zeros(2, np.int32), 3), {"axis": 2}, ValueError, ".*axis"),
            ("float_indices", (np.zeros(2, np.float32), 3), {}, TypeError, ".*dtype float32"))),
        OpInfo("shape", ember.shape, lambda x, out_type="int32": np.array(x.shape, out_type), shape_samples,
               _errors("shape", ("float_out_type", (_X,), {"out_type": "float32"}, TypeError, ".*float32"))),
        OpInfo("size", ember.size, lambda x, out_type="int32": np.array(x.size, out_type), metadata_samples,
               _errors("size", ("float_out_type", (_X,), {"out_type": "float32"}, TypeError, ".*float32"))),
        OpInfo("rank", ember.rank, lambda x: np.array(x.ndim, np.int32), metadata_samples,
               _errors("rank", ("not_a_tensor", (object(),), {}, TypeError, ".*"))),
        OpInfo("zeros_like", ember.zeros_like, np.zeros_like, metadata_samples,
               _errors("zeros_like", ("bad_dtype_attr", (_X,), {"dtype": "foo"}, TypeError, ".*"))),
        OpInfo("ones_like", ember.ones_like, np.ones_like, metadata_samples,
               _errors("ones_like", ("bad_dtype_attr", (_X,), {"dtype": "foo"}, TypeError, ".*"))),
        OpInfo("range", ember.range, ref_range,
               range_samples, _errors(
                   "range", ("zero_delta", (0, 5, 0), {}, ValueError, ".*delta != 0"),
                   ("wrong_direction", (5, 0, 1), {}, ValueError, ".*start <= limit"),
                   ("bool_dtype", (0, 5), {"dtype": "bool"}, TypeError, ".*bool"))),
        OpInfo("linspace", ember.linspace, ref_linspace, linspace_samples, _errors(
            "linspace", ("negative_num", (np.float32(0), np.float32(1), -1), {}, ValueError, ".*num"),
            ("axis_out_of_range", (np.float32(0), np.float32(1), 3), {"axis": 2}, ValueError, ".*axis"),
            ("incompatible", (np.zeros(2, np.float32), np.zeros(3, np.float32), 3), {}, ValueError,
             ".*[Ii]ncompatible"))),
        OpInfo("concat", ember.concat, lambda values, axis: np.concatenate(values, axis), concat_samples, _errors(
            "concat", ("mismatch", ([_X, np.ones((2, 2), np.float32)], 0), {}, ValueError, ".*must match"),
            ("scalars", ([np.float32(1), np.float32(2)], 0), {}, ValueError, ".*scalars"),
            ("axis_out_of_range", ([_X, _X], 2), {}, ValueError, ".*axis"))),
        OpInfo("stack", ember.stack, lambda values, axis=0: np.stack(values, axis), stack_samples, _errors(
            "stack", ("mismatch", ([_X, np.ones((3, 2), np.float32)],), {}, ValueError, ".*must match"),
            ("axis_out_of_range", ([_X, _X],), {"axis": 3}, ValueError, ".*axis"))),
        OpInfo("unstack", ember.unstack, ref_unstack, unstack_samples, _errors(
            "unstack", ("num_mismatch", (_X,), {"num": 3}, ValueError, ".*num"),
            ("scalar", (np.float32(1),), {}, ValueError, ".*scalar"))),
        OpInfo("split", ember.split, ref_split, split_samples, _errors(
            "split", ("not_divisible", (_X, 4), {"axis": 1}, ValueError, ".*divisible"),
            ("bad_sizes", (_X, [1, 1]), {"axis": 1}, ValueError, ".*sum"),
            ("two_unknown", (_X, [-1, -1]), {}, ValueError, ".*-1"))),
        OpInfo("eye", ember.eye, ref_eye, eye_samples, _errors(
            "eye", ("negative_rows", (-1,), {}, ValueError, ".*non-negative"),
            ("negative_batch", (2,), {"batch_shape": [-1]}, ValueError, ".*batch_shape"),
            ("bad_dtype", (2,), {"dtype": "foo"}, TypeError, ".*dtype"))),
    ]

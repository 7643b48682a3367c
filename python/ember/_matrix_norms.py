"""The norms of ``tf.norm`` that the norm op does not compute, built from
other ops: the vector p-norm for any p > 0, and the matrix 1-, inf-, 2-
and nuclear norms (the last two from singular values)."""

import math
import numbers

from ember import _creation, _decompositions, dtypes, _movement, _selection
from ember._generated import ops
from ember._strings import _dispatch


def _positive_axes(axis, rank):
    if not all(isinstance(a, numbers.Integral) for a in axis):
        raise ValueError(f"norm: axis must be None, an int or a pair of ints, got {axis!r}")
    axes = [int(a) for a in axis]
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"norm: axis {a} is out of range for a tensor of rank {rank}")
    axes = [a % rank for a in axes]
    if axes[0] == axes[1]:
        raise ValueError(f"norm: the two matrix axes must differ, got {list(axis)}")
    return axes


def _singular_values(x, axes):
    """The singular values of the matrices over `axes`, [batch..., P], with
    the other axes first, in their order; half types go through float32."""
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = _dispatch.transpose(x, rest + axes)
    narrow = x.dtype.name in ("float16", "bfloat16")
    s = _decompositions.svd(ops.cast(moved, dtypes.float32) if narrow else moved, compute_uv=False)
    return s, narrow


def matrix_or_p_norm(tensor, ord, axis, keepdims, matrix):  # noqa: A002
    x = _creation.convert_to_tensor(tensor)
    if not (x.dtype.is_floating):
        raise TypeError(f"norm: expected a floating tensor, got dtype {x.dtype.name}")
    if not matrix:
        if not (isinstance(ord, numbers.Real) and not isinstance(ord, bool) and ord > 0 and math.isfinite(ord)):
            raise ValueError(f"norm: ord must be 'euclidean', 1, 2, inf or a positive number for vector norms, "
                             f"got {ord!r}")
        if axis is not None:
            _check_vector_axis(axis, x.ndim)
        magnitudes = ops.abs(x)
        # Scaled by the largest magnitude so |x|^p neither overflows nor underflows.
        top = ops.reduce_max(magnitudes, axis=axis, keepdims=True)
        safe_top = _selection.where(ops.greater(top, _movement.zeros_like(top)), top, _movement.ones_like(top))
        total = ops.reduce_sum(ops.pow(magnitudes / safe_top, float(ord)), axis=axis, keepdims=True)
        result = ops.pow(total, 1.0 / float(ord)) * top
        return result if keepdims else _dispatch.reshape(result, _reduced_shape(x.shape, axis))
    axes = _positive_axes(axis, x.ndim)
    ord = {"1": 1, "inf": math.inf, "2": 2}.get(ord, ord) if isinstance(ord, str) else ord  # noqa: A001
    if ord in (1, math.inf):  # largest column (1) or row (inf) sum of magnitudes
        summed, other = (axes[0], axes[1]) if ord == 1 else (axes[1], axes[0])
        sums = ops.reduce_sum(ops.abs(x), axis=summed, keepdims=True)
        result = ops.reduce_max(sums, axis=other, keepdims=True)
    elif ord in (2, "nuc"):
        s, narrow = _singular_values(x, axes)
        reduced = ops.reduce_max(s, axis=-1) if ord != "nuc" else ops.reduce_sum(s, axis=-1)
        if narrow:
            reduced = ops.cast(reduced, x.dtype)
        shape = [1 if i in axes else d for i, d in enumerate(x.shape)]
        result = _dispatch.reshape(reduced, shape)
    else:
        raise ValueError(f"norm: ord must be 'fro', 'euclidean', 1, 2, inf or 'nuc' for matrix norms, got {ord!r}")
    if not keepdims:
        result = _dispatch.reshape(result, [d for i, d in enumerate(x.shape) if i not in axes])
    return result


def _reduced_shape(shape, axis):
    if axis is None:
        return []
    axes = {(int(a) % len(shape)) for a in ([axis] if isinstance(axis, int) else axis)}
    return [d for i, d in enumerate(shape) if i not in axes]


def _check_vector_axis(axis, rank):
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    if len(axes) != 1 or not all(isinstance(a, numbers.Integral) for a in axes):
        raise ValueError(f"norm: axis must be None, an int or a pair of ints, got {axis!r}")
    if not -rank <= axes[0] < rank:
        raise ValueError(f"norm: axis {axes[0]} is out of range for a tensor of rank {rank}")

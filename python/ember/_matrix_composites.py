"""Matrix helpers of ``tf.linalg`` built from existing ops (transpose,
matmul, where, reduce_sum): matrix_transpose, matvec, diag, diag_part,
trace and band_part. They work on batches (the last two dims are the
matrix) and differentiate through the ops they are made of."""

from ember._runtime import composite as _composite
from ember import _creation, dtypes, _movement, _selection
from ember._generated import ops
from ember._strings import _dispatch


def _matrix(value, op, min_rank=2):
    x = _creation.convert_to_tensor(value)
    if x.ndim < min_rank:
        raise ValueError(f"{op}: expected a tensor of rank {min_rank} or more, got shape {x.shape}")
    return x


def _only_main_diagonal(op, k):
    if k != 0:
        raise NotImplementedError(f"{op}: only the main diagonal (k=0) is supported, got k={k!r}")


@_composite
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swaps the last two dims (``tf.linalg.matrix_transpose``)."""
    del name
    x = _matrix(a, "matrix_transpose")
    if conjugate and x.dtype.is_complex:
        raise NotImplementedError("matrix_transpose: conjugate=True on complex tensors is not supported yet")
    perm = list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2]
    return _dispatch.transpose(x, perm)


@_composite
def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix-vector product over batches: a [..., M, N] times b [..., N]
    gives [..., M] (``tf.linalg.matvec``)."""
    del a_is_sparse, b_is_sparse, name
    a = _matrix(a, "matvec")
    b = _matrix(b, "matvec", min_rank=1)
    if adjoint_a and a.dtype.is_complex:
        raise NotImplementedError("matvec: adjoint_a on complex tensors is not supported yet")
    product = ops.matmul(a, _dispatch.expand_dims(b, -1), transpose_a=transpose_a or adjoint_a)
    return _dispatch.squeeze(product, [-1])


@_composite
def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Square matrices [..., N, N] with ``diagonal`` [..., N] on the main
    diagonal and zeros elsewhere (``tf.linalg.diag``, k=0)."""
    del name, align
    _only_main_diagonal("diag", k)
    d = _matrix(diagonal, "diag", min_rank=1)
    n = d.shape[-1]
    if num_rows not in (-1, n) or num_cols not in (-1, n) or padding_value != 0:
        raise NotImplementedError("diag: num_rows, num_cols and padding_value other than the defaults are not "
                                  "supported yet")
    mask = ops.cast(ops.eye(n), dtypes.bool)
    return _selection.where(mask, _dispatch.expand_dims(d, -1), ops.zeros([], d.dtype))


@_composite
def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """The main diagonal of [..., M, N] matrices, [..., min(M, N)]
    (``tf.linalg.diag_part``, k=0). Off-diagonal infinities and NaNs do not
    leak into it."""
    del name, padding_value, align
    _only_main_diagonal("diag_part", k)
    x = _matrix(input, "diag_part")
    m, n = x.shape[-2], x.shape[-1]
    size = min(m, n)
    square = x[..., :size, :size]
    mask = ops.cast(ops.eye(size), dtypes.bool)
    return ops.reduce_sum(_selection.where(mask, square, ops.zeros([], x.dtype)), axis=-1)


@_composite
def trace(x, name=None):
    """The sum of the main diagonal of [..., M, N] matrices (``tf.linalg.trace``)."""
    del name
    return ops.reduce_sum(diag_part(x), axis=-1)


@_composite
def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keeps the band of each matrix: element (i, j) stays if i - j <=
    num_lower and j - i <= num_upper, a negative bound keeping that whole
    triangle; the rest is zero (``tf.linalg.band_part``). band_part(x, -1, 0)
    is the lower triangle, band_part(x, 0, 0) the diagonal."""
    del name
    x = _matrix(input, "band_part")
    lower, upper = int(num_lower), int(num_upper)
    rows = _dispatch.expand_dims(_movement.range(x.shape[-2], dtype=dtypes.int64), -1)
    cols = _dispatch.expand_dims(_movement.range(x.shape[-1], dtype=dtypes.int64), 0)
    keep = _dispatch.equal(rows - cols, rows - cols)  # all true, [M, N]
    if lower >= 0:
        keep = ops.logical_and(keep, ops.less_equal(rows - cols, lower))
    if upper >= 0:
        keep = ops.logical_and(keep, ops.less_equal(cols - rows, upper))
    return _selection.where(keep, x, ops.zeros([], x.dtype))

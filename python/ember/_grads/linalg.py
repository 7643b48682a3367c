"""Gradients of the linear algebra ops (op_defs/linalg.yaml): matmul, tensordot,
norm, and the decompositions and solvers, with TensorFlow's formulas (real
dtypes: Ember has no conj op yet, so complex inputs raise)."""

import numpy as np

from ember._creation import constant
from ember._generated import ops
from ember._grads._util import keep_dims, normalized_axes, reduction_grad_broadcast, unbroadcast
from ember._matrix_composites import diag


def matmul(op, grad):
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    skip = op.skip_input_indices

    def mm(x, y, **transposes):  # a product nobody needs is not computed (OpRecord.skip_input_indices)
        return lambda: ops.matmul(x, y, **transposes)
    if not ta and not tb:
        ga, gb = mm(grad, b, transpose_b=True), mm(a, grad, transpose_a=True)
    elif ta and not tb:
        ga, gb = mm(b, grad, transpose_b=True), mm(a, grad)
    elif not ta and tb:
        ga, gb = mm(grad, b), mm(grad, a, transpose_a=True)
    else:
        ga, gb = mm(b, grad, transpose_a=True, transpose_b=True), mm(grad, a, transpose_a=True, transpose_b=True)
    # Batch dims broadcast in the forward pass: sum them back.
    return [None if 0 in skip else unbroadcast(ga(), a.shape), None if 1 in skip else unbroadcast(gb(), b.shape)]


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def tensordot(op, grad):
    # As an einsum: a's letters, b's with the contracted axes sharing a's,
    # the output a's free letters then b's; each gradient is an einsum back.
    a, b = op.inputs
    axes = [int(v) for v in op.attrs["axes"]]
    ra, rb = a.ndim, b.ndim
    if len(axes) == 1:
        n = axes[0]
        a_axes, b_axes = list(range(ra - n, ra)), list(range(n))
    else:
        half = len(axes) // 2
        a_axes, b_axes = [x % ra for x in axes[:half]], [x % rb for x in axes[half:]]
    a_sub = _LETTERS[:ra]
    b_letters = list(_LETTERS[ra:ra + rb])
    for i, j in zip(a_axes, b_axes):
        b_letters[j] = a_sub[i]
    b_sub = "".join(b_letters)
    out = "".join(ch for k, ch in enumerate(a_sub) if k not in a_axes) + \
        "".join(ch for k, ch in enumerate(b_sub) if k not in b_axes)
    return [ops.einsum(f"{out},{b_sub}->{a_sub}", [grad, b]), ops.einsum(f"{out},{a_sub}->{b_sub}", [grad, a])]


def norm(op, grad):
    x = op.inputs[0]
    ord_ = str(op.attrs["ord"]).lower()
    axes = normalized_axes(op.attrs["axis"], x.ndim)
    g = reduction_grad_broadcast(grad, x.shape, axes)
    y = keep_dims(op.outputs[0], x.shape, axes)
    if ord_ in ("euclidean", "fro", "2"):
        # x / |x|, taken as 0 where the norm is 0 (any subgradient would do).
        nonzero = ops.greater(y, ops.zeros_like(y))
        safe = ops.where(nonzero, y, ops.ones_like(y))
        return ops.multiply(g, ops.where(ops.broadcast_to(nonzero, list(x.shape)), ops.divide(x, safe),
                                         ops.zeros_like(x)))
    if ord_ == "1":
        return ops.multiply(g, ops.sign(x))
    if ord_ == "inf":
        hits = ops.cast(ops.equal(ops.abs(x), y), x.dtype)
        count = ops.reduce_sum(hits, axis=axes, keepdims=True)
        return ops.multiply(g, ops.divide(ops.multiply(hits, ops.sign(x)), count))
    raise LookupError(f"gradient: norm with ord={op.attrs['ord']!r} has no gradient yet")


# --- Decompositions and solvers --------------------------------------------


def _real_only(op):
    if op.inputs[0].dtype.is_complex:
        raise NotImplementedError(f"gradient: {op.name} of complex matrices is not supported yet")


def _mT(x):
    """The matrices of x transposed (real dtypes: the adjoint)."""
    rank = x.ndim
    return ops.transpose(x, list(range(rank - 2)) + [rank - 1, rank - 2])


def _or_zeros(grad, like):
    return ops.zeros_like(like) if grad is None else grad


def _scaled(matrices, per_matrix):
    """matrices [..., M, N] times per_matrix [...] (one factor per matrix)."""
    return ops.multiply(matrices, ops.expand_dims(ops.expand_dims(per_matrix, -1), -1))


def _diag(values):
    return diag(values)


def _lower_mask(n, diagonal, dtype):
    """An [n, n] constant: ones below the diagonal, `diagonal` on it."""
    return constant((np.tril(np.ones((n, n)), -1) + diagonal * np.eye(n)).astype(dtype.as_numpy_dtype))


def _safe_reciprocal(x):
    nonzero = ops.not_equal(x, ops.zeros_like(x))
    return ops.where(nonzero, ops.divide(ops.ones_like(x), ops.where(nonzero, x, ops.ones_like(x))), ops.zeros_like(x))


def _off_diagonal_reciprocal(values):
    """F[..., i, j] = 1 / (values[j] - values[i]) off the diagonal, 0 on it
    (and where two values are equal: the gradient is not defined there)."""
    diff = ops.subtract(ops.expand_dims(values, -2), ops.expand_dims(values, -1))
    n = values.shape[-1]
    return ops.multiply(_safe_reciprocal(diff), _lower_mask(n, 0.0, values.dtype) + _mT(_lower_mask(n, 0.0, values.dtype)))


def matrix_inverse(op, grad):
    _real_only(op)
    y = op.outputs[0]
    if op.attrs["adjoint"]:  # y = inv(a^T)
        return [ops.negative(ops.matmul(y, ops.matmul(grad, y, transpose_a=True)))]
    return [ops.negative(ops.matmul(y, ops.matmul(grad, y, transpose_b=True), transpose_a=True))]


def matrix_determinant(op, grad):
    # d det(a) = det(a) tr(inv(a) da): the gradient is g det(a) inv(a)^T.
    _real_only(op)
    a, det = op.inputs[0], op.outputs[0]
    return [_scaled(ops.matrix_inverse(a, adjoint=True), ops.multiply(grad, det))]


def log_matrix_determinant(op, grad_sign, grad_log_abs):
    # The sign is piecewise constant; log |det a| has gradient inv(a)^T.
    _real_only(op)
    a = op.inputs[0]
    return [_scaled(ops.matrix_inverse(a, adjoint=True), _or_zeros(grad_log_abs, op.outputs[1]))]


def matrix_solve(op, grad):
    _real_only(op)
    a, x = op.inputs[0], op.outputs[0]
    adjoint = op.attrs["adjoint"]
    grad_b = ops.matrix_solve(a, grad, adjoint=not adjoint)
    grad_a = ops.matmul(x, grad_b, transpose_b=True) if adjoint else ops.matmul(grad_b, x, transpose_b=True)
    return [ops.negative(grad_a), grad_b]


def cholesky(op, grad):
    # Murray's formula (TensorFlow's): with phi(m) the lower triangle of m
    # with half its diagonal, grad_a = sym(inv(l)^T phi(l^T g) inv(l)), where
    # sym(m) = (m + m^T) / 2 spreads it over both triangles.
    _real_only(op)
    l = op.outputs[0]
    n = l.shape[-1]
    l_inv = ops.matrix_triangular_solve(l, ops.eye(n, n, dtype=l.dtype), lower=True)
    middle = ops.multiply(ops.matmul(l, grad, transpose_a=True), _lower_mask(n, 0.5, l.dtype))
    grad_a = ops.matmul(ops.matmul(l_inv, middle, transpose_a=True), l_inv)
    return [ops.multiply(ops.add(grad_a, _mT(grad_a)), 0.5)]


def matrix_triangular_solve(op, grad):
    _real_only(op)
    a, b = op.inputs
    x = op.outputs[0]
    lower, adjoint = op.attrs["lower"], op.attrs["adjoint"]
    grad_b = ops.matrix_triangular_solve(a, grad, lower=lower, adjoint=not adjoint)
    grad_a = ops.matmul(x, grad_b, transpose_b=True) if adjoint else ops.matmul(grad_b, x, transpose_b=True)
    n = a.shape[-1]
    mask = _lower_mask(n, 1.0, a.dtype)  # only the triangle the op reads gets a gradient
    grad_a = ops.multiply(ops.negative(grad_a), mask if lower else _mT(mask))
    return [unbroadcast(grad_a, a.shape), unbroadcast(grad_b, b.shape)]


def _solve_with_r_adjoint(x, r):
    """x @ inv(r)^T for upper triangular r."""
    return _mT(ops.matrix_triangular_solve(r, _mT(x), lower=False))


def _qr_grad_deep(q, r, dq, dr):
    # a = q r with m >= n (Walter and Lehmann; TensorFlow's QrGrad).
    qdq = ops.matmul(q, dq, transpose_a=True)
    rdr = ops.matmul(r, dr, transpose_b=True)
    n = r.shape[-1]
    m_ = ops.add(ops.subtract(qdq, _mT(qdq)), ops.subtract(rdr, _mT(rdr)))
    tril = ops.multiply(m_, _lower_mask(n, 1.0, r.dtype))
    grad_a = ops.matmul(q, ops.add(dr, _solve_with_r_adjoint(tril, r)))
    grad_b = _solve_with_r_adjoint(ops.subtract(dq, ops.matmul(q, qdq)), r)
    return ops.add(grad_a, grad_b)


def qr(op, grad_q, grad_r):
    _real_only(op)
    a = op.inputs[0]
    q, r = op.outputs
    dq, dr = _or_zeros(grad_q, q), _or_zeros(grad_r, r)
    m, n = a.shape[-2], a.shape[-1]
    if op.attrs["full_matrices"] and m > n:
        raise NotImplementedError("gradient: qr with full_matrices=True and more rows than columns is not supported "
                                  "(TensorFlow does not define it either)")
    if m >= n:
        return [_qr_grad_deep(q, r, dq, dr)]
    # Wide a = [x, y], r = [u, v]: x = q u is the square case, y = q v.
    y = a[..., :, m:]
    u, v_ = r[..., :, :m], r[..., :, m:]
    du, dv = dr[..., :, :m], dr[..., :, m:]
    del v_
    dx = _qr_grad_deep(q, u, ops.add(dq, ops.matmul(y, dv, transpose_b=True)), du)
    dy = ops.matmul(q, dv)
    return [ops.concat([dx, dy], axis=-1)]


def svd(op, grad_s, grad_u, grad_v):
    # TensorFlow's SvdGrad, written for m <= n (a taller a is transposed).
    _real_only(op)
    a = op.inputs[0]
    s, u, v = op.outputs
    grad_s = _or_zeros(grad_s, s)
    if not op.attrs["compute_uv"]:
        _, u, v = ops.svd(a, compute_uv=True, full_matrices=False)
        return [ops.matmul(u, ops.matmul(_diag(grad_s), v, transpose_b=True))]
    grad_u, grad_v = _or_zeros(grad_u, u), _or_zeros(grad_v, v)
    m, n = a.shape[-2], a.shape[-1]
    if op.attrs["full_matrices"] and m != n:
        raise NotImplementedError("gradient: svd with full_matrices=True is only supported for square matrices")
    transposed = m > n
    if transposed:
        m, n = n, m
        u, v, grad_u, grad_v = v, u, grad_v, grad_u
    s_mat = _diag(s)
    f = _off_diagonal_reciprocal(ops.square(s))
    u_gu = ops.multiply(f, ops.matmul(u, grad_u, transpose_a=True))
    v_gv = ops.multiply(f, ops.matmul(v, grad_v, transpose_a=True))
    inner = ops.add(_diag(grad_s), ops.add(ops.matmul(ops.add(u_gu, _mT(u_gu)), s_mat),
                                           ops.matmul(s_mat, ops.add(v_gv, _mT(v_gv)))))
    grad_a = ops.matmul(u, ops.matmul(inner, v, transpose_b=True))
    if m != n:
        gv_t = _mT(grad_v)
        projected = ops.subtract(gv_t, ops.matmul(ops.matmul(gv_t, v), v, transpose_b=True))
        grad_a = ops.add(grad_a, ops.matmul(ops.matmul(u, _diag(_safe_reciprocal(s))), projected))
    return [_mT(grad_a) if transposed else grad_a]


def self_adjoint_eig(op, grad_e, grad_v):
    # TensorFlow's formula; the op reads the lower triangle, so the gradient
    # is symmetrized and put there (half on the diagonal, which both share).
    _real_only(op)
    e, v = op.outputs
    grad_e = _or_zeros(grad_e, e)
    if op.attrs["compute_v"]:
        f = _off_diagonal_reciprocal(e)
        inner = ops.add(_diag(grad_e), ops.multiply(f, ops.matmul(v, _or_zeros(grad_v, v), transpose_a=True)))
    else:
        _, v = ops.self_adjoint_eig(op.inputs[0], compute_v=True)
        inner = _diag(grad_e)
    grad_a = ops.matmul(v, ops.matmul(inner, v, transpose_b=True))
    n = e.shape[-1]
    return [ops.multiply(ops.add(grad_a, _mT(grad_a)), _lower_mask(n, 0.5, e.dtype))]


def matrix_solve_ls(op, grad):
    # Differentiates the normal equations the fast path solves (at l2 = 0
    # they are also the full-rank answer of the slow path). Tall a:
    # x = inv(a^T a + l I) a^T b; wide a: x = a^T inv(a a^T + l I) b.
    _real_only(op)
    a, b = op.inputs
    x = op.outputs[0]
    l2 = float(op.attrs["l2_regularizer"]) if op.attrs["fast"] else 0.0
    m, n = a.shape[-2], a.shape[-1]
    if m >= n:
        gram = ops.add(ops.matmul(a, a, transpose_a=True), ops.multiply(ops.eye(n, n, dtype=a.dtype), l2))
        z = ops.matrix_solve(gram, grad)
        residual = ops.subtract(b, ops.matmul(a, x))
        grad_a = ops.subtract(ops.matmul(residual, z, transpose_b=True), ops.matmul(ops.matmul(a, z), x, transpose_b=True))
        return [grad_a, ops.matmul(a, z)]
    gram = ops.add(ops.matmul(a, a, transpose_b=True), ops.multiply(ops.eye(m, m, dtype=a.dtype), l2))
    y = ops.matrix_solve(gram, b)
    w = ops.matrix_solve(gram, ops.matmul(a, grad))
    grad_a = ops.subtract(ops.subtract(ops.matmul(y, grad, transpose_b=True), ops.matmul(w, x, transpose_b=True)),
                          ops.matmul(ops.matmul(y, w, transpose_b=True), a))
    return [grad_a, w]

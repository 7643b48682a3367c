"""op_db entries for the matrix decompositions and solvers (op_defs/linalg.yaml),
checked against np.linalg in float64 / complex128.

Decompositions are not unique (signs, phases), so their records call a view
of the op: the reconstruction and the Gram matrices (q^H q = I) for every
dtype, and for real dtypes the factors with their signs fixed by a rule
both sides apply (a positive diagonal of r; a positive sum of cubes for
each singular vector or eigenvector). Every such view is a smooth function
of the input where the decomposition is, so the gradient checks of
test_gradients.py also go through it. Singular and non-finite inputs, and
the non-unique full_matrices columns, are tested in test_linalg.py.
"""

import numpy as np

from op_db import ErrorInput, OpInfo, Sample, make

# Solvers lose a few digits to the condition number.
TOLS = {"float32": (2e-4, 2e-4), "complex64": (2e-4, 2e-4), "float64": (1e-9, 1e-9)}


def _wide(x):
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def _adj(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _invertible(rng, shape, dtype):
    """Diagonally dominant matrices: well conditioned, far from singular."""
    n = shape[-1]
    return (make(rng, shape, dtype) + 3 * n * np.eye(n)).astype(dtype)


def _hermitian_pd(rng, shape, dtype):
    a = _wide(make(rng, shape, dtype))
    return (a @ _adj(a) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _out(fn):
    """Wraps a float64 reference so its arrays come back in the input's dtype."""
    def ref(x, *args, **kwargs):
        result = fn(_wide(x), *[_wide(a) if isinstance(a, np.ndarray) else a for a in args], **kwargs)
        if isinstance(result, tuple):
            return tuple(np.asarray(r).astype(x.dtype) for r in result)
        return np.asarray(result).astype(x.dtype)
    return ref


def _errors(op_name, square=True, two_inputs=False):
    def gen():
        # With two inputs, an rhs of the matrix's dtype and rows (int32 with int32: no promotion).
        args = lambda *xs: xs + ((np.ones(xs[0].shape[:-1] + (2,), xs[0].dtype),) if two_inputs else ())  # noqa: E731
        yield ErrorInput("rank1", args(np.ones((3,), np.float32)), {}, ValueError, rf"^{op_name}: .*rank >= 2")
        if square:
            yield ErrorInput("not_square", args(np.ones((2, 3), np.float32)), {}, ValueError,
                             rf"^{op_name}: .*square")
        yield ErrorInput("int_input", args(np.ones((2, 2), np.int32)), {}, TypeError, rf"^{op_name}: .*dtype int32")
        if two_inputs:
            yield ErrorInput("rows_mismatch", (np.eye(3, dtype=np.float32), np.ones((2, 2), np.float32)), {},
                             ValueError, rf"^{op_name}: .*rows")
            yield ErrorInput("rhs_rank1", (np.eye(3, dtype=np.float32), np.ones((3,), np.float32)), {},
                             ValueError, rf"^{op_name}: .*rhs must have rank >= 2")
    return gen


# --- inverse, determinants, solve ---------------------------------------------


def inverse_samples(dtype, rng):
    yield Sample("2d", (_invertible(rng, (3, 3), dtype),))
    yield Sample("batch", (_invertible(rng, (2, 3, 4, 4), dtype),))
    yield Sample("adjoint", (_invertible(rng, (2, 3, 3), dtype),), {"adjoint": True})
    yield Sample("1x1", (_invertible(rng, (1, 1), dtype),))
    yield Sample("empty_batch", (_invertible(rng, (0, 3, 3), dtype),))
    yield Sample("empty_matrices", (make(rng, (2, 0, 0), dtype),))
    yield Sample("large_batch", (_invertible(rng, (300, 6, 6), dtype),))
    yield Sample("large_matrix", (_invertible(rng, (80, 80), dtype),))


def ref_inverse(a, adjoint=False):
    return np.linalg.inv(_adj(a) if adjoint else a)


def det_samples(dtype, rng):
    yield Sample("2d", (make(rng, (3, 3), dtype),))
    yield Sample("batch", (make(rng, (2, 3, 4, 4), dtype),))
    yield Sample("1x1", (make(rng, (1, 1), dtype),))
    yield Sample("empty_batch", (make(rng, (0, 3, 3), dtype),))
    yield Sample("empty_matrices", (make(rng, (2, 0, 0), dtype),))  # det of 0x0 is 1
    yield Sample("large_batch", (make(rng, (300, 6, 6), dtype),))


def ref_slogdet(a):
    sign, log_abs = np.linalg.slogdet(a)
    return sign, log_abs


def solve_samples(dtype, rng):
    yield Sample("2d", (_invertible(rng, (3, 3), dtype), make(rng, (3, 2), dtype)))
    yield Sample("batch", (_invertible(rng, (2, 4, 4), dtype), make(rng, (2, 4, 3), dtype)))
    yield Sample("adjoint", (_invertible(rng, (2, 3, 3), dtype), make(rng, (2, 3, 1), dtype)), {"adjoint": True})
    yield Sample("no_columns", (_invertible(rng, (3, 3), dtype), make(rng, (3, 0), dtype)))
    yield Sample("empty_batch", (_invertible(rng, (0, 3, 3), dtype), make(rng, (0, 3, 2), dtype)))
    yield Sample("empty_matrices", (make(rng, (2, 0, 0), dtype), make(rng, (2, 0, 3), dtype)))
    yield Sample("large_batch", (_invertible(rng, (300, 6, 6), dtype), make(rng, (300, 6, 2), dtype)))


def ref_solve(a, b, adjoint=False):
    return np.linalg.solve(_adj(a) if adjoint else a, b)


def solve_errors():
    yield from _errors("matrix_solve", two_inputs=True)()
    yield ErrorInput("batch_mismatch", (np.ones((2, 3, 3), np.float32), np.ones((1, 3, 2), np.float32)), {},
                     ValueError, r"^matrix_solve: .*same batch")


# --- cholesky and triangular solves -------------------------------------------


def _symmetrized(ember, a):
    """(a + a^H) / 2 for square float matrices; anything else as it is, so
    that error inputs reach the op."""
    square = a.ndim >= 2 and a.shape[-1] == a.shape[-2]
    if not square or not (a.dtype.is_floating or a.dtype.is_complex):
        return a
    return 0.5 * (a + ember.linalg.adjoint(a))


def _cholesky_of_symmetric(ember):
    # Cholesky reads one triangle, its gradient is spread over both (as in
    # TensorFlow): the record symmetrizes its input so the two agree.
    def op(a):
        return ember.linalg.cholesky(_symmetrized(ember, a))
    return op


def cholesky_samples(dtype, rng):
    yield Sample("2d", (_hermitian_pd(rng, (3, 3), dtype),))
    yield Sample("batch", (_hermitian_pd(rng, (2, 3, 4, 4), dtype),))
    yield Sample("1x1", (_hermitian_pd(rng, (1, 1), dtype),))
    yield Sample("empty_batch", (_hermitian_pd(rng, (0, 3, 3), dtype),))
    yield Sample("empty_matrices", (make(rng, (2, 0, 0), dtype),))
    yield Sample("large_batch", (_hermitian_pd(rng, (300, 6, 6), dtype),))


def ref_cholesky(a):
    return np.linalg.cholesky(0.5 * (a + _adj(a)))


def triangular_samples(dtype, rng):
    m = lambda *s: _invertible(rng, s, dtype)  # noqa: E731 - garbage in the triangle that is not read
    b = lambda *s: make(rng, s, dtype)  # noqa: E731
    yield Sample("lower", (m(3, 3), b(3, 2)))
    yield Sample("upper", (m(3, 3), b(3, 2)), {"lower": False})
    yield Sample("lower_adjoint", (m(2, 3, 3), b(2, 3, 2)), {"adjoint": True})
    yield Sample("upper_adjoint", (m(2, 3, 3), b(2, 3, 2)), {"lower": False, "adjoint": True})
    yield Sample("bcast_batch", (m(2, 1, 3, 3), b(4, 3, 2)))
    yield Sample("bcast_matrix", (m(3, 3), b(2, 3, 1)))
    yield Sample("empty_batch", (m(0, 3, 3), b(0, 3, 2)))
    yield Sample("empty_matrices", (make(rng, (2, 0, 0), dtype), b(2, 0, 3)))
    yield Sample("large_batch", (m(300, 6, 6), b(300, 6, 2)))


def ref_triangular(a, b, lower=True, adjoint=False):
    t = np.tril(a) if lower else np.triu(a)
    if adjoint:
        t = _adj(t)
    return np.matmul(np.linalg.inv(t), b)


def triangular_errors():
    yield from _errors("matrix_triangular_solve", two_inputs=True)()
    yield ErrorInput("batch_mismatch", (np.ones((2, 3, 3), np.float32), np.ones((3, 3, 2), np.float32)), {},
                     ValueError, r"^matrix_triangular_solve: .*broadcast")


# --- qr, svd, eigh: views that are unique -------------------------------------


def _sign_rule(x):
    """+-1 per column of x [..., M, K]: the sign of the column's sum of cubes."""
    return np.where(np.sum(x ** 3, axis=-2) >= 0, 1.0, -1.0)


def _qr_view(ember):
    def op(a, full_matrices=False):
        q, r = ember.linalg.qr(a, full_matrices=full_matrices)
        k = min(a.shape[-2], a.shape[-1])
        views = [q @ r, ember.linalg.adjoint(q) @ q]
        if not a.dtype.is_complex:
            d = ember.sign(ember.linalg.diag_part(r))
            views += [q[..., :, :k] * ember.expand_dims(d, -2), r[..., :k, :] * ember.expand_dims(d, -1)]
        return tuple(views)
    return op


def ref_qr(a, full_matrices=False):
    q, r = np.linalg.qr(_wide(a), mode="complete" if full_matrices else "reduced")
    k = min(a.shape[-2], a.shape[-1])
    views = [q @ r, _adj(q) @ q]
    if a.dtype.kind != "c":
        d = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
        views += [q[..., :, :k] * d[..., None, :], r[..., :k, :] * d[..., :, None]]
    return tuple(np.asarray(v).astype(a.dtype) for v in views)


def qr_samples(dtype, rng):
    yield Sample("square", (make(rng, (3, 3), dtype),))
    yield Sample("tall", (make(rng, (2, 5, 3), dtype),))
    yield Sample("wide", (make(rng, (3, 5), dtype),))
    yield Sample("wide_full", (make(rng, (2, 3, 4), dtype),), {"full_matrices": True})
    yield Sample("square_full", (make(rng, (4, 4), dtype),), {"full_matrices": True})
    yield Sample("empty_batch", (make(rng, (0, 3, 2), dtype),))
    yield Sample("large_batch", (make(rng, (300, 6, 4), dtype),))


def _svd_view(ember):
    def op(a, full_matrices=False, compute_uv=True):
        if not compute_uv:
            return ember.linalg.svd(a, compute_uv=False)
        s, u, v = ember.linalg.svd(a, full_matrices=full_matrices)
        k = s.shape[-1]
        uk, vk = u[..., :, :k], v[..., :, :k]
        s_t = ember.cast(s, a.dtype)  # real for complex input
        views = [s, (uk * ember.expand_dims(s_t, -2)) @ ember.linalg.adjoint(vk), ember.linalg.adjoint(u) @ u,
                 ember.linalg.adjoint(v) @ v]
        if not a.dtype.is_complex:
            sign = ember.sign(ember.reduce_sum(uk * uk * uk, axis=-2, keepdims=True))
            views += [uk * sign, vk * sign]
        return tuple(views)
    return op


def ref_svd(a, full_matrices=False, compute_uv=True):
    w = _wide(a)
    if not compute_uv:
        return np.linalg.svd(w, compute_uv=False).astype(np.float32 if a.dtype == np.complex64 else a.dtype)
    u, s, vh = np.linalg.svd(w, full_matrices=full_matrices)
    v = _adj(vh)
    k = s.shape[-1]
    uk, vk = u[..., :, :k], v[..., :, :k]
    views = [(uk * s[..., None, :]) @ _adj(vk), _adj(u) @ u, _adj(v) @ v]
    if a.dtype.kind != "c":
        sign = _sign_rule(uk)[..., None, :]
        views += [uk * sign, vk * sign]
    real = np.float32 if a.dtype == np.complex64 else a.dtype  # s is real, as in TensorFlow
    return (s.astype(real),) + tuple(np.asarray(x).astype(a.dtype) for x in views)


def svd_samples(dtype, rng):
    yield Sample("square", (make(rng, (3, 3), dtype),))
    yield Sample("tall", (make(rng, (2, 5, 3), dtype),))
    yield Sample("wide", (make(rng, (3, 5), dtype),))
    yield Sample("square_full", (make(rng, (2, 3, 3), dtype),), {"full_matrices": True})
    yield Sample("values_only", (make(rng, (2, 4, 3), dtype),), {"compute_uv": False})
    yield Sample("empty_batch", (make(rng, (0, 3, 2), dtype),))
    yield Sample("large_batch", (make(rng, (300, 5, 4), dtype),))


def _eigh_view(ember):
    def op(a, values_only=False):
        sym = _symmetrized(ember, a)
        if values_only:
            return ember.linalg.eigvalsh(sym)
        e, v = ember.linalg.eigh(sym)
        views = [e, (v * ember.expand_dims(e, -2)) @ ember.linalg.adjoint(v), ember.linalg.adjoint(v) @ v]
        if not a.dtype.is_complex:
            views.append(v * ember.sign(ember.reduce_sum(v * v * v, axis=-2, keepdims=True)))
        return tuple(views)
    return op


def ref_eigh(a, values_only=False):
    w = _wide(a)
    sym = 0.5 * (w + _adj(w))
    e, v = np.linalg.eigh(sym)
    if values_only:
        return e.astype(a.dtype)
    views = [e, (v * e[..., None, :]) @ _adj(v), _adj(v) @ v]
    if a.dtype.kind != "c":
        views.append(v * _sign_rule(v)[..., None, :])
    return tuple(np.asarray(x).astype(a.dtype) for x in views)


def eigh_samples(dtype, rng):
    yield Sample("2d", (make(rng, (3, 3), dtype),))
    yield Sample("batch", (make(rng, (2, 3, 4, 4), dtype),))
    yield Sample("values_only", (make(rng, (2, 4, 4), dtype),), {"values_only": True})
    yield Sample("1x1", (make(rng, (1, 1), dtype),))
    yield Sample("empty_batch", (make(rng, (0, 3, 3), dtype),))
    yield Sample("empty_matrices", (make(rng, (2, 0, 0), dtype),))
    yield Sample("large_batch", (make(rng, (300, 6, 6), dtype),))


# --- least squares ---------------------------------------------------------------


def ref_lstsq(a, b, l2_regularizer=0.0, fast=True):
    if not fast:
        flat_a = a.reshape((-1,) + a.shape[-2:])
        flat_b = b.reshape((-1,) + b.shape[-2:])
        out = [np.linalg.lstsq(x, y, rcond=None)[0] for x, y in zip(flat_a, flat_b)]
        return np.array(out).reshape(a.shape[:-2] + (a.shape[-1], b.shape[-1]))
    m, n = a.shape[-2:]
    if m >= n:
        return np.linalg.solve(_adj(a) @ a + l2_regularizer * np.eye(n), _adj(a) @ b)
    return _adj(a) @ np.linalg.solve(a @ _adj(a) + l2_regularizer * np.eye(m), b)


def lstsq_samples(dtype, rng):
    x = lambda *s: make(rng, s, dtype)  # noqa: E731
    yield Sample("tall", (x(5, 3), x(5, 2)))
    yield Sample("tall_regularized", (x(2, 5, 3), x(2, 5, 2)), {"l2_regularizer": 0.5})
    yield Sample("square", (_invertible(rng, (3, 3), dtype), x(3, 1)))
    yield Sample("wide", (x(3, 5), x(3, 2)))
    yield Sample("wide_regularized", (x(3, 5), x(3, 2)), {"l2_regularizer": 0.25})
    yield Sample("tall_slow", (x(2, 5, 3), x(2, 5, 2)), {"fast": False})
    yield Sample("wide_slow", (x(3, 5), x(3, 2)), {"fast": False})
    yield Sample("empty_batch", (x(0, 5, 3), x(0, 5, 2)))
    yield Sample("no_equations", (x(0, 3), x(0, 2)))  # x = 0, the minimum-norm solution
    yield Sample("large_batch", (x(300, 6, 4), x(300, 6, 2)))


def lstsq_errors():
    yield from _errors("matrix_solve_ls", square=False, two_inputs=True)()
    yield ErrorInput("negative_l2", (np.ones((3, 2), np.float32), np.ones((3, 1), np.float32)),
                     {"l2_regularizer": -1.0}, ValueError, r"^matrix_solve_ls: .*l2_regularizer")


def entries(ember):
    la = ember.linalg
    return [
        OpInfo("matrix_inverse", la.inv, _out(ref_inverse), inverse_samples, _errors("matrix_inverse"), tols=TOLS),
        OpInfo("matrix_determinant", la.det, _out(np.linalg.det), det_samples, _errors("matrix_determinant"),
               tols=TOLS),
        OpInfo("log_matrix_determinant", la.slogdet, _out(ref_slogdet), det_samples,
               _errors("log_matrix_determinant"), tols=TOLS),
        OpInfo("matrix_solve", la.solve, _out(ref_solve), solve_samples, solve_errors, tols=TOLS),
        OpInfo("cholesky", _cholesky_of_symmetric(ember), _out(ref_cholesky), cholesky_samples, _errors("cholesky"),
               tols=TOLS),
        OpInfo("matrix_triangular_solve", la.triangular_solve, _out(ref_triangular), triangular_samples,
               triangular_errors, tols=TOLS),
        OpInfo("qr", _qr_view(ember), ref_qr, qr_samples, _errors("qr", square=False), tols=TOLS),
        OpInfo("svd", _svd_view(ember), ref_svd, svd_samples, _errors("svd", square=False), tols=TOLS),
        OpInfo("self_adjoint_eig", _eigh_view(ember), ref_eigh, eigh_samples, _errors("self_adjoint_eig"),
               tols=TOLS),
        OpInfo("matrix_solve_ls", la.lstsq, _out(ref_lstsq), lstsq_samples, lstsq_errors, tols=TOLS),
    ]

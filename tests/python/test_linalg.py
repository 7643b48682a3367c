"""ember.linalg's decompositions and solvers where the op database cannot
reach: singular and non-finite inputs (TensorFlow's errors and NaNs), the
non-unique columns of full_matrices, rank-deficient least squares, the
composites (logdet, cholesky_solve, eigvalsh, adjoint) and tf.norm's ords,
all against NumPy."""

import numpy as np
import pytest

import ember
from ember import linalg

RNG = np.random.default_rng(1234)


def _spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# --- Singular and non-finite inputs ------------------------------------------


@pytest.mark.parametrize("fn, message", [
    (lambda a: linalg.inv(a), r"^matrix_inverse: Input is not invertible"),
    (lambda a: linalg.solve(a, np.ones((3, 1))), r"^matrix_solve: Input matrix is not invertible"),
    (lambda a: linalg.triangular_solve(a, np.ones((3, 1))), r"^matrix_triangular_solve: Input matrix is not invertible"),
    (lambda a: linalg.cholesky(a), r"^cholesky: Cholesky decomposition was not successful"),
])
def test_singular_matrices_raise_invalid_argument(mode, fn, message):
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 0.0]])
    with pytest.raises(ember.errors.InvalidArgumentError, match=message):
        fn(singular).numpy()
    ember.sync()


def test_one_singular_matrix_in_a_batch_fails_the_call():
    batch = np.stack([np.eye(3), np.zeros((3, 3)), 2 * np.eye(3)])
    with pytest.raises(ember.errors.InvalidArgumentError, match="not invertible"):
        linalg.inv(batch).numpy()


def test_cholesky_of_an_indefinite_matrix_raises():
    with pytest.raises(ember.errors.InvalidArgumentError, match="^cholesky: "):
        linalg.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]])).numpy()


def test_determinants_of_singular_matrices():
    singular = np.array([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]]])
    np.testing.assert_array_equal(linalg.det(singular).numpy(), [0.0, 0.0])
    sign, log_abs = linalg.slogdet(singular)
    np.testing.assert_array_equal(sign.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(log_abs.numpy(), [-np.inf, -np.inf])


def test_slogdet_is_a_named_tuple_and_matches_numpy_for_complex():
    a = (RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3))).astype(np.complex64)
    result = linalg.slogdet(a)
    assert result._fields == ("sign", "log_abs_determinant")
    sign, log_abs = np.linalg.slogdet(a.astype(np.complex128))
    np.testing.assert_allclose(result.sign.numpy(), sign, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(result.log_abs_determinant.numpy(), log_abs, rtol=1e-4, atol=1e-5)
    assert result.log_abs_determinant.dtype == ember.complex64


def test_svd_of_non_finite_input_is_nan_like_tensorflow():
    a = np.array([[[1.0, np.nan], [0.0, 1.0]], [[2.0, 0.0], [0.0, 1.0]]])
    s, u, v = linalg.svd(a)
    assert np.isnan(s.numpy()[0]).all() and np.isnan(u.numpy()[0]).all() and np.isnan(v.numpy()[0]).all()
    np.testing.assert_allclose(s.numpy()[1], [2.0, 1.0])


def test_eigh_of_non_finite_input_raises():
    with pytest.raises(ember.errors.InvalidArgumentError, match="^self_adjoint_eig: "):
        linalg.eigh(np.array([[np.inf, 0.0], [0.0, 1.0]]))[0].numpy()


def test_eigh_reads_only_the_lower_triangle():
    a = _spd(4)
    garbage = a + np.triu(np.full((4, 4), 100.0), 1)
    np.testing.assert_allclose(linalg.eigvalsh(garbage).numpy(), np.linalg.eigvalsh(a), rtol=1e-10)


# --- Shapes TensorFlow allows that the op database does not cover -------------


@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 5), (4, 4), (3, 0), (0, 3)])
def test_qr_full_matrices(shape):
    a = RNG.standard_normal(shape)
    q, r = linalg.qr(a, full_matrices=True)
    m, n = shape[-2:]
    assert q.shape == shape[:-2] + (m, m) and r.shape == shape[:-2] + (m, n)
    q, r = q.numpy(), r.numpy()
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(m), q.shape), atol=1e-12)
    np.testing.assert_array_equal(np.tril(r, -1), 0)


@pytest.mark.parametrize("shape", [(5, 3), (2, 3, 5), (3, 0), (0, 2)])
def test_svd_full_matrices(shape):
    a = RNG.standard_normal(shape)
    s, u, v = linalg.svd(a, full_matrices=True)
    m, n = shape[-2:]
    k = min(m, n)
    assert s.shape == shape[:-2] + (k,) and u.shape == shape[:-2] + (m, m) and v.shape == shape[:-2] + (n, n)
    s, u, v = s.numpy(), u.numpy(), v.numpy()
    np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ np.swapaxes(v[..., :, :k], -1, -2), a, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(m), u.shape), atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(n), v.shape), atol=1e-12)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), atol=1e-12)


def test_svd_returns_v_not_its_adjoint_and_descending_values():
    a = RNG.standard_normal((4, 3))
    s, u, v = linalg.svd(a)
    assert np.all(np.diff(s.numpy()) <= 0)
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, a, atol=1e-12)


def test_complex_eigh_has_real_ascending_eigenvalues():
    x = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    h = (x @ x.conj().T).astype(np.complex64)
    e, v = linalg.eigh(h)
    assert e.dtype == ember.complex64
    np.testing.assert_allclose(e.numpy().imag, 0)
    np.testing.assert_allclose(e.numpy().real, np.linalg.eigvalsh(h.astype(np.complex128)), rtol=1e-4, atol=1e-4)
    v = v.numpy()
    np.testing.assert_allclose(v @ np.diag(e.numpy()) @ v.conj().T, h, rtol=1e-4, atol=1e-4)


def test_empty_matrices_in_a_huge_batch_do_not_walk_it():
    # 2^40 empty matrices: the kernels must return at once, not loop.
    huge = ember.zeros([2 ** 40, 0, 0])
    assert linalg.inv(huge).shape == (2 ** 40, 0, 0)
    assert linalg.cholesky(huge).shape == (2 ** 40, 0, 0)
    assert linalg.qr(ember.zeros([2 ** 40, 3, 0])).q.shape == (2 ** 40, 3, 0)
    assert linalg.svd(huge, compute_uv=False).shape == (2 ** 40, 0)
    assert linalg.eigvalsh(huge).shape == (2 ** 40, 0)
    ember.sync()


def test_rank_deficient_lstsq_slow_path_gives_the_minimum_norm_solution():
    a = RNG.standard_normal((6, 2)) @ RNG.standard_normal((2, 4))  # rank 2
    b = RNG.standard_normal((6, 3))
    x = linalg.lstsq(a, b, fast=False)
    np.testing.assert_allclose(x.numpy(), np.linalg.lstsq(a, b, rcond=None)[0], atol=1e-10)


def test_lstsq_fast_path_ignores_nothing_and_slow_path_ignores_l2():
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 1))
    ridge = np.linalg.solve(a.T @ a + 2.0 * np.eye(3), a.T @ b)
    np.testing.assert_allclose(linalg.lstsq(a, b, l2_regularizer=2.0).numpy(), ridge, rtol=1e-10)
    np.testing.assert_allclose(linalg.lstsq(a, b, l2_regularizer=2.0, fast=False).numpy(),
                               np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-10)


# --- Composites -------------------------------------------------------------------


def test_logdet_cholesky_solve_and_eigvalsh_match_numpy():
    a = _spd(4, (2,))
    np.testing.assert_allclose(linalg.logdet(a).numpy(), np.linalg.slogdet(a)[1], rtol=1e-12)
    b = RNG.standard_normal((2, 4, 3))
    chol = linalg.cholesky(a)
    np.testing.assert_allclose(linalg.cholesky_solve(chol, b).numpy(), np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(linalg.eigvalsh(a).numpy(), np.linalg.eigvalsh(a), rtol=1e-12)


def test_complex_logdet_and_adjoint():
    x = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    h = (x @ x.conj().T + 3 * np.eye(3)).astype(np.complex64)
    got = linalg.logdet(h)
    assert got.dtype == ember.float32  # TensorFlow's logdet takes the real part
    np.testing.assert_allclose(got.numpy(), np.linalg.slogdet(h.astype(np.complex128))[1], rtol=1e-4)
    s = linalg.svd(h, compute_uv=False)
    assert s.dtype == ember.float32  # and so does its svd
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(h.astype(np.complex128), compute_uv=False), rtol=1e-4)
    np.testing.assert_array_equal(linalg.adjoint(x.astype(np.complex64)).numpy(), x.conj().T.astype(np.complex64))
    np.testing.assert_array_equal(linalg.adjoint(np.arange(6.0).reshape(2, 3)).numpy(), np.arange(6.0).reshape(2, 3).T)


def test_inverse_of_adjoint_for_complex():
    x = (RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3)) + 4 * np.eye(3)).astype(np.complex64)
    want = np.linalg.inv(np.conj(np.swapaxes(x, -1, -2)).astype(np.complex128))
    np.testing.assert_allclose(linalg.inv(x, adjoint=True).numpy(), want, rtol=1e-4, atol=1e-5)


def test_gradients_through_logdet_and_cholesky_solve():
    a = _spd(3)
    b = RNG.standard_normal((3, 2))
    at, bt = ember.constant(a), ember.constant(b)
    with ember.GradientTape() as tape:
        tape.watch([at, bt])
        y = linalg.logdet(at) + ember.reduce_sum(linalg.cholesky_solve(linalg.cholesky(at), bt))
    ga, gb = tape.gradient(y, [at, bt])
    inv = np.linalg.inv(a)
    ones = np.ones((3, 2))
    # d logdet = inv(a)^T; d sum(inv(a) b) / da = -inv(a)^T 1 b^T inv(a)^T, symmetrized as the
    # Cholesky gradient spreads it over both triangles.
    want_a = inv + (-(inv.T @ ones @ b.T @ inv.T) + -(inv.T @ ones @ b.T @ inv.T).T) / 2
    np.testing.assert_allclose(gb.numpy(), inv.T @ ones, rtol=1e-8)
    np.testing.assert_allclose(ga.numpy(), want_a, rtol=1e-6, atol=1e-8)


# --- tf.norm's ords --------------------------------------------------------------


@pytest.mark.parametrize("ord_", [1, 2, np.inf, 3, 0.5, 1.5, "euclidean"])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_vector_norms(ord_, axis):
    x = RNG.standard_normal((3, 4))
    got = ember.norm(x, ord=ord_, axis=axis)
    flat = x.ravel() if axis is None else x
    p = 2 if ord_ == "euclidean" else ord_
    want = np.linalg.norm(flat, ord=p, axis=axis if axis is not None else None)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_vector_p_norm_keepdims_and_extreme_values():
    x = np.array([[1e200, 1e200], [1e-200, 0.0]])
    got = linalg.norm(x, ord=3, axis=1, keepdims=True)
    assert got.shape == (2, 1)
    np.testing.assert_allclose(got.numpy()[:, 0], [2 ** (1 / 3) * 1e200, 1e-200], rtol=1e-12)


@pytest.mark.parametrize("ord_", [1, 2, np.inf, "fro", "euclidean", "nuc"])
@pytest.mark.parametrize("axis", [(0, 1), (-1, -2), [1, 2]])
def test_matrix_norms(ord_, axis):
    x = RNG.standard_normal((2, 3, 4)) if list(axis) == [1, 2] else RNG.standard_normal((3, 4))
    got = linalg.norm(x, ord=ord_, axis=axis)
    p = "fro" if ord_ == "euclidean" else ord_
    want = np.linalg.norm(x, ord=p, axis=tuple(axis))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    kept = linalg.norm(x, ord=ord_, axis=axis, keepdims=True)
    np.testing.assert_allclose(kept.numpy(), np.linalg.norm(x, ord=p, axis=tuple(axis), keepdims=True), rtol=1e-10)


def test_matrix_two_norm_of_float16_and_its_gradient():
    x = RNG.standard_normal((3, 3))
    assert linalg.norm(x.astype(np.float16), ord=2, axis=[0, 1]).dtype == ember.float16
    xt = ember.constant(x)
    with ember.GradientTape() as tape:
        tape.watch(xt)
        y = linalg.norm(xt, ord=2, axis=[0, 1])
    u, s, vh = np.linalg.svd(x)
    np.testing.assert_allclose(tape.gradient(y, xt).numpy(), np.outer(u[:, 0], vh[0]), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("ord_, axis", [(0, None), (-1, 0), ("fro", None), ("nuc", 0), (3, [0, 1]),
                                        ("bad", [0, 1]), (2, [0, 0]), (1, [0, 5]), (2, 7)])
def test_bad_norm_ords_and_axes_raise(ord_, axis):
    with pytest.raises(ValueError, match="^norm: "):
        linalg.norm(np.ones((2, 3)), ord=ord_, axis=axis)


def test_tall_skinny_matrices_are_within_lapacks_32_bit_sizes():
    # 100,000 x 4: each array LAPACK sees has far fewer than 2^31 elements,
    # though the square of its long side has more (a check of max(m, n)^2
    # once refused these).
    a = RNG.standard_normal((100_000, 4)).astype(np.float32)
    q, r = linalg.qr(a)
    np.testing.assert_allclose(q.numpy() @ r.numpy(), a, atol=1e-4)
    s, u, v = linalg.svd(a)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a.astype(np.float64), compute_uv=False), rtol=1e-4)
    assert u.shape == (100_000, 4) and v.shape == (4, 4)
    b = RNG.standard_normal((100_000, 2)).astype(np.float32)
    x = linalg.lstsq(a, b, fast=False).numpy()
    want = np.linalg.lstsq(a.astype(np.float64), b.astype(np.float64), rcond=None)[0]
    np.testing.assert_allclose(x, want, rtol=1e-3, atol=1e-5)


def test_minimum_norm_least_squares_of_non_finite_input_is_nan_and_silent(capfd):
    a = np.array([[1.0, np.nan], [0.0, 1.0], [1.0, 1.0]])
    x = linalg.lstsq(a, np.ones((3, 1)), fast=False).numpy()
    assert np.isnan(x).all()
    out, err = capfd.readouterr()
    assert "illegal value" not in out + err  # LAPACK's argument error must not reach the console

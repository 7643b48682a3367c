"""tf.linalg's decomposition functions that are wrappers or composites over
the decomposition ops (op_defs/linalg.yaml): svd and eigh (TensorFlow's
return conventions), eigvalsh, logdet, cholesky_solve and adjoint."""

from ember._generated import ops as _ops
from ember._runtime import composite as _composite
from ember import _creation, dtypes
from ember._matrix_composites import diag_part
from ember._strings import _dispatch


def _conj(x):
    """The complex conjugate, from the ops Ember has: cast keeps the real
    part, and the imaginary part is the real part of -1j * x."""
    if not x.dtype.is_complex:
        return x
    real = _ops.cast(x, dtypes.float32)
    imag = _ops.cast(_ops.multiply(x, _creation.constant(-1j, x.dtype)), dtypes.float32)
    return _ops.subtract(_ops.cast(real, x.dtype), _ops.multiply(_ops.cast(imag, x.dtype), _creation.constant(1j, x.dtype)))


@_composite
def adjoint(matrix, name=None):
    """The conjugate transpose of the last two dims (``tf.linalg.adjoint``)."""
    del name
    x = _creation.convert_to_tensor(matrix)
    if x.ndim < 2:
        raise ValueError(f"adjoint: expected a tensor of rank 2 or more, got shape {x.shape}")
    return _conj(_dispatch.transpose(x, list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2]))


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular value decomposition (``tf.linalg.svd``): returns (s, u, v)
    with tensor = u @ diag(s) @ adjoint(v) -- v, not its adjoint -- or s
    alone when compute_uv is false. s is real (float32 for complex64
    input), as in TensorFlow."""
    del name
    s, u, v = _ops.svd(tensor, compute_uv, full_matrices)
    if s.dtype.is_complex:  # TensorFlow returns real singular values (cast keeps the real part)
        s = _ops.cast(s, dtypes.float32)
    return (s, u, v) if compute_uv else s


def eigh(tensor, name=None):
    """Eigen decomposition of self-adjoint matrices (``tf.linalg.eigh``):
    (e, v) with e ascending and tensor = v @ diag(e) @ adjoint(v)."""
    del name
    e, v = _ops.self_adjoint_eig(tensor, True)
    return e, v


def eigvalsh(tensor, name=None):
    """The eigenvalues of self-adjoint matrices, ascending (``tf.linalg.eigvalsh``)."""
    del name
    return _ops.self_adjoint_eig(tensor, False)[0]


@_composite
def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive definite matrices, computed
    from their Cholesky factor as 2 * sum(log(diag(L))) (``tf.linalg.logdet``;
    real, float32 for complex64 input, as in TensorFlow)."""
    del name
    chol = _ops.cholesky(matrix)
    d = diag_part(chol)
    if d.dtype.is_complex:  # TensorFlow takes the real part: the result is real
        d = _ops.cast(d, dtypes.float32)
    return 2.0 * _ops.reduce_sum(_ops.log(d), axis=-1)


@_composite
def cholesky_solve(chol, rhs, name=None):
    """Solves A X = rhs given chol, the Cholesky factor of A (``tf.linalg.cholesky_solve``)."""
    del name
    y = _ops.matrix_triangular_solve(chol, rhs, True, False)
    return _ops.matrix_triangular_solve(chol, y, True, True)

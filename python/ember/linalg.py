"""The ember.linalg namespace: the generated bindings (op_defs/linalg.yaml)
plus TensorFlow-style argument handling for norm and tensordot, and the
decompositions' TensorFlow wrappers (svd, eigh) and composites (eigvalsh,
logdet, cholesky_solve, adjoint) in ember._decompositions."""

import math as _math

from ember._generated import ops as _ops
from ember._runtime import composite as _composite
from ember._generated.linalg import *  # noqa: F401,F403
from ember._generated.linalg import __all__ as _generated_all

__all__ = sorted(set(_generated_all) | {"adjoint", "band_part", "cholesky_solve", "diag", "diag_part", "eigh",
                                         "eigvalsh", "global_norm", "logdet", "matrix_transpose", "matvec", "norm",
                                         "svd", "tensordot", "trace"})
from ember.einsum import einsum  # noqa: E402,F401 - tf.einsum's (equation, *inputs)
from ember._clipping import global_norm  # noqa: E402,F401 - tf.linalg.global_norm
from ember._matrix_composites import (  # noqa: E402,F401 - tf.linalg's matrix helpers
    band_part, diag, diag_part, matrix_transpose, matvec, trace)
from ember._decompositions import (  # noqa: E402,F401 - tf.linalg's decomposition wrappers
    adjoint, cholesky_solve, eigh, eigvalsh, logdet, svd)
from ember._matrix_norms import matrix_or_p_norm as _matrix_or_p_norm  # noqa: E402

_ORDS = {1: "1", 2: "2", _math.inf: "inf", "1": "1", "2": "2", "inf": "inf", "euclidean": "euclidean",
         "fro": "fro"}


@_composite
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector and matrix norms, as ``tf.norm``.

    Vectors (axis None or one axis): ord 'euclidean', 1, 2, inf, or any
    p > 0 (the p-norm). Matrices (axis a pair): 'fro' or 'euclidean' (the
    Frobenius norm), 1 (largest column sum of magnitudes), inf (largest row
    sum), 2 (largest singular value) and, as in NumPy, 'nuc' (the sum of
    the singular values; an ember extension). ``ord`` may be a number or a
    string.
    """
    del name
    matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    ord_name = _ORDS.get(ord) if isinstance(ord, (int, float, str)) and not isinstance(ord, bool) else None
    if ord_name is not None and (not matrix or ord_name in ("fro", "euclidean")):
        if not matrix and ord_name == "fro":
            raise ValueError(f"norm: ord 'fro' needs a pair of axes (a matrix norm), got axis={axis!r}")
        return _ops.norm(tensor, ord_name, axis, bool(keepdims))
    return _matrix_or_p_norm(tensor, ord, axis, bool(keepdims), matrix)
@_composite
def tensordot(a, b, axes, name=None):
    """Contracts ``axes`` of a with those of b (``tf.tensordot``).

    ``axes`` is an int N (the last N of a with the first N of b), a pair of
    axis lists ``[[a_axes], [b_axes]]``, or a pair of ints.
    """
    del name
    if isinstance(axes, (list, tuple)) and len(axes) == 2 and all(isinstance(x, (list, tuple)) for x in axes):
        if len(axes[0]) != len(axes[1]):
            raise ValueError(f"tensordot: axes lists {axes[0]} and {axes[1]} differ in length")
        axes = [int(x) for x in axes[0]] + [int(x) for x in axes[1]]
    elif isinstance(axes, (list, tuple)) and len(axes) == 2 and all(isinstance(x, int) for x in axes):
        axes = [axes[0], axes[1]]
    return _ops.tensordot(a, b, axes)

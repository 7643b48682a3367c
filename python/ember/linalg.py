"""The ember.linalg namespace: the generated bindings (op_defs/linalg.yaml)
plus TensorFlow-style argument handling for norm and tensordot."""

import math as _math

from ember._generated import ops as _ops
from ember._runtime import composite as _composite
from ember._generated.linalg import *  # noqa: F401,F403
from ember._generated.linalg import __all__ as _generated_all

__all__ = sorted(set(_generated_all) | {"band_part", "diag", "diag_part", "global_norm", "matrix_transpose", "matvec",
                                         "norm", "tensordot", "trace"})
from ember.einsum import einsum  # noqa: E402,F401 - tf.einsum's (equation, *inputs)
from ember._clipping import global_norm  # noqa: E402,F401 - tf.linalg.global_norm
from ember._matrix_composites import (  # noqa: E402,F401 - tf.linalg's matrix helpers
    band_part, diag, diag_part, matrix_transpose, matvec, trace)

_ORDS = {1: "1", 2: "2", _math.inf: "inf", "1": "1", "2": "2", "inf": "inf", "euclidean": "euclidean",
         "fro": "fro"}


@_composite
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector norms (ord 1, 2, inf, 'euclidean') and the Frobenius norm ('fro', two axes).

    ``ord`` may be a number (1, 2, ``np.inf``) or a string, as in ``tf.norm``.
    """
    del name
    try:
        ord_name = _ORDS[ord]
    except (KeyError, TypeError):
        raise ValueError(f"norm: ord must be one of 1, 2, inf, 'euclidean' or 'fro', got {ord!r}") from None
    return _ops.norm(tensor, ord_name, axis, bool(keepdims))


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

"""ember.einsum: tf.einsum's signature, einsum(equation, *inputs), over the
generated op, which takes the operands as one list (op_defs/einsum.yaml)."""

from ember._generated import ops as _ops
from ember._runtime import composite


@composite
def einsum(equation, *inputs, **kwargs):
    """Tensor contraction over specified indices and outer product (``tf.einsum``).

    ``equation`` names each operand's dims with letters, e.g. ``'ij,jk->ik'``
    (matmul), ``'bij,bjk->bik'`` (batch matmul), ``'ii'`` (trace),
    ``'ii->i'`` (diagonal), ``'i,j->ij'`` (outer product), ``'...ij->...ji'``
    (transpose of the last two dims). Without ``->`` the output holds the
    labels used once, in alphabetical order. Three or more operands are
    contracted pairwise, left to right.

    Keyword arguments: ``name`` (ignored) and ``optimize`` (accepted for
    TensorFlow compatibility; the contraction order is always left to right).
    """
    unknown = sorted(set(kwargs) - {"name", "optimize"})
    if unknown:
        raise TypeError(f"einsum: invalid keyword arguments {unknown}; expected name or optimize")
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a string, got {type(equation).__name__}")
    if not inputs:
        raise ValueError(f"einsum: equation '{equation}' needs at least one input tensor")
    return _ops.einsum(equation, list(inputs))

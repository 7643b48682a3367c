"""Gradients of matmul (op_defs/linalg.yaml)."""

from ember._generated import ops
from ember._grads._util import unbroadcast


def matmul(op, grad):
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    mm = ops.matmul
    if not ta and not tb:
        ga, gb = mm(grad, b, transpose_b=True), mm(a, grad, transpose_a=True)
    elif ta and not tb:
        ga, gb = mm(b, grad, transpose_b=True), mm(a, grad)
    elif not ta and tb:
        ga, gb = mm(grad, b), mm(grad, a, transpose_a=True)
    else:
        ga, gb = mm(b, grad, transpose_a=True, transpose_b=True), mm(grad, a, transpose_a=True, transpose_b=True)
    # Batch dims broadcast in the forward pass: sum them back.
    return [unbroadcast(ga, a.shape), unbroadcast(gb, b.shape)]


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
    from ember._grads._util import keep_dims, normalized_axes, reduction_grad_broadcast
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

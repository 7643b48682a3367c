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

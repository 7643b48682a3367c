"""Gradients of reshape, transpose, identity and cast (op_defs/shape.yaml)."""

import numpy as np

from ember._generated import ops


def reshape(op, grad):
    return ops.reshape(grad, list(op.inputs[0].shape))


def transpose(op, grad):
    perm = op.attrs["perm"]
    rank = op.inputs[0].ndim
    perm = list(reversed(range(rank))) if perm is None else [p % rank for p in perm]
    return ops.transpose(grad, perm=[int(i) for i in np.argsort(perm)])


def identity(op, grad):
    return grad


def cast(op, grad):
    # Only a floating or complex input gets a gradient (the tape drops the
    # rest); it comes back in the input's dtype.
    return ops.cast(grad, op.inputs[0].dtype)

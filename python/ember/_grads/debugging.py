"""Gradients of the debugging ops (op_defs/debugging.yaml)."""


def check_numerics(op, grad):
    return grad

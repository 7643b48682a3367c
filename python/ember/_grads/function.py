"""Gradients of the function ops (op_defs/function.yaml)."""

from ember._generated import ops


def transfer(op, grad):
    # The value moved between devices; its gradient moves back through
    # the copy stage when the consumer runs where the input lives.
    return ops.identity(grad)

"""Gradients of the list ops (op_defs/lists.yaml)."""


def identity_n(op, *grads):
    return list(grads)

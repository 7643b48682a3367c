"""Gradients of the collective ops (op_defs/collective.yaml).

Each worker's loss depends on every worker's input through a collective, so
each gradient is itself a collective: every worker makes the same calls.
"""

from ember._generated import ops


def _sum(grad, communicator):
    return ops.collective_all_reduce(grad, communicator=communicator, reduction="sum")


def collective_all_reduce(op, grad):
    communicator = op.attrs["communicator"]
    total = _sum(grad, communicator)
    if op.attrs["reduction"] == "sum":
        return total
    # max / min: shared equally by the workers whose value reached it (TensorFlow's rule for ties).
    x = op.inputs[0]
    hits = ops.cast(ops.equal(x, op.outputs[0]), x.dtype)
    return ops.divide(ops.multiply(hits, total), _sum(hits, communicator))


def _rank(communicator):
    from ember.distribute._native_collectives import communicator_rank  # imported on first use

    return communicator_rank(communicator)


def collective_all_gather(op, grad):
    """This worker's rows of the sum of every worker's gradient."""
    total = _sum(grad, op.attrs["communicator"])
    rows = op.inputs[0].shape[0]
    start = _rank(op.attrs["communicator"]) * rows
    return total[start:start + rows]


def collective_broadcast(op, grad):
    """The root's input reached every worker: it gets the sum of their gradients, the others none."""
    total = _sum(grad, op.attrs["communicator"])
    return total if _rank(op.attrs["communicator"]) == op.attrs["root"] else ops.zeros_like(total)

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


def collective_reduce_scatter(op, grad):
    """Worker r's output is block r of the reduction: every worker's input gets its share of
    every block's gradient, so the blocks are gathered first."""
    communicator, size = op.attrs["communicator"], op.attrs["group_size"]
    every_block = ops.collective_all_gather(grad, communicator=communicator, group_size=size)
    if op.attrs["reduction"] == "sum":
        return every_block
    # max / min: shared equally by the workers whose value reached it, as for all_reduce.
    x = op.inputs[0]
    reached = ops.collective_all_gather(op.outputs[0], communicator=communicator, group_size=size)
    hits = ops.cast(ops.equal(x, reached), x.dtype)
    return ops.divide(ops.multiply(hits, every_block), _sum(hits, communicator))


def collective_all_to_all(op, grad):
    """An all-to-all is a permutation of the blocks that is its own inverse: block j of worker i's
    input became block i of worker j's output, so the gradient goes back the same way."""
    return ops.collective_all_to_all(grad, communicator=op.attrs["communicator"], group_size=op.attrs["group_size"])

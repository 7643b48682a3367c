"""Gradients of the movement ops (op_defs/movement.yaml)."""

from ember._generated import ops
from ember._grads._util import scatter_back, unbroadcast


def same_shape_as_input(op, grad):
    """expand_dims, squeeze: the same elements in another shape."""
    return ops.reshape(grad, list(op.inputs[0].shape))


def tile(op, grad):
    # Output dim i is multiples[i] copies of input dim i: view the gradient
    # as [m0, d0, m1, d1, ...] and sum over the copies.
    x = op.inputs[0]
    split_shape = []
    for m, d in zip(op.attrs["multiples"], x.shape):
        split_shape += [int(m), int(d)]
    if not split_shape:
        return grad
    summed = ops.reduce_sum(ops.reshape(grad, split_shape), axis=list(range(0, len(split_shape), 2)))
    return ops.reshape(summed, list(x.shape))


def pad(op, grad):
    x = op.inputs[0]
    if op.attrs["mode"].upper() != "CONSTANT":
        # REFLECT and SYMMETRIC fold mirrored elements back onto their source.
        return scatter_back(lambda p: ops.pad(p, op.attrs["paddings"], op.attrs["mode"]), grad, x.shape)
    before = [int(b) for b in op.attrs["paddings"][0::2]]
    return ops.slice(grad, before, [int(d) for d in x.shape])


def broadcast_to(op, grad):
    return unbroadcast(grad, op.inputs[0].shape)


def slice(op, grad):  # noqa: A001 - the op's name
    x = op.inputs[0]
    y = op.outputs[0]
    begin = [int(b) for b in op.attrs["begin"]]
    paddings = []
    for b, n, d in zip(begin, y.shape, x.shape):
        paddings += [b, int(d) - b - int(n)]
    return ops.pad(grad, paddings)


def strided_slice(op, grad):
    a = op.attrs
    return scatter_back(
        lambda p: ops.strided_slice(p, a["begin"], a["end"], a["strides"], a["begin_mask"], a["end_mask"],
                                    a["ellipsis_mask"], a["new_axis_mask"], a["shrink_axis_mask"]),
        grad, op.inputs[0].shape)


def reverse(op, grad):
    return ops.reverse(grad, op.attrs["axis"])


def roll(op, grad):
    return ops.roll(grad, [-int(s) for s in op.attrs["shift"]], op.attrs["axis"])


def concat(op, grad):
    axis = op.attrs["axis"]
    rank = op.inputs[0].ndim
    axis = axis % rank
    sizes = [int(x.shape[axis]) for x in op.inputs]
    return ops.split(grad, sizes, axis=axis)


def stack(op, grad):
    return ops.unstack(grad, num=len(op.inputs), axis=op.attrs["axis"])


def unstack(op, *grads):
    axis = op.attrs["axis"]
    parts = [g if g is not None else ops.zeros_like(y) for g, y in zip(grads, op.outputs)]
    return ops.stack(parts, axis=axis)


def split(op, *grads):
    parts = [g if g is not None else ops.zeros_like(y) for g, y in zip(grads, op.outputs)]
    return ops.concat(parts, axis=op.attrs["axis"])

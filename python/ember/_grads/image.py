"""Gradients of the image resizing ops (op_defs/image.yaml)."""

from ember._generated import ops
from ember._grads._util import scatter_back


def resize_bilinear(op, grad):
    images = op.inputs[0]
    if not images.dtype.is_floating:
        return None  # integer images are not differentiable
    dx = ops.resize_bilinear_grad(grad, list(images.shape[1:3]))
    return dx if images.dtype == dx.dtype else ops.cast(dx, images.dtype)


def resize_bilinear_grad(op, grad):
    # resize_bilinear_grad is linear in its input, and its adjoint is resize_bilinear.
    return ops.resize_bilinear(grad, list(op.inputs[0].shape[1:3]))


def resize_nearest_neighbor(op, grad):
    images = op.inputs[0]
    size = list(op.outputs[0].shape[1:3])
    return scatter_back(lambda positions: ops.resize_nearest_neighbor(positions, size), grad, images.shape)

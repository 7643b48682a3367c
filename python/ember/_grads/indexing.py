"""Gradients of the indexing ops (op_defs/indexing.yaml).

Dense: the gradient of a gather is a scatter-add into zeros of the
params' shape (TensorFlow returns IndexedSlices there).
"""

from ember._generated import ops
from ember._grads._util import scatter_back


def gather(op, grad):
    params, indices = op.inputs
    axis, batch_dims = op.attrs["axis"], op.attrs["batch_dims"]
    return [scatter_back(lambda p: ops.gather(p, indices, axis, batch_dims), grad, params.shape), None]


def gather_nd(op, grad):
    params, indices = op.inputs
    batch_dims = op.attrs["batch_dims"]
    return [scatter_back(lambda p: ops.gather_nd(p, indices, batch_dims), grad, params.shape), None]


def scatter_nd(op, grad):
    indices = op.inputs[0]
    return [None, ops.gather_nd(grad, indices)]


def tensor_scatter_nd_update(op, grad):
    _, indices, updates = op.inputs
    # The updated positions take their value from `updates`, not `tensor`.
    kept = ops.tensor_scatter_nd_update(grad, indices, ops.zeros_like(updates))
    return [kept, None, ops.gather_nd(grad, indices)]

"""Gradients of the neural-network ops (op_defs/nn.yaml)."""

import math

from ember._generated import ops
from ember._grads._util import normalized_axes, unbroadcast, zeros_where_false


def _positive(x):
    return ops.greater(x, ops.zeros_like(x))


def relu(op, grad):
    # relu's output is positive exactly where its input is: one fusible kernel (TensorFlow's ReluGrad).
    return ops.relu_grad(grad, op.outputs[0])


def relu_grad(op, grad):
    # Linear in the incoming gradient, piecewise constant in the features.
    gradients, features = op.inputs
    return [unbroadcast(ops.relu_grad(grad, features), gradients.shape), ops.zeros_like(features)]


def relu6(op, grad):
    x = op.inputs[0]
    inside = ops.logical_and(_positive(x), ops.less(x, 6.0))
    return zeros_where_false(inside, grad)


def leaky_relu(op, grad):
    x = op.inputs[0]
    return ops.where(_positive(x), grad, ops.multiply(grad, op.attrs["alpha"]))


def elu(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    return ops.where(_positive(x), grad, ops.multiply(grad, ops.add(y, 1.0)))


_SELU_SCALE = 1.0507009873554805
_SELU_ALPHA = 1.6732632423543772


def selu(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    return ops.where(_positive(x), ops.multiply(grad, _SELU_SCALE),
                     ops.multiply(grad, ops.add(y, _SELU_SCALE * _SELU_ALPHA)))


def gelu(op, grad):
    x = op.inputs[0]
    if op.attrs["approximate"]:
        # y = 0.5 x (1 + tanh(u)), u = c (x + 0.044715 x^3)
        c = math.sqrt(2.0 / math.pi)
        x2 = ops.square(x)
        u = ops.multiply(ops.multiply(x, ops.add(ops.multiply(x2, 0.044715), 1.0)), c)
        t = ops.tanh(u)
        du = ops.multiply(ops.add(ops.multiply(x2, 3 * 0.044715), 1.0), c)
        dy = ops.add(ops.multiply(ops.add(t, 1.0), 0.5),
                     ops.multiply(ops.multiply(x, ops.subtract(1.0, ops.square(t))), ops.multiply(du, 0.5)))
    else:
        # y = x Phi(x): dy = Phi(x) + x phi(x)
        cdf = ops.multiply(ops.add(ops.erf(ops.multiply(x, 1.0 / math.sqrt(2.0))), 1.0), 0.5)
        pdf = ops.multiply(ops.exp(ops.multiply(ops.square(x), -0.5)), 1.0 / math.sqrt(2.0 * math.pi))
        dy = ops.add(cdf, ops.multiply(x, pdf))
    return ops.multiply(grad, dy)


def silu(op, grad):
    # y = x s(beta x): dy = s + beta x s (1 - s)
    x = op.inputs[0]
    beta = op.attrs["beta"]
    s = ops.sigmoid(ops.multiply(x, beta))
    dy = ops.add(s, ops.multiply(ops.multiply(ops.multiply(x, s), ops.subtract(1.0, s)), beta))
    return ops.multiply(grad, dy)


def softmax(op, grad):
    y = op.outputs[0]
    axis = op.attrs["axis"]
    inner = ops.reduce_sum(ops.multiply(grad, y), axis=[axis], keepdims=True)
    return ops.multiply(y, ops.subtract(grad, inner))


def log_softmax(op, grad):
    y = op.outputs[0]
    axis = op.attrs["axis"]
    total = ops.reduce_sum(grad, axis=[axis], keepdims=True)
    return ops.subtract(grad, ops.multiply(ops.exp(y), total))


def bias_add(op, grad):
    value = op.inputs[0]
    fmt = op.attrs["data_format"]
    channel = 1 if fmt is not None and fmt.upper().startswith("NC") else value.ndim - 1
    axes = [a for a in range(value.ndim) if a != channel]
    return [grad, ops.reduce_sum(grad, axis=axes)]


def layer_normalization(op, grad):
    x, gamma, beta = op.inputs
    rank = x.ndim
    axes = normalized_axes(op.attrs["axis"], rank)
    eps = op.attrs["epsilon"]
    param_shape = [x.shape[i] if i in axes else 1 for i in range(rank)]
    others = [i for i in range(rank) if i not in axes]
    mean = ops.reduce_mean(x, axis=axes, keepdims=True)
    centered = ops.subtract(x, mean)
    var = ops.reduce_mean(ops.square(centered), axis=axes, keepdims=True)
    inv = ops.rsqrt(ops.add(var, eps))
    xhat = ops.multiply(centered, inv)
    g = ops.reshape(gamma, param_shape)
    dxhat = ops.multiply(grad, g)
    # dx = inv * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat))
    m1 = ops.reduce_mean(dxhat, axis=axes, keepdims=True)
    m2 = ops.reduce_mean(ops.multiply(dxhat, xhat), axis=axes, keepdims=True)
    dx = ops.multiply(inv, ops.subtract(ops.subtract(dxhat, m1), ops.multiply(xhat, m2)))
    dgamma = ops.reshape(ops.reduce_sum(ops.multiply(grad, xhat), axis=others), list(gamma.shape))
    dbeta = ops.reshape(ops.reduce_sum(grad, axis=others), list(beta.shape))
    return [dx, dgamma, dbeta]


def sparse_softmax_cross_entropy_with_logits(op, grad):
    labels, logits = op.inputs
    probs = ops.softmax(logits, axis=-1)
    onehot = ops.one_hot(labels, int(logits.shape[-1]), ops.ones([], dtype=logits.dtype),
                         ops.zeros([], dtype=logits.dtype))
    return [None, ops.multiply(ops.subtract(probs, onehot), ops.expand_dims(grad, -1))]


def softmax_cross_entropy_with_logits(op, grad):
    labels, logits = op.inputs
    axis = op.attrs["axis"]
    g = ops.expand_dims(grad, axis % logits.ndim)
    probs = ops.softmax(logits, axis=axis)
    # loss = sum(labels) * logsumexp(logits) - sum(labels * logits)
    total = ops.reduce_sum(labels, axis=[axis], keepdims=True)
    dlogits = ops.multiply(ops.subtract(ops.multiply(probs, total), labels), g)
    dlabels = ops.multiply(ops.negative(ops.log_softmax(logits, axis=axis)), g)
    return [dlabels, dlogits]


def _conv_attrs(op):
    a = op.attrs
    return {"strides": a["strides"], "padding": a["padding"], "data_format": a["data_format"],
            "dilations": a["dilations"], "explicit_paddings": a["explicit_paddings"]}


def _channel_axis(op):
    return 1 if op.attrs["data_format"].upper() == "NCHW" else 3


def _conv2d_input_grad(grad, f, x_shape, common, axis):
    """conv2d's gradient with respect to its input (of shape x_shape)."""
    groups = x_shape[axis] // f.shape[2]
    if groups == 1:
        return ops.conv2d_transpose(grad, f, list(x_shape), **common)
    # conv2d_transpose has no groups: one transpose per group.
    cout_g = f.shape[3] // groups
    part_shape = list(x_shape)
    part_shape[axis] = f.shape[2]
    grads = ops.split(grad, [cout_g] * groups, axis=axis)
    filters = ops.split(f, [cout_g] * groups, axis=3)
    return ops.concat([ops.conv2d_transpose(g, w, part_shape, **common) for g, w in zip(grads, filters)], axis=axis)


def conv2d(op, grad):
    x, f = op.inputs
    common = _conv_attrs(op)
    skip = op.skip_input_indices
    dx = None if 0 in skip else _conv2d_input_grad(grad, f, x.shape, common, _channel_axis(op))
    df = None if 1 in skip else ops.conv2d_backprop_filter(x, grad, list(f.shape), **common)
    return [dx, df]


def conv2d_transpose(op, grad):
    # y = A^T x, where A is conv2d with these filters: dx = A dy, and the
    # filters' gradient is conv2d's with dy as the input.
    x, f = op.inputs
    common = _conv_attrs(op)
    skip = op.skip_input_indices
    dx = None if 0 in skip else ops.conv2d(grad, f, **common)
    df = None if 1 in skip else ops.conv2d_backprop_filter(grad, x, list(f.shape), **common)
    return [dx, df]


def conv2d_backprop_filter(op, grad):
    # dW(x, dy) is bilinear, with <G, dW(x, dy)> = <dy, conv2d(x, G)> for
    # filters G: so d/d(dy) is conv2d(x, G), and d/dx is conv2d's input
    # gradient with filters G and incoming gradient dy.
    x, dy = op.inputs
    common = _conv_attrs(op)
    skip = op.skip_input_indices
    dx = None if 0 in skip else _conv2d_input_grad(dy, grad, x.shape, common, _channel_axis(op))
    return [dx, None if 1 in skip else ops.conv2d(x, grad, **common)]


def _pool_attrs(op):
    a = op.attrs
    return {"ksize": a["ksize"], "strides": a["strides"], "padding": a["padding"], "data_format": a["data_format"],
            "explicit_paddings": a["explicit_paddings"]}


def max_pool2d(op, grad):
    return ops.max_pool2d_grad(op.inputs[0], grad, **_pool_attrs(op))


def max_pool2d_grad(op, grad):
    # Linear in the incoming gradient (its transpose picks each window's
    # maximum position); piecewise constant in the input (zero gradient).
    x = op.inputs[0]
    return [ops.zeros_like(x), ops.max_pool2d_grad_grad(x, grad, **_pool_attrs(op))]


def max_pool2d_grad_grad(op, grad):
    x = op.inputs[0]
    return [ops.zeros_like(x), ops.max_pool2d_grad(x, grad, **_pool_attrs(op))]


def avg_pool2d(op, grad):
    return ops.avg_pool2d_grad(grad, list(op.inputs[0].shape), **_pool_attrs(op))


def avg_pool2d_grad(op, grad):
    # Linear; its transpose averages each window again.
    return ops.avg_pool2d(grad, **_pool_attrs(op))


def scaled_dot_product_attention(op, grad):
    # Recomputes the probabilities p = softmax(s), s = q k^T * scale + mask,
    # then the usual chain: dv = p^T g, ds = p * (dp - sum(dp * p)), dp = g v^T.
    q, k, v, mask = op.inputs
    scale = op.attrs["scale"]
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = ops.multiply(ops.matmul(q, k, transpose_b=True), scale)
    if mask.dtype.is_bool:
        s = ops.where(mask, s, ops.add(ops.zeros_like(s), float("-inf")))
    else:
        s = ops.add(s, ops.cast(mask, s.dtype))
    p = ops.softmax(s, axis=-1)
    dv = ops.matmul(p, grad, transpose_a=True)
    dp = ops.matmul(grad, v, transpose_b=True)
    ds = ops.multiply(p, ops.subtract(dp, ops.reduce_sum(ops.multiply(dp, p), axis=[-1], keepdims=True)))
    dq = ops.multiply(ops.matmul(ds, k), scale)
    dk = ops.multiply(ops.matmul(ds, q, transpose_a=True), scale)
    dmask = None if mask.dtype.is_bool else ops.cast(unbroadcast(ds, mask.shape), mask.dtype)
    return [unbroadcast(dq, q.shape), unbroadcast(dk, k.shape), unbroadcast(dv, v.shape), dmask]

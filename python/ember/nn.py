"""The ember.nn namespace: the generated op bindings (op_defs/nn.yaml) plus
Python-level composites and TensorFlow-style argument handling.

The ops take padding as a string ('SAME', 'VALID', 'EXPLICIT' with flat
explicit_paddings); the wrappers here also accept TensorFlow's explicit list
of [before, after] pairs. Composites (depthwise_conv2d, batch_normalization,
fused_batch_norm, embedding_lookup; conv3d and the 3-D pools in _nn3d.py) are
built from existing ops.
"""

from ember._generated import ops as _ops
from ember._checks import check_str as _check_str, safe_repr as _safe_repr
from ember._runtime import composite as _composite
from ember._generated.nn import *  # noqa: F401,F403
from ember._generated.nn import __all__ as _generated_all

from ember._random import dropout  # noqa: E402,F401 - built from the random ops
from ember._nn3d import avg_pool3d, conv3d, max_pool3d  # noqa: E402,F401 - built from the 2-D ops
from ember._loss_scaling import compute_average_loss, scale_regularization_loss  # noqa: E402,F401
from ember import _C, _context, _creation, device as _device, dtypes as _dtypes, _movement, _selection
from ember._generated import raw_ops as _raw_ops
from ember._strings import _dispatch

__all__ = sorted(set(_generated_all) | {"avg_pool", "avg_pool1d", "avg_pool3d", "batch_normalization", "conv1d",
                                         "conv3d", "depthwise_conv2d", "dropout", "embedding_lookup",
                                         "fused_batch_norm", "max_pool", "max_pool1d", "max_pool3d", "moments",
                                         "sigmoid_cross_entropy_with_logits"})


def _padding_attrs(op, padding):
    """Returns (padding, explicit_paddings) for the ops from a string or a list of 4 [before, after] pairs."""
    if isinstance(padding, str):
        return padding, ()
    try:
        pairs = [list(p) for p in padding]
    except TypeError:
        pairs = None
    if pairs is None or len(pairs) != 4 or any(len(p) != 2 for p in pairs):
        raise ValueError(f"{op}: padding must be 'SAME', 'VALID' or a list of 4 [before, after] pairs, "
                         f"got {_safe_repr(padding)}")
    return "EXPLICIT", [int(v) for p in pairs for v in p]


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """Computes a 2-D convolution; see the generated op's docs (``ember.nn.conv2d`` in ops.md).

    padding is 'SAME', 'VALID' or explicit [[0, 0], [top, bottom], [left, right], [0, 0]]
    (in the data format's dim order). filters are [height, width, in_channels / groups,
    out_channels]; groups are inferred from the input's channels.
    """
    del name
    padding, explicit = _padding_attrs("conv2d", padding)
    return _ops.conv2d(input, filters, strides, padding, data_format, dilations, explicit)


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """Computes the transpose of conv2d; filters are [height, width, output_channels, input_channels]."""
    del name
    padding, explicit = _padding_attrs("conv2d_transpose", padding)
    return _ops.conv2d_transpose(input, filters, output_shape, strides, padding, data_format, dilations,
                                 explicit)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Computes the maximum over 2-D windows (padding: 'SAME', 'VALID' or explicit pairs)."""
    del name
    padding, explicit = _padding_attrs("max_pool2d", padding)
    return _ops.max_pool2d(input, ksize, strides, padding, data_format, explicit)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Computes the average over 2-D windows; padded positions are not counted."""
    del name
    padding, explicit = _padding_attrs("avg_pool2d", padding)
    return _ops.avg_pool2d(input, ksize, strides, padding, data_format, explicit)


def _pool_window(value, n, channels_first, what):
    """ksize or strides for n spatial dims from an int, a list of 1, n or n + 2 ints."""
    values = [value] if isinstance(value, int) else [int(v) for v in value]
    if len(values) == 1:
        return values * n
    if len(values) == n:
        return values
    if len(values) == n + 2:
        return values[2:] if channels_first else values[1:-1]
    raise ValueError(f"{what} must be an int or a list of 1, {n} or {n + 2} ints, got {value!r}")


def _pool(op, input, ksize, strides, padding, data_format, name):  # noqa: A002
    """max_pool / avg_pool for any input rank: 4-D runs the 2-D op, 3-D (1-D pooling) runs it on
    a height-1 image, 5-D runs the 3-D pooling composite."""
    input = _creation.convert_to_tensor(input)  # noqa: A001
    rank = input.ndim
    if rank not in (3, 4, 5):
        raise ValueError(f"{name}: input must have rank 3, 4 or 5 (1-D, 2-D or 3-D pooling), got shape {input.shape}")
    n = rank - 2
    default = {1: "NWC", 2: "NHWC", 3: "NDHWC"}[n]
    data_format = _check_str(data_format or default, name, "data_format")
    channels_first = data_format.startswith("NC")
    ksize = _pool_window(ksize, n, channels_first, f"{name}: ksize")
    strides = _pool_window(strides, n, channels_first, f"{name}: strides")
    if n == 2:
        return op(input, ksize, strides, padding, data_format)
    if n == 3:
        pool3d = max_pool3d if op is max_pool2d else avg_pool3d
        return pool3d(input, ksize, strides, padding, data_format)
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"{name}: data_format for 1-D pooling must be 'NWC' or 'NCW', got {data_format!r}")
    if not isinstance(padding, str):  # 3 [before, after] pairs: add the height dim's
        pairs = [list(p) for p in padding]
        padding = pairs[:2] + [[0, 0]] + pairs[2:] if channels_first else pairs[:1] + [[0, 0]] + pairs[1:]
    axis = 2 if channels_first else 1
    out = op(_ops.expand_dims(input, axis), [1] + ksize, [1] + strides, padding,
             "NCHW" if channels_first else "NHWC")
    return _ops.squeeze(out, [axis])


@_composite
def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """The maximum over windows, for 1-D (rank-3 input, 'NWC' / 'NCW'), 2-D (rank 4) or 3-D
    (rank 5, 'NDHWC' / 'NCDHW') pooling (``tf.nn.max_pool``). ksize and strides are an int or a
    list of 1, N or N + 2 ints."""
    return _pool(max_pool2d, input, ksize, strides, padding, data_format, "max_pool")


@_composite
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """The average over windows (padding not counted), for 1-D, 2-D or 3-D pooling (``tf.nn.avg_pool``)."""
    return _pool(avg_pool2d, input, ksize, strides, padding, data_format, "avg_pool")


@_composite
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D max pooling of a rank-3 input (``tf.nn.max_pool1d``)."""
    return _pool(max_pool2d, _require_rank(input, 3, "max_pool1d"), ksize, strides, padding, data_format,
                 "max_pool1d")


@_composite
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """1-D average pooling of a rank-3 input (``tf.nn.avg_pool1d``)."""
    return _pool(avg_pool2d, _require_rank(input, 3, "avg_pool1d"), ksize, strides, padding, data_format,
                 "avg_pool1d")


def _require_rank(x, rank, what):
    x = _creation.convert_to_tensor(x)
    if x.ndim != rank:
        raise ValueError(f"{what}: input must have rank {rank}, got shape {x.shape}")
    return x


@_composite
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Element-wise logistic loss of logits x against labels z in [0, 1]
    (``tf.nn.sigmoid_cross_entropy_with_logits``).

    Computed as max(x, 0) - x * z + log(1 + exp(-|x|)), which never overflows; labels and
    logits must have the same shape. Differentiable in both.
    """
    del name
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits: both labels and logits must be given")
    logits = _creation.convert_to_tensor(logits, dtype_hint=_dtypes.float32)
    labels = _creation.convert_to_tensor(labels, dtype_hint=logits.dtype)
    if labels.dtype != logits.dtype:
        raise TypeError(f"sigmoid_cross_entropy_with_logits: labels ({labels.dtype.name}) and logits "
                        f"({logits.dtype.name}) must have the same dtype")
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"sigmoid_cross_entropy_with_logits: logits and labels must have the same shape, "
                         f"got {logits.shape} and {labels.shape}")
    # Like TensorFlow, select with where (not relu / abs) so the gradient at x = 0 is -z + 0.5.
    zeros = _movement.zeros_like(logits)
    positive = _ops.greater_equal(logits, zeros)
    relu_logits = _selection.where(positive, logits, zeros)
    neg_abs_logits = _selection.where(positive, -logits, logits)
    return relu_logits - logits * labels + _ops.log1p(_ops.exp(neg_abs_logits))


def scaled_dot_product_attention(query, key, value, mask=None, scale=None, name=None):
    """softmax(query @ key^T * scale + mask) @ value.

    mask: None, a bool tensor (True = keep) or an additive float tensor, broadcastable to
    [batch..., Lq, Lk]. scale None means 1 / sqrt(dim).
    """
    del name
    return _ops.scaled_dot_product_attention(query, key, value, True if mask is None else mask, scale)


@_composite
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """Depthwise 2-D convolution: filter [height, width, in_channels, channel_multiplier].

    Output channel c * channel_multiplier + m applies filter[..., c, m] to input channel c
    (a conv2d with one group per input channel).
    """
    del name
    data_format = _check_str(data_format or "NHWC", "depthwise_conv2d", "data_format")
    input = _creation.convert_to_tensor(input)  # noqa: A001
    filter = _creation.convert_to_tensor(filter, dtype_hint=input.dtype)  # noqa: A001
    if filter.ndim != 4 or input.ndim != 4:
        raise ValueError(f"depthwise_conv2d: input and filter must be 4-D, got {input.shape} and {filter.shape}")
    channels = input.shape[1 if data_format.startswith("NC") else 3]
    h, w, c, m = filter.shape
    if c != channels:
        raise ValueError(f"depthwise_conv2d: filter {filter.shape} must have the input's {channels} channels "
                         "in dim 2")
    return conv2d(input, _dispatch.reshape(filter, [h, w, 1, c * m]), strides, padding, data_format, dilations)


def _in_compute_dtype(x, *values):
    """Returns (x, values, narrow): x and values (None, tensors, NumPy or Python values) as
    tensors of x's compute dtype, and the function that rounds a result back to x's dtype.

    float16 and bfloat16 compute in float32 and are rounded once at the end, as the kernels do
    (Note [Half compute]): x and the values are then cast to float32. Other dtypes are unchanged.
    """
    x = _creation.convert_to_tensor(x)
    dtype = x.dtype
    if dtype not in (_dtypes.float16, _dtypes.bfloat16):
        values = [None if v is None else _creation.convert_to_tensor(v, dtype_hint=dtype) for v in values]
        return x, values, lambda y: y

    def widen(v):
        t = _creation.convert_to_tensor(v, dtype_hint=_dtypes.float32)
        return t if t.dtype == _dtypes.float32 else _ops.cast(t, _dtypes.float32)

    return widen(x), [None if v is None else widen(v) for v in values], lambda y: _ops.cast(y, dtype)


@_composite
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + variance_epsilon) + offset, broadcasting (as TensorFlow's).

    offset and scale may be None. float16 and bfloat16 x compute in float32 and round once.
    """
    del name
    x, (mean, variance, offset, scale), narrow = _in_compute_dtype(x, mean, variance, offset, scale)
    fused = _batch_norm_in_one_kernel(x, mean, variance, offset, scale, variance_epsilon)
    if fused is not None:
        return narrow(fused)
    inv = _ops.rsqrt(variance + variance_epsilon)  # as TensorFlow: one op fewer than 1 / sqrt
    if scale is not None:
        inv = inv * scale
    shift = -(mean * inv) if offset is None else offset - mean * inv
    return narrow(x * inv + shift)


_epsilons = {}  # (device, dtype, value) -> a one-element tensor on that device


def _epsilon_on(device, dtype, value):
    """The epsilon as a tensor on the device that runs the op, made once: a
    constant made at each call would be one more host-to-device copy."""
    key = (device, dtype, float(value))
    eps = _epsilons.get(key)
    if eps is None:
        if len(_epsilons) >= 64:  # a program sweeping epsilons keeps a bounded cache
            _epsilons.clear()
        with _device(device):
            eps = _ops.identity(_creation.constant(value, dtype=dtype))
        _epsilons[key] = eps
    return eps


def _batch_norm_in_one_kernel(x, mean, variance, offset, scale, variance_epsilon):
    """Note [Eager batch norm on a stream device]: on a GPU an eager op costs
    its host dispatch and a kernel launch whatever its size, and the
    composite above is seven ops, five of them on [C] vectors: in ResNet-50
    at batch 1 they were about two thirds of the eager step's ops. Where the
    op will run on a stream device, the same arithmetic, instruction for
    instruction, runs as one fused_elementwise kernel (the program the graph
    optimizer makes of the composite, Note [Element-wise fusion]), which
    recomputes the [C] part per element for free in a memory-bound kernel.
    On the CPU that recomputation costs more than the five tiny ops, so the
    CPU keeps the composite. Not while tracing (the optimizer fuses the
    graph anyway) or recording a tape (fused_elementwise has no gradient).
    None where the fused form does not apply: parameters that are not
    channel vectors of x's last dim, a channel dim of 1, rank below 2."""
    if _context.active_tape_count or _C._is_tracing() or x.ndim < 2:
        return None
    device = _C._current_device_scope() or x.device
    if device.startswith("cpu") or x.dtype not in (_dtypes.float32, _dtypes.float64):
        return None
    channels = x.shape[-1]
    if channels is None or channels < 2:
        return None
    for param in (mean, variance, offset, scale):
        if param is not None and (param.ndim < 1 or param.ndim > x.ndim or param.shape[-1] != channels or
                                  any(d != 1 for d in param.shape[:-1])):
            return None
    # Arguments: a0 x, a1 mean, a2 variance, a3 epsilon, then scale and
    # offset where given; the instructions are the composite's, in order.
    args = [x, mean, variance, _epsilon_on(device, x.dtype, variance_epsilon)]
    code = ["add(a2, a3)", "rsqrt(v0)"]
    inv = "v1"
    if scale is not None:
        args.append(scale)
        code.append(f"multiply({inv}, a{len(args) - 1})")
        inv = f"v{len(code) - 1}"
    code.append(f"multiply(a1, {inv})")
    mean_times_inv = f"v{len(code) - 1}"
    if offset is None:
        code.append(f"negative({mean_times_inv})")
    else:
        args.append(offset)
        code.append(f"subtract(a{len(args) - 1}, {mean_times_inv})")
    shift = f"v{len(code) - 1}"
    code.append(f"multiply(a0, {inv})")
    code.append(f"add(v{len(code) - 1}, {shift})")
    return _raw_ops.fused_elementwise(args, program="; ".join(code), outputs=[len(code) - 1])[0]


@_composite
def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None):
    """Batch normalization of a 4-D x over its channel dim; returns (y, batch_mean, batch_variance).

    Training (is_training=True, the default, as in TensorFlow) normalizes with the batch's mean
    and (biased) variance and, like TensorFlow, returns the batch mean and the unbiased
    (Bessel-corrected) batch variance; mean and variance are then ignored. Inference
    (is_training=False) uses mean and variance and returns them unchanged. A float16 or bfloat16
    x computes in float32: y has x's dtype, the returned statistics are float32 (as TensorFlow's,
    whose scale, offset, mean and variance are float32 for half x).
    """
    del name
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"fused_batch_norm: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    x = _creation.convert_to_tensor(x)
    if x.ndim != 4:
        raise ValueError(f"fused_batch_norm: x must be 4-D, got shape {x.shape}")
    if not is_training and (mean is None or variance is None):
        raise ValueError("fused_batch_norm: mean and variance are required when is_training=False")
    x, params, narrow = _in_compute_dtype(x, scale, offset, None if is_training else mean,
                                  None if is_training else variance)
    channels_first = data_format == "NCHW"
    c = x.shape[1 if channels_first else 3]
    if is_training:
        axes = [0, 2, 3] if channels_first else [0, 1, 2]
        batch_mean = _ops.reduce_mean(x, axis=axes)
        centered = x - (_dispatch.reshape(batch_mean, [c, 1, 1]) if channels_first else batch_mean)
        batch_var = _ops.reduce_mean(centered * centered, axis=axes)
        count = x.shape[0] * x.shape[2] * x.shape[3] if channels_first else x.shape[0] * x.shape[1] * x.shape[2]
        mean_used, var_used = batch_mean, batch_var
        out_var = batch_var * (count / max(count - 1, 1))
    else:
        mean_used, var_used = params[2], params[3]
        batch_mean, out_var = mean_used, var_used
    for what, p in zip(("scale", "offset", "mean", "variance"), (*params[:2], mean_used, var_used)):
        if p.shape != (c,):
            raise ValueError(f"fused_batch_norm: {what} must have shape ({c},), got {p.shape}")
    inv = params[0] / _ops.sqrt(var_used + epsilon)
    shift = params[1] - mean_used * inv
    if channels_first:
        inv, shift = _dispatch.reshape(inv, [c, 1, 1]), _dispatch.reshape(shift, [c, 1, 1])
    return narrow(x * inv + shift), batch_mean, out_var


@_composite
def embedding_lookup(params, ids, max_norm=None, name=None):
    """Looks up rows of params (a tensor) by ids: ember.gather(params, ids, axis=0)."""
    del name
    if max_norm is not None:
        raise NotImplementedError("embedding_lookup: max_norm is not supported")
    return _dispatch.gather(params, ids, axis=0)


@_composite
def moments(x, axes, shift=None, keepdims=False, name=None):
    """Mean and variance of ``x`` over ``axes`` (``tf.nn.moments``); returns
    ``(mean, variance)``. The variance is the mean squared deviation from a
    mean treated as a constant, as in TensorFlow. ``shift`` is accepted for
    TensorFlow's signature and unused."""
    del shift, name
    x = _creation.convert_to_tensor(x, dtype_hint=_dtypes.float32)
    axes = [int(a) for a in axes] if isinstance(axes, (list, tuple)) else [int(axes)]
    mean = _ops.reduce_mean(x, axis=axes, keepdims=True)
    variance = _ops.reduce_mean(_ops.squared_difference(x, _ops.stop_gradient(mean)), axis=axes, keepdims=True)
    if not keepdims:
        mean = _dispatch.squeeze(mean, axes)
        variance = _dispatch.squeeze(variance, axes)
    return mean, variance


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """1-D convolution (``tf.nn.conv1d``): input [batch, width, in_channels]
    (``NWC``; ``NCW`` is [batch, in_channels, width]) with filters [width,
    in_channels, out_channels], run as conv2d over a height of 1. ``stride``
    and ``dilations`` are an int or a list of 1 or 3 ints."""
    del name
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"conv1d: data_format must be 'NWC' or 'NCW', got {data_format!r}")

    def width_value(value, what):
        values = [value] if isinstance(value, int) else list(value)
        if len(values) == 3:  # [1, w, 1] for NWC, [1, 1, w] for NCW, as in TensorFlow
            values = [values[1] if data_format == "NWC" else values[2]]
        if len(values) != 1 or not all(isinstance(v, int) and v >= 1 for v in values):
            raise ValueError(f"conv1d: {what} must be a positive int or a list of 1 or 3 ints, "
                             f"got {_safe_repr(value)}")
        return values[0]

    s = width_value(stride, "stride")
    d = 1 if dilations is None else width_value(dilations, "dilations")
    if not isinstance(padding, str):
        raise ValueError(f"conv1d: padding must be 'SAME' or 'VALID', got {_safe_repr(padding)}")
    x = _creation.convert_to_tensor(input, dtype_hint=_dtypes.float32)
    if x.ndim != 3:
        raise ValueError(f"conv1d: input must have rank 3 ([batch, width, channels]), got shape {x.shape}")
    f = _creation.convert_to_tensor(filters, dtype_hint=x.dtype)
    if f.ndim != 3:
        raise ValueError(f"conv1d: filters must have rank 3 ([width, in, out]), got shape {f.shape}")
    height_axis = 1 if data_format == "NWC" else 2
    x2 = _dispatch.expand_dims(x, height_axis)
    f2 = _dispatch.expand_dims(f, 0)
    if data_format == "NWC":
        y = conv2d(x2, f2, [1, 1, s, 1], padding, data_format="NHWC", dilations=[1, 1, d, 1])
    else:
        y = conv2d(x2, f2, [1, 1, 1, s], padding, data_format="NCHW", dilations=[1, 1, 1, d])
    return _dispatch.squeeze(y, [height_axis])

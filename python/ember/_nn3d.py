"""3-D convolution and pooling (tf.nn.conv3d, max_pool3d, avg_pool3d) built from the 2-D ops.

A 3-D window is a stack of 2-D windows along depth: output depth o reads the
(padded) input depths o * stride + k * dilation for k < the window's depth. So
each window depth k takes those input depths as one strided slice, folds them
into the batch and runs the 2-D op (conv2d, max_pool2d, avg_pool2d) over height
and width; the results are combined over k: summed for conv3d, their maximum
for max pooling, and for average pooling summed and divided by the number of
input depths the window covers (TensorFlow does not count padding). The 2-D ops
and the slices bring their gradients, so these need none of their own.
"""

import numpy as np

from ember._checks import check_str, safe_repr
from ember._generated import ops
from ember._runtime import composite
from ember import _creation, dtypes

_TO_CHANNELS_LAST = [0, 2, 3, 4, 1]
_TO_CHANNELS_FIRST = [0, 4, 1, 2, 3]


def _data_format(value, name):
    value = check_str(value or "NDHWC", name, "data_format")
    if value not in ("NDHWC", "NCDHW"):
        raise ValueError(f"{name}: data_format must be 'NDHWC' or 'NCDHW', got {safe_repr(value)}")
    return value


def _spatial(value, channels_first, name, what):
    """(depth, height, width) from an int or a list of 1, 3 or 5 positive ints (5: in the data
    format's order, with 1 for the batch and channel entries)."""
    try:
        values = [int(value)] if isinstance(value, (int, np.integer)) else [int(v) for v in value]
    except (TypeError, ValueError, OverflowError, RecursionError):
        raise ValueError(f"{name}: {what} must be a positive int or a list of 1, 3 or 5 positive ints, "
                         f"got {safe_repr(value)}") from None
    if len(values) == 5:
        outer = [values[0], values[1]] if channels_first else [values[0], values[4]]
        if outer != [1, 1]:
            raise ValueError(f"{name}: {what} must be 1 in the batch and channel dims, got {safe_repr(value)}")
        values = values[2:] if channels_first else values[1:4]
    elif len(values) == 1:
        values = values * 3
    if len(values) != 3 or min(values) < 1:
        raise ValueError(f"{name}: {what} must be a positive int or a list of 1, 3 or 5 positive ints, "
                         f"got {safe_repr(value)}")
    return values


def _padding(value, name):
    if not isinstance(value, str) or value.upper() not in ("SAME", "VALID"):
        raise ValueError(f"{name}: padding must be 'SAME' or 'VALID', got {safe_repr(value)}")
    return value.upper()


def _out_size(size, window, stride, padding, name, dim):
    """TensorFlow's output length and the padding before it, for one spatial dim."""
    if padding == "SAME":
        out = -(-size // stride)
        return out, max((out - 1) * stride + window - size, 0) // 2
    if size < window:
        raise ValueError(f"{name}: the {dim} window ({window}, dilated) is larger than the input's {dim} "
                         f"({size}) with VALID padding")
    return (size - window) // stride + 1, 0


def _channels_last(x, name):
    x = _creation.convert_to_tensor(x, dtype_hint=dtypes.float32)
    if x.ndim != 5:
        raise ValueError(f"{name}: input must have rank 5 ([batch, depth, height, width, channels]), "
                         f"got shape {x.shape}")
    return x


def _depth_slices(x, window, stride, dilation, before, out, pad_value):
    """The window depths k that reach the input, each with x's depths o * stride + k * dilation
    - before (o < out; out of range: pad_value) folded into the batch: [(k, [n * out, h, w, c])].

    Taps that only ever read padding are left out (they add nothing), so a huge window or
    dilation costs no more than the input's depth. With no output depth (or no input depth),
    tap 0's empty slice stands in, so the 2-D op still gives the result's other dims; when
    no tap reaches the input (conv3d only), zeros stand in for tap 0.
    """
    n, depth, h, w, c = x.shape
    if out == 0 or depth == 0:
        empty = ops.slice(x, [0, 0, 0, 0, 0], [n, 0, h, w, c])
        return [(0, ops.reshape(empty, [0, h, w, c]))]
    # Tap k reads depths from k * dilation - before to that + (out - 1) * stride.
    first = max(0, -(-(before - (out - 1) * stride) // dilation))
    last = min(window - 1, (depth - 1 + before) // dilation)
    if first > last:  # every tap reads padding (a dilation far past the input): a zero plane
        return [(0, ops.zeros([n * out, h, w, c], x.dtype))]
    low = first * dilation - before
    high = (out - 1) * stride + last * dilation - before
    front, back = max(0, -low), max(0, high - (depth - 1))
    if front or back:
        x = ops.pad(x, [0, 0, front, back, 0, 0, 0, 0, 0, 0], "CONSTANT", pad_value)
    slices = []
    for k in range(first, last + 1):
        begin = k * dilation - before + front
        end = begin + (out - 1) * stride + 1
        picked = ops.strided_slice(x, [0, begin, 0, 0, 0], [n, end, h, w, c], [1, stride, 1, 1, 1])
        slices.append((k, ops.reshape(picked, [n * out, h, w, c])))
    return slices


def _unfold(y, n, out):
    """[n * out, h, w, c] back to [n, out, h, w, c]."""
    return ops.reshape(y, [n, out] + list(y.shape[1:]))


def _finish(y, channels_first):
    return ops.transpose(y, _TO_CHANNELS_FIRST) if channels_first else y


@composite
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002
    """3-D convolution (``tf.nn.conv3d``): input [batch, depth, height, width, in_channels]
    (``NDHWC``; ``NCDHW`` puts channels second), filters [depth, height, width, in_channels /
    groups, out_channels]. strides and dilations are lists of 5 ints (1 for batch and channels;
    an int or 3 ints are accepted too); padding is 'SAME' or 'VALID'."""
    name = "conv3d"
    data_format = _data_format(data_format, name)
    channels_first = data_format == "NCDHW"
    sd, sh, sw = _spatial(strides, channels_first, name, "strides")
    dd, dh, dw = _spatial(1 if dilations is None else dilations, channels_first, name, "dilations")
    padding = _padding(padding, name)
    x = _channels_last(input, name)
    if channels_first:
        x = ops.transpose(x, _TO_CHANNELS_LAST)
    if not x.dtype.is_floating:
        raise TypeError(f"conv3d: input must have a floating dtype, got dtype {x.dtype.name}")
    f = _creation.convert_to_tensor(filters, dtype_hint=x.dtype)
    if f.ndim != 5:
        raise ValueError(f"conv3d: filters must have rank 5 ([depth, height, width, in, out]), got shape {f.shape}")
    if f.dtype != x.dtype:
        raise TypeError(f"conv3d: input ({x.dtype.name}) and filters ({f.dtype.name}) must have the same dtype")
    n, depth, height, width, channels = x.shape
    kd, kh, kw, f_in, f_out = f.shape
    if f_in == 0 or channels % f_in or (f_out % (channels // f_in) if channels else True):
        raise ValueError(f"conv3d: input channels ({channels}) must be a positive multiple of the filters' "
                         f"in_channels ({f_in}), and the filters' out_channels ({f_out}) a multiple of the groups")
    if min(kd, kh, kw) < 1:
        raise ValueError(f"conv3d: filters must have a positive depth, height and width, got shape {f.shape}")
    out_d, before = _out_size(depth, (kd - 1) * dd + 1, sd, padding, name, "depth")
    _out_size(height, (kh - 1) * dh + 1, sh, padding, name, "height")
    _out_size(width, (kw - 1) * dw + 1, sw, padding, name, "width")
    slices = _depth_slices(x, kd, sd, dd, before, out_d, 0.0)
    planes = [ops.conv2d(s, ops.gather(f, k, axis=0), [sh, sw], padding, "NHWC", [dh, dw], [])
              for k, s in slices]
    y = planes[0] if len(planes) == 1 else ops.add_n(planes)
    return _finish(_unfold(y, n, out_d), channels_first)


def _pool3d(name, input, ksize, strides, padding, data_format):  # noqa: A002
    """The shared part of max_pool3d and avg_pool3d: the 2-D pooled slices, their depth geometry."""
    data_format = _data_format(data_format, name)
    channels_first = data_format == "NCDHW"
    kd, kh, kw = _spatial(ksize, channels_first, name, "ksize")
    sd, sh, sw = _spatial(strides, channels_first, name, "strides")
    padding = _padding(padding, name)
    x = _channels_last(input, name)
    if channels_first:
        x = ops.transpose(x, _TO_CHANNELS_LAST)
    n, depth, height, width, _ = x.shape
    out_d, before = _out_size(depth, kd, sd, padding, name, "depth")
    _out_size(height, kh, sh, padding, name, "height")
    _out_size(width, kw, sw, padding, name, "width")
    return x, channels_first, (kd, kh, kw), (sd, sh, sw), padding, (n, depth, out_d, before)


@composite
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """The maximum over 3-D windows (``tf.nn.max_pool3d``); padding is never the maximum."""
    del name
    x, channels_first, (kd, kh, kw), (sd, sh, sw), padding, (n, _, out_d, before) = _pool3d(
        "max_pool3d", input, ksize, strides, padding, data_format)
    if x.dtype.is_bool or x.dtype.is_complex:
        raise TypeError(f"max_pool3d: input must have a real dtype, got dtype {x.dtype.name}")
    np_dtype = x.dtype.as_numpy_dtype
    lowest = -np.inf if x.dtype.is_floating else float(np.iinfo(np_dtype).min)
    slices = _depth_slices(x, kd, sd, 1, before, out_d, lowest)
    y = None
    for _, s in slices:
        pooled = ops.max_pool2d(s, [kh, kw], [sh, sw], padding, "NHWC", [])
        y = pooled if y is None else ops.maximum(y, pooled)
    return _finish(_unfold(y, n, out_d), channels_first)


@composite
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """The average over 3-D windows (``tf.nn.avg_pool3d``); padded positions are not counted."""
    del name
    x, channels_first, (kd, kh, kw), (sd, sh, sw), padding, (n, depth, out_d, before) = _pool3d(
        "avg_pool3d", input, ksize, strides, padding, data_format)
    if not x.dtype.is_floating:
        raise TypeError(f"avg_pool3d: input must have a floating dtype, got dtype {x.dtype.name}")
    slices = _depth_slices(x, kd, sd, 1, before, out_d, 0.0)
    planes = [ops.avg_pool2d(s, [kh, kw], [sh, sw], padding, "NHWC", []) for _, s in slices]
    total = _unfold(planes[0] if len(planes) == 1 else ops.add_n(planes), n, out_d)
    # Each 2-D average already divides by its valid height x width; divide by the valid depths
    # (Python ints: a huge window must not overflow).
    counts = [min(o * sd - before + kd, depth) - max(o * sd - before, 0) for o in range(out_d)]
    scale = np.array([1.0 / max(c, 1) for c in counts]).reshape(1, out_d, 1, 1, 1).astype(x.dtype.as_numpy_dtype)
    return _finish(ops.multiply(total, scale), channels_first)

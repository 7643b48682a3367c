"""Convolution layers: Conv1D/2D/3D, Conv1D/2DTranspose, DepthwiseConv2D and SeparableConv2D."""

import ember
from ember import nn
from ember.keras import initializers
from ember.keras.engine.layer import Layer
from ember.keras.layers._kernel_options import kernel_options_config, set_kernel_options
from ember.keras.engine.serialization import serialize


def _tuple(value, n, what):
    values = (value,) * n if isinstance(value, int) else tuple(int(v) for v in value)
    if len(values) != n:
        raise ValueError(f"{what} must be an int or {n} ints, got {value!r}")
    return values


def _to_channels_last(x, rank):
    return ember.transpose(x, [0] + list(range(2, rank + 2)) + [1])


def _to_channels_first(x, rank):
    return ember.transpose(x, [0, rank + 1] + list(range(1, rank + 1)))


class _Conv(Layer):
    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        n = self.rank
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, n, "kernel_size")
        self.strides = _tuple(strides, n, "strides")
        self.dilation_rate = _tuple(dilation_rate, n, "dilation_rate")
        self.padding = padding.lower()
        if self.padding not in ("valid", "same", "causal") or (self.padding == "causal" and n != 1):
            raise ValueError(f"{type(self).__name__}: padding must be 'valid' or 'same' ('causal' for Conv1D), "
                             f"got {padding!r}")
        self.data_format = data_format or "channels_last"
        self.groups = int(groups)
        set_kernel_options(self, activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                           bias_regularizer)

    def _channels(self, input_shape):
        c = input_shape[1] if self.data_format == "channels_first" else input_shape[-1]
        if c is None:
            raise ValueError(f"{self.name}: the channel dim must be known, got input shape {input_shape}")
        return int(c)

    def _kernel_shape(self, in_channels):
        if in_channels % self.groups or self.filters % self.groups:
            raise ValueError(f"{self.name}: channels ({in_channels}) and filters ({self.filters}) must be "
                             f"divisible by groups ({self.groups})")
        return self.kernel_size + (in_channels // self.groups, self.filters)

    def build(self, input_shape):
        shape = self._kernel_shape(self._channels(input_shape))
        self.kernel = self.add_weight(shape=shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, name="kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, name="bias") if self.use_bias else None
        self.built = True

    def call(self, inputs):
        x = _to_channels_last(inputs, self.rank) if self.data_format == "channels_first" else inputs
        y = self._convolve(x)
        if self.bias is not None:
            y = y + self.bias
        y = self.activation(y)
        return _to_channels_first(y, self.rank) if self.data_format == "channels_first" else y

    def get_config(self):
        return {**super().get_config(), "filters": self.filters, "kernel_size": list(self.kernel_size),
                "strides": list(self.strides), "padding": self.padding, "data_format": self.data_format,
                "dilation_rate": list(self.dilation_rate), "groups": self.groups, **kernel_options_config(self)}


class Conv1D(_Conv):
    """1-D convolution over [batch, steps, channels]; kernel [kernel_size, in, filters]."""
    rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, groups, activation,
                         use_bias, **kwargs)

    def _convolve(self, x):
        padding = self.padding
        if padding == "causal":  # pad on the left only, so step t sees steps <= t
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = ember.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        x4 = ember.expand_dims(x, 1)
        k4 = ember.expand_dims(self.kernel, 0)
        y = nn.conv2d(x4, k4, [1, 1, self.strides[0], 1], padding.upper(), dilations=[1, 1, self.dilation_rate[0], 1])
        return ember.squeeze(y, [1])


class Conv2D(_Conv):
    """2-D convolution over [batch, height, width, channels]; kernel [kh, kw, in / groups, filters]."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, groups, activation,
                         use_bias, **kwargs)

    def _convolve(self, x):
        return nn.conv2d(x, self.kernel, [1, *self.strides, 1], self.padding.upper(),
                         dilations=[1, *self.dilation_rate, 1])


class Conv3D(_Conv):
    """3-D convolution over [batch, depth, height, width, channels]; kernel [kd, kh, kw, in, filters]."""
    rank = 3

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1, 1), groups=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, groups, activation,
                         use_bias, **kwargs)
        if self.groups != 1:
            raise NotImplementedError("Conv3D: groups > 1 is not supported")

    def _convolve(self, x):
        return nn.conv3d(x, self.kernel, [1, *self.strides, 1], self.padding.upper(),
                         dilations=[1, *self.dilation_rate, 1])


def _transposed_conv2d(x, kernel, strides, padding):
    """conv2d's transpose for an NHWC x and a [kh, kw, out, in] kernel, from ops that
    trace with an unknown batch dim (see Conv2DTranspose)."""
    kh, kw = kernel.shape[0], kernel.shape[1]
    sh, sw = strides
    h, w, c = x.shape[1], x.shape[2], x.shape[3]
    if sh > 1 or sw > 1:  # put stride-1 zeros between input pixels
        x = ember.reshape(x, [-1, h, 1, w, 1, c])
        x = ember.pad(x, [[0, 0], [0, 0], [0, sh - 1], [0, 0], [0, sw - 1], [0, 0]])
        x = ember.reshape(x, [-1, h * sh, w * sw, c])[:, :(h - 1) * sh + 1, :(w - 1) * sw + 1, :]
    x = ember.pad(x, [[0, 0], [kh - 1, kh - 1], [kw - 1, kw - 1], [0, 0]])
    flipped = ember.reverse(ember.transpose(kernel, [0, 1, 3, 2]), [0, 1])
    y = nn.conv2d(x, flipped, [1, 1, 1, 1], "VALID")  # the full output, (h - 1) * s + k per dim
    if padding == "same":  # crop to h * s as conv2d's SAME padding of that size implies
        top, left = max(kh - sh, 0) // 2, max(kw - sw, 0) // 2
        y = ember.pad(y, [[0, 0], [0, max(sh - kh, 0)], [0, max(sw - kw, 0)], [0, 0]])
        y = y[:, top:top + h * sh, left:left + w * sw, :]
    return y


class Conv1DTranspose(_Conv):
    """The transpose of Conv1D; kernel [kernel_size, filters, in]."""
    rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None, data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, 1, activation,
                         use_bias, **kwargs)
        if output_padding is not None or self.dilation_rate != (1,) or self.padding == "causal":
            raise NotImplementedError("Conv1DTranspose: output_padding, dilation_rate and causal are not supported")

    def _kernel_shape(self, in_channels):
        return self.kernel_size + (self.filters, in_channels)

    def _convolve(self, x):
        y = _transposed_conv2d(ember.expand_dims(x, 1), ember.expand_dims(self.kernel, 0), (1, self.strides[0]),
                               self.padding)
        return ember.squeeze(y, [1])

    def get_config(self):
        config = super().get_config()
        config.pop("groups")
        return {**config, "output_padding": None}


class Conv2DTranspose(_Conv):
    """The transpose of Conv2D; kernel [kh, kw, filters, in].

    Computed as zero insertion (stride) + padding + a stride-1 conv2d with the
    flipped kernel, not with ember.nn.conv2d_transpose: that op takes its
    output shape as a static attribute, so it cannot trace with an unknown
    batch dim (docs/keras.md).
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, 1, activation,
                         use_bias, **kwargs)
        if output_padding is not None or self.dilation_rate != (1, 1):
            raise NotImplementedError("Conv2DTranspose: output_padding and dilation_rate are not supported")
        self.output_padding = None

    def _kernel_shape(self, in_channels):
        return self.kernel_size + (self.filters, in_channels)

    def _convolve(self, x):
        return _transposed_conv2d(x, self.kernel, self.strides, self.padding)

    def get_config(self):
        config = super().get_config()
        config.pop("groups")
        return {**config, "output_padding": None}


class DepthwiseConv2D(_Conv):
    """One kernel per input channel (times ``depth_multiplier``); kernel [kh, kw, in, depth_multiplier]."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", **kwargs):
        for unused in ("depthwise_regularizer", "depthwise_constraint"):
            kwargs.pop(unused, None)
        # `filters` is known only at build (in * depth_multiplier); 1 stands in until then.
        super().__init__(1, kernel_size, strides, padding, data_format, dilation_rate, 1, activation, use_bias,
                         kernel_initializer=depthwise_initializer, bias_initializer=bias_initializer, **kwargs)
        self.depth_multiplier = int(depth_multiplier)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.filters = channels * self.depth_multiplier
        self.kernel = self.add_weight(shape=self.kernel_size + (channels, self.depth_multiplier),
                                      initializer=self.kernel_initializer, name="kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer, name="bias") \
            if self.use_bias else None
        self.built = True

    def _convolve(self, x):
        return nn.depthwise_conv2d(x, self.kernel, [1, *self.strides, 1], self.padding.upper(),
                                   dilations=[1, *self.dilation_rate, 1])

    def get_config(self):
        config = super().get_config()
        for key in ("filters", "groups", "kernel_initializer"):
            config.pop(key)
        return {**config, "depth_multiplier": self.depth_multiplier,
                "depthwise_initializer": serialize(self.kernel_initializer)}


class SeparableConv2D(_Conv):
    """A depthwise convolution, then a 1x1 ``filters``-channel one: kernels
    depthwise [kh, kw, in, depth_multiplier] and pointwise [1, 1, in * depth_multiplier, filters]."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", **kwargs):
        for unused in ("depthwise_regularizer", "pointwise_regularizer", "depthwise_constraint",
                       "pointwise_constraint"):
            kwargs.pop(unused, None)
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, 1, activation,
                         use_bias, kernel_initializer=depthwise_initializer, bias_initializer=bias_initializer,
                         **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.pointwise_initializer = initializers.get(pointwise_initializer)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(shape=self.kernel_size + (channels, self.depth_multiplier),
                                                initializer=self.kernel_initializer, name="depthwise_kernel")
        self.pointwise_kernel = self.add_weight(shape=(1, 1, channels * self.depth_multiplier, self.filters),
                                                initializer=self.pointwise_initializer, name="pointwise_kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer, name="bias") \
            if self.use_bias else None
        self.built = True

    def _convolve(self, x):
        y = nn.depthwise_conv2d(x, self.depthwise_kernel, [1, *self.strides, 1], self.padding.upper(),
                                dilations=[1, *self.dilation_rate, 1])
        return nn.conv2d(y, self.pointwise_kernel, [1, 1, 1, 1], "VALID")

    def get_config(self):
        config = super().get_config()
        for key in ("groups", "kernel_initializer"):
            config.pop(key)
        return {**config, "depth_multiplier": self.depth_multiplier,
                "depthwise_initializer": serialize(self.kernel_initializer),
                "pointwise_initializer": serialize(self.pointwise_initializer)}

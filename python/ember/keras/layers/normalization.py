"""BatchNormalization (moving statistics, training vs inference), LayerNormalization, GroupNormalization."""

import ember
from ember import nn
from ember.keras import initializers
from ember.keras.engine.layer import Layer
from ember.keras.engine.serialization import serialize


def _axes(axis, rank):
    axes = [axis] if isinstance(axis, int) else list(axis)
    return sorted(a % rank for a in axes)



def _add_scale_and_offset(layer, shape):
    """The layer's gamma and beta of `shape`; None where `scale` or `center` is off."""
    layer.gamma = layer.add_weight(shape=shape, initializer=layer.gamma_initializer, name="gamma") \
        if layer.scale else None
    layer.beta = layer.add_weight(shape=shape, initializer=layer.beta_initializer, name="beta") \
        if layer.center else None

class BatchNormalization(Layer):
    """Normalizes with the batch's statistics when training (and updates the
    non-trainable moving mean and variance: moving = moving * momentum +
    batch * (1 - momentum)), with the moving statistics at inference. A
    layer with ``trainable = False`` always runs in inference mode (Keras 3)."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", moving_mean_initializer="zeros",
                 moving_variance_initializer="ones", beta_regularizer=None, gamma_regularizer=None,
                 beta_constraint=None, gamma_constraint=None, synchronized=False, **kwargs):
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon = axis, float(momentum), float(epsilon)
        self.center, self.scale = center, scale
        self.supports_masking = True
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)

    def build(self, input_shape):
        rank = len(input_shape)
        self._feature_axes = _axes(self.axis, rank)
        shape = tuple(input_shape[a] for a in self._feature_axes)
        _add_scale_and_offset(self, shape)
        self.moving_mean = self.add_weight(shape=shape, initializer=self.moving_mean_initializer,
                                           trainable=False, name="moving_mean")
        self.moving_variance = self.add_weight(shape=shape, initializer=self.moving_variance_initializer,
                                               trainable=False, name="moving_variance")
        self.built = True

    def _broadcast(self, v, rank):
        # A [features] weight shaped to broadcast against the input.
        shape = [1] * rank
        for a, d in zip(self._feature_axes, v.shape):
            shape[a] = d
        return ember.reshape(v, shape) if self._feature_axes != [rank - 1] else v

    def call(self, inputs, training=False):
        rank = len(inputs.shape)
        reduce_axes = [a for a in range(rank) if a not in self._feature_axes]
        if training and self.trainable:
            mean, variance = nn.moments(inputs, reduce_axes)
            m = self.momentum
            self.moving_mean.assign(self.moving_mean * m + ember.stop_gradient(mean) * (1.0 - m))
            self.moving_variance.assign(self.moving_variance * m + ember.stop_gradient(variance) * (1.0 - m))
        else:
            mean, variance = self.moving_mean.read_value(), self.moving_variance.read_value()
        # As Keras on TensorFlow: tf.nn.batch_normalization's arithmetic, two
        # passes over the input (one kernel on a GPU, Note [Eager batch norm
        # on a stream device]).
        def broadcast(v):
            return None if v is None else self._broadcast(v, rank)

        return nn.batch_normalization(inputs, broadcast(mean), broadcast(variance), broadcast(self.beta),
                                      broadcast(self.gamma), self.epsilon)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale,
                "beta_initializer": serialize(self.beta_initializer),
                "gamma_initializer": serialize(self.gamma_initializer),
                "moving_mean_initializer": serialize(self.moving_mean_initializer),
                "moving_variance_initializer": serialize(self.moving_variance_initializer)}


class LayerNormalization(Layer):
    """Normalizes each example over ``axis`` (default the last), then scales by gamma and shifts by beta."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.axis, self.epsilon, self.center, self.scale = axis, float(epsilon), center, scale
        self.supports_masking = True
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)

    def build(self, input_shape):
        rank = len(input_shape)
        self._norm_axes = _axes(self.axis, rank)
        shape = tuple(input_shape[a] for a in self._norm_axes)
        _add_scale_and_offset(self, shape)
        self.built = True

    def _broadcast(self, v, rank):
        shape = [1] * rank
        for a, d in zip(self._norm_axes, v.shape):
            shape[a] = d
        return ember.reshape(v, shape)

    def call(self, inputs):
        rank = len(inputs.shape)
        mean, variance = nn.moments(inputs, self._norm_axes, keepdims=True)
        y = (inputs - mean) * ember.rsqrt(variance + self.epsilon)
        if self.gamma is not None:
            y = y * self._broadcast(self.gamma, rank)
        if self.beta is not None:
            y = y + self._broadcast(self.beta, rank)
        return y

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon, "center": self.center,
                "scale": self.scale, "beta_initializer": serialize(self.beta_initializer),
                "gamma_initializer": serialize(self.gamma_initializer)}


class GroupNormalization(Layer):
    """Normalizes each example over groups of channels (the last axis split into ``groups``)
    and all other non-batch axes, then scales by gamma and shifts by beta per channel."""

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if axis != -1:
            raise NotImplementedError("GroupNormalization: only axis=-1 (channels last) is supported")
        self.groups, self.axis, self.epsilon, self.center, self.scale = int(groups), axis, float(epsilon), center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.supports_masking = True

    def build(self, input_shape):
        channels = input_shape[-1]
        if channels % self.groups:
            raise ValueError(f"GroupNormalization: {channels} channels do not split into {self.groups} groups")
        self.gamma = self.add_weight(shape=(channels,), initializer=self.gamma_initializer, name="gamma") \
            if self.scale else None
        self.beta = self.add_weight(shape=(channels,), initializer=self.beta_initializer, name="beta") \
            if self.center else None
        self.built = True

    def call(self, inputs):
        shape = list(inputs.shape)
        channels = shape[-1]
        grouped = ember.reshape(inputs, [-1] + shape[1:-1] + [self.groups, channels // self.groups])
        axes = list(range(1, len(shape) - 1)) + [len(shape)]  # spatial axes and the channels within a group
        mean, variance = nn.moments(grouped, axes, keepdims=True)
        y = ember.reshape((grouped - mean) * ember.rsqrt(variance + self.epsilon), [-1] + shape[1:])
        if self.gamma is not None:
            y = y * self.gamma
        if self.beta is not None:
            y = y + self.beta
        return y

    def get_config(self):
        return {**super().get_config(), "groups": self.groups, "axis": self.axis, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale, "beta_initializer": serialize(self.beta_initializer),
                "gamma_initializer": serialize(self.gamma_initializer)}

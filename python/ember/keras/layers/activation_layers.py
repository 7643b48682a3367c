"""Activation layers: ReLU, LeakyReLU, PReLU, ELU, Softmax."""

import ember
from ember import nn
from ember.keras import activations, initializers
from ember.keras.engine.layer import Layer
from ember.keras.engine.serialization import serialize


class ReLU(Layer):
    """max(x, 0), with Keras' max_value, negative_slope and threshold."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.max_value, self.negative_slope, self.threshold = max_value, float(negative_slope), float(threshold)

    def call(self, inputs):
        return activations.relu(inputs, self.negative_slope, self.max_value, self.threshold)

    def get_config(self):
        return {**super().get_config(), "max_value": self.max_value, "negative_slope": self.negative_slope,
                "threshold": self.threshold}


class LeakyReLU(Layer):
    def __init__(self, negative_slope=0.3, **kwargs):
        super().__init__(**kwargs)
        self.negative_slope = float(negative_slope)

    def call(self, inputs):
        return nn.leaky_relu(inputs, alpha=self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


class ELU(Layer):
    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs):
        return activations.elu(inputs, self.alpha)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class PReLU(Layer):
    """max(x, 0) + alpha * min(x, 0) with a learned alpha per feature (shared over ``shared_axes``)."""

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.shared_axes = None if shared_axes is None else (
            [shared_axes] if isinstance(shared_axes, int) else list(shared_axes))

    def build(self, input_shape):
        shape = list(input_shape[1:])
        for axis in self.shared_axes or []:
            shape[axis - 1] = 1
        self.alpha = self.add_weight(shape=tuple(shape), initializer=self.alpha_initializer, name="alpha")
        self.built = True

    def call(self, inputs):
        return nn.relu(inputs) - self.alpha * nn.relu(-inputs)

    def get_config(self):
        return {**super().get_config(), "alpha_initializer": serialize(self.alpha_initializer),
                "shared_axes": self.shared_axes}


class Softmax(Layer):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:  # masked positions get no probability
            inputs = ember.where(ember.cast(mask, "bool"), inputs, ember.fill(ember.shape(inputs), -1e9))
        return nn.softmax(inputs, axis=self.axis)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}

"""Core layers: InputLayer/Input, Dense, Activation, Flatten, Reshape, Dropout, Rescaling, Embedding, Masking, ..."""

import numpy as np

import ember
from ember import nn
from ember.keras import activations, initializers, regularizers
from ember.keras.engine.keras_tensor import KerasTensor, Node
from ember.keras.engine.layer import Layer
from ember.keras.layers._kernel_options import kernel_options_config, set_kernel_options
from ember.keras.engine.serialization import serialize


class InputLayer(Layer):
    """The layer behind ``Input``: it makes the symbolic tensor a functional model starts from."""

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None, name=None,
                 input_tensor=None, **kwargs):
        if "input_shape" in kwargs and shape is None:
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs and batch_shape is None:
            batch_shape = kwargs.pop("batch_input_shape")
        super().__init__(name=name, dtype=dtype, **kwargs)
        if batch_shape is None:
            if shape is None:
                raise ValueError("InputLayer: give `shape` or `batch_shape`")
            batch_shape = (batch_size,) + tuple(shape)
        self.batch_shape = tuple(batch_shape)
        self.built = True
        self.output_tensor = KerasTensor(self.batch_shape, self._dtype_name, name=self.name)
        self._inbound_nodes.append(Node(self, (), {}, self.output_tensor))

    def call(self, inputs):
        return inputs

    def get_config(self):
        return {"batch_shape": list(self.batch_shape), "dtype": self._dtype_name, "sparse": False,
                "name": self.name}


def Input(shape=None, batch_size=None, dtype=None, sparse=None, batch_shape=None, name=None, tensor=None):
    """A symbolic input of per-example ``shape`` (the batch dim is added, None unless given)."""
    return InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, batch_shape=batch_shape,
                      name=name).output_tensor


class Dense(Layer):
    """outputs = activation(inputs @ kernel + bias), on the last axis of inputs of any rank >= 2."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if int(units) <= 0:
            raise ValueError(f"Dense: units must be a positive integer, got {units}")
        self.units = int(units)
        self.supports_masking = True
        set_kernel_options(self, activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                           bias_regularizer)

    def build(self, input_shape):
        in_dim = input_shape[-1]
        if in_dim is None:
            raise ValueError(f"Dense {self.name}: the last dim of the input must be known, got {input_shape}")
        self.kernel = self.add_weight(shape=(in_dim, self.units), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, name="kernel")
        self.bias = self.add_weight(shape=(self.units,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, name="bias") if self.use_bias else None
        self.built = True

    def call(self, inputs):
        if len(inputs.shape) == 2:
            y = ember.matmul(inputs, self.kernel)
        else:  # contract the last axis of a higher-rank input
            y = ember.tensordot(inputs, self.kernel, axes=[[len(inputs.shape) - 1], [0]])
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y)

    def get_config(self):
        return {**super().get_config(), "units": self.units, **kernel_options_config(self)}


class Activation(Layer):
    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


class Identity(Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs):
        return inputs


class Flatten(Layer):
    """Flattens every dim but the batch dim."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"

    def call(self, inputs):
        x = inputs
        if self.data_format == "channels_first" and len(x.shape) > 2:
            x = ember.transpose(x, [0] + list(range(2, len(x.shape))) + [1])
        rest = x.shape[1:]
        if any(d is None for d in rest):
            # ember.reshape takes a static shape, so only the batch dim may be unknown.
            raise ValueError(f"Flatten {self.name}: the dims after the batch dim must be known, got {x.shape}")
        return ember.reshape(x, [-1, int(np.prod(rest, dtype=np.int64))])

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


class Reshape(Layer):
    """Reshapes each example to ``target_shape`` (one dim may be -1)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)

    def call(self, inputs):
        target = list(self.target_shape)
        if -1 in target:  # resolve it from the known per-example size, so the batch dim can be -1
            known = int(np.prod(inputs.shape[1:], dtype=np.int64))
            others = int(np.prod([d for d in target if d != -1], dtype=np.int64))
            target[target.index(-1)] = known // others
        return ember.reshape(inputs, [-1] + target)

    def get_config(self):
        return {**super().get_config(), "target_shape": list(self.target_shape)}


class Dropout(Layer):
    """Zeroes a fraction ``rate`` of inputs and scales the rest by 1/(1-rate), only when training."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate < 1:
            raise ValueError(f"Dropout: rate must be in [0, 1), got {rate}")
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        return nn.dropout(inputs, self.rate, noise_shape=self.noise_shape)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed}


class Rescaling(Layer):
    """inputs * scale + offset."""

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = float(scale), float(offset)
        self.supports_masking = True

    def call(self, inputs):
        return ember.cast(inputs, self._dtype_name) * self.scale + self.offset

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


class Embedding(Layer):
    """Looks up rows of an (input_dim, output_dim) matrix by integer index."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, **kwargs):
        super().__init__(**kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        init = embeddings_initializer
        if init == "uniform":  # Keras' default: RandomUniform(-0.05, 0.05)
            init = initializers.RandomUniform(-0.05, 0.05)
        self.embeddings_initializer = initializers.get(init)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.mask_zero = mask_zero
        self.autocast = False  # indices stay integers

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer, name="embeddings")
        self.built = True

    def call(self, inputs):
        if not inputs.dtype.is_integer:
            inputs = ember.cast(inputs, "int32")
        return ember.gather(self.embeddings, inputs)

    def compute_mask(self, inputs, previous_mask=None):
        # mask_zero: index 0 is padding, and the layers after see where it is.
        return ember.not_equal(inputs, 0) if self.mask_zero else None

    def get_config(self):
        return {**super().get_config(), "input_dim": self.input_dim, "output_dim": self.output_dim,
                "embeddings_initializer": serialize(self.embeddings_initializer), "mask_zero": self.mask_zero}


class Masking(Layer):
    """Masks the steps whose features all equal ``mask_value`` (and zeroes them)."""

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = float(mask_value)
        self.supports_masking = True

    def compute_mask(self, inputs, previous_mask=None):
        return ember.reduce_any(ember.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = ember.cast(self.compute_mask(inputs), inputs.dtype)
        return inputs * ember.expand_dims(keep, -1)

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}


class Lambda(Layer):
    """Wraps a function of the inputs (not serializable to a config across processes)."""

    def __init__(self, function, output_shape=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function, self.arguments = function, arguments or {}

    def call(self, inputs):
        return self.function(inputs, **self.arguments)

"""The options Dense and the convolutions share: the activation, whether
there is a bias, and the kernel's and the bias's initializers and
regularizers, set from the constructor's arguments and written back by
get_config."""

from ember.keras import activations, initializers, regularizers
from ember.keras.engine.serialization import serialize


def set_kernel_options(layer, activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                       bias_regularizer):
    layer.activation = activations.get(activation)
    layer.use_bias = use_bias
    layer.kernel_initializer = initializers.get(kernel_initializer)
    layer.bias_initializer = initializers.get(bias_initializer)
    layer.kernel_regularizer = regularizers.get(kernel_regularizer)
    layer.bias_regularizer = regularizers.get(bias_regularizer)


def kernel_options_config(layer):
    return {"activation": activations.serialize(layer.activation), "use_bias": layer.use_bias,
            "kernel_initializer": serialize(layer.kernel_initializer),
            "bias_initializer": serialize(layer.bias_initializer),
            "kernel_regularizer": regularizers.serialize(layer.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(layer.bias_regularizer)}

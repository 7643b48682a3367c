"""ember.keras: Keras 3's API on Ember ops (``tf.keras``): layers, models, training, losses, metrics,
callbacks, saving (docs/keras.md)."""

from ember import initializers
from ember.keras import activations, backend, callbacks, datasets, losses, metrics, optimizers, regularizers
from ember.keras import layers, models, ops, saving, utils
from ember.keras.engine.keras_tensor import KerasTensor
from ember.keras.layers import Input, Layer
from ember.keras.models import Model, Sequential

# The engine's modules are loaded by now; Keras has no public `engine` name.
del engine  # noqa: F821

__all__ = ["initializers", "optimizers", "activations", "backend", "callbacks", "datasets", "losses", "metrics",
           "regularizers", "layers", "models", "ops", "saving", "utils", "Input", "Layer", "Model", "Sequential",
           "KerasTensor"]

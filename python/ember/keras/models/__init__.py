"""keras.models: Model, Sequential, the functional Model, load_model and clone_model."""

from ember.keras.engine.training import Model
from ember.keras.models.functional import Functional
from ember.keras.models.sequential import Sequential
from ember.keras.saving import load_model, save_model


def clone_model(model, input_tensors=None, clone_function=None):
    """A new model of the same architecture with freshly initialized weights (from its config)."""
    from ember.keras.saving import deserialize_layer, serialize_layer
    return deserialize_layer(serialize_layer(model))


__all__ = ["Model", "Sequential", "Functional", "load_model", "save_model", "clone_model"]

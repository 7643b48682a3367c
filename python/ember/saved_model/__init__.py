"""ember.saved_model: save a module's variables and traced functions to a directory, and load
them in a program that lacks its Python code (``tf.saved_model``).

The format is Ember's own (docs/modules_and_checkpoints.md); TensorFlow's
SavedModel protocol buffers are neither read nor written.
"""

from ember.saved_model._format import contains as _contains
from ember.saved_model._load import load
from ember.saved_model._options import LoadOptions, SaveOptions
from ember.saved_model._save import save


def contains_saved_model(export_dir):
    """True if ``export_dir`` holds a saved model (``tf.saved_model.contains_saved_model``)."""
    return _contains(export_dir)


__all__ = ["LoadOptions", "SaveOptions", "contains_saved_model", "load", "save"]

"""ember.experimental: TensorFlow's ``tf.experimental`` names (``dlpack``)."""

from ember.experimental import dlpack

__all__ = ["dlpack"]

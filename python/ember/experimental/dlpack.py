"""ember.experimental.dlpack: TensorFlow's ``tf.experimental.dlpack``."""

from ember._dlpack import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]

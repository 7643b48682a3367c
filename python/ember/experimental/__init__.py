"""ember.experimental: TensorFlow's ``tf.experimental`` names (``dlpack``, ``numpy``)."""

from ember.experimental import dlpack
from ember.experimental import numpy

__all__ = ["dlpack", "numpy"]

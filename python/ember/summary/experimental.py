"""ember.summary.experimental: the default step (``tf.summary.experimental``)."""

from ember.summary._writer import get_step, set_step

__all__ = ["get_step", "set_step"]

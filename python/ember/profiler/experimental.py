"""ember.profiler.experimental: tf.profiler.experimental's names for the profiler."""

from ember.profiler._recording import Profile, Trace, start, stop

__all__ = ["Profile", "Trace", "start", "stop"]

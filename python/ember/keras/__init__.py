"""ember.keras: the Keras names TensorFlow programs reach through ``tf.keras``
(``tf.keras.optimizers``, ``tf.keras.initializers``)."""

from ember import initializers, optimizers

__all__ = ["initializers", "optimizers"]

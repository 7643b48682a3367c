"""ember.optimizers: Keras' optimizers (``tf.keras.optimizers``, ``tf.optimizers``).

``optimizer.apply_gradients(zip(grads, variables))`` updates each variable
with one fused kernel per variable and step (``apply_gradient_descent``,
``apply_momentum``, ``apply_adam`` in op_defs/training.yaml). All state is
in ember Variables (``iterations`` and the slots), and the learning rate
and bias corrections are computed with ops from ``iterations``, so a
training step traced into ``@ember.function`` keeps stepping on every call.
"""

from ember.optimizers import schedules
from ember.optimizers._optimizer import SGD, Adam, AdamW, Optimizer

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "schedules", "get"]


def get(identifier, **kwargs):
    """An optimizer from a name ("sgd", "adam", "adamw") or an instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    names = {"sgd": SGD, "adam": Adam, "adamw": AdamW}
    if isinstance(identifier, str) and identifier.lower() in names:
        return names[identifier.lower()](**kwargs)
    raise ValueError(f"optimizers.get: unknown optimizer {identifier!r}")

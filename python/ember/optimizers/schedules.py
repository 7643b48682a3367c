"""Learning-rate schedules (``tf.keras.optimizers.schedules``): callables of the step.

The step may be a Python int or a scalar tensor (an optimizer passes its
``iterations`` value, so a traced training step follows the schedule on
every call); the result is a float or a float32 tensor accordingly.
"""

import math as _math

from ember._creation import constant as _constant
from ember._generated import ops as _ops
from ember._tensor import Tensor as _Tensor


def _is_tensor(step):
    return isinstance(step, _Tensor)


def _float_step(step):
    if _is_tensor(step):
        return _ops.cast(step, "float32")
    return float(step)


def _floor(x):
    if _is_tensor(x):
        return _ops.floor(x)
    return _math.floor(x)


class LearningRateSchedule:
    """``schedule(step)`` returns the learning rate for that (0-based) step."""

    def __call__(self, step):
        raise NotImplementedError

    def get_config(self):
        return {}


class ExponentialDecay(LearningRateSchedule):
    """initial_learning_rate * decay_rate ^ (step / decay_steps), floored when ``staircase``."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False):
        if decay_steps <= 0:
            raise ValueError(f"ExponentialDecay: decay_steps must be positive, got {decay_steps}")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)

    def __call__(self, step):
        p = _float_step(step) / self.decay_steps
        if self.staircase:
            p = _floor(p)
        if _is_tensor(p):
            return _ops.pow(self.decay_rate, p) * self.initial_learning_rate
        return self.initial_learning_rate * self.decay_rate ** p

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase}


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[i] while step <= boundaries[i] (and the last value after the last boundary)."""

    def __init__(self, boundaries, values):
        if len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseConstantDecay: values needs one more entry than boundaries")
        self.boundaries, self.values = list(boundaries), [float(v) for v in values]

    def __call__(self, step):
        if _is_tensor(step):
            result = _constant(self.values[-1], dtype="float32")
            for boundary, value in reversed(list(zip(self.boundaries, self.values))):
                result = _ops.where(_ops.less_equal(step, boundary), _constant(value, dtype="float32"), result)
            return result
        for boundary, value in zip(self.boundaries, self.values):
            if step <= boundary:
                return value
        return self.values[-1]

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values}


class CosineDecay(LearningRateSchedule):
    """Cosine decay from initial_learning_rate to alpha * initial over decay_steps."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0):
        if decay_steps <= 0:
            raise ValueError(f"CosineDecay: decay_steps must be positive, got {decay_steps}")
        self.initial_learning_rate, self.decay_steps, self.alpha = float(initial_learning_rate), decay_steps, alpha

    def __call__(self, step):
        if _is_tensor(step):
            p = _ops.minimum(_float_step(step), float(self.decay_steps)) / self.decay_steps
            cosine = (_ops.cos(p * _math.pi) + 1.0) * 0.5
        else:
            p = min(float(step), self.decay_steps) / self.decay_steps
            cosine = 0.5 * (1 + _math.cos(_math.pi * p))
        return ((1 - self.alpha) * cosine + self.alpha) * self.initial_learning_rate

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "alpha": self.alpha}

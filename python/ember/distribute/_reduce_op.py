"""ReduceOp: how values from several replicas combine (tf.distribute.ReduceOp)."""

import enum


class ReduceOp(enum.Enum):
    """SUM and MEAN are TensorFlow's; MAX and MIN are Ember's additions for the collectives.

    Integer MEAN divides the sum with truncation toward zero, as integer division does in C.
    """

    SUM = "SUM"
    MEAN = "MEAN"
    MAX = "MAX"
    MIN = "MIN"

    @staticmethod
    def from_value(value):
        """A ReduceOp from itself or its name in any case (TensorFlow accepts "SUM" and "MEAN")."""
        if isinstance(value, ReduceOp):
            return value
        if isinstance(value, str) and value.upper() in ReduceOp.__members__:
            return ReduceOp[value.upper()]
        raise ValueError(f"expected an ember.distribute.ReduceOp (SUM, MEAN, MAX, MIN), got {value!r}")

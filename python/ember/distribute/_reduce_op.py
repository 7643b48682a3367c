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
        found = _BY_NAME.get(value) if isinstance(value, str) else None
        if found is not None:
            return found
        if isinstance(value, str) and value.upper() in ReduceOp.__members__:
            return ReduceOp[value.upper()]
        raise ValueError(f"expected an ember.distribute.ReduceOp (SUM, MEAN, MAX, MIN), got {value!r}")


# The common spellings, looked up without building an upper-cased string on every collective.
_BY_NAME = {spelling: op for op in ReduceOp for spelling in (op.value, op.value.lower())}

"""VariableSynchronization and VariableAggregation: how a distributed variable's copies agree."""

import enum


class VariableSynchronization(enum.Enum):
    """When a variable's per-replica copies are made equal (``tf.VariableSynchronization``).

    ON_WRITE (what AUTO means): every write updates every copy (a MirroredVariable). ON_READ:
    each replica updates its own copy, and a read in the cross-replica context combines them
    with the variable's aggregation (a SyncOnReadVariable). NONE: treated as ON_WRITE.
    Outside a strategy's scope a variable has one copy and the setting changes nothing.
    """

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How the replicas' values of a distributed variable combine (``tf.VariableAggregation``):
    the replicas' writes of an ON_WRITE variable in ``strategy.run``, the copies of an ON_READ
    variable when read in the cross-replica context."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def _member(enum_type, value, what):
    """An enum member from itself, its name in any case, or None (the default)."""
    if value is None or isinstance(value, enum_type):
        return value
    if isinstance(value, str) and value.upper() in enum_type.__members__:
        return enum_type[value.upper()]
    raise ValueError(f"Variable: {what} must be an ember.{enum_type.__name__} "
                     f"({', '.join(enum_type.__members__)}), got {value!r}")


def validate(synchronization, aggregation, trainable, name=None):
    """(synchronization, aggregation, trainable) with TensorFlow's defaults and checks: AUTO and
    NONE, an ON_READ variable is not trainable unless asked (and may not be asked)."""
    synchronization = _member(VariableSynchronization, synchronization, "synchronization")
    aggregation = _member(VariableAggregation, aggregation, "aggregation")
    synchronization = synchronization or VariableSynchronization.AUTO
    aggregation = aggregation or VariableAggregation.NONE
    if synchronization is VariableSynchronization.ON_READ:
        if trainable:
            raise ValueError(f"Variable {name or ''}: synchronization=ON_READ is only for variables that are not "
                             "trainable (each replica's copy differs, so no gradient could be applied to it); "
                             "pass trainable=False")
        trainable = False
    return synchronization, aggregation, True if trainable is None else bool(trainable)

"""PerReplica: one value per replica, what strategy.run returns and distributed datasets yield."""

from ember import nest


class PerReplica:
    """A value that differs between replicas (``tf.distribute.DistributedValues``):
    ``values[i]`` belongs to replica i and lives on its device. ``strategy.run`` hands each
    replica its own element; ``strategy.reduce`` and ``experimental_local_results`` take them apart."""

    __slots__ = ("_values",)

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        return self._values

    def __repr__(self):
        inner = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return f"PerReplica:{{\n{inner}\n}}"

    # Note [Composite arguments] (ember/function.py): as an argument of an
    # ember.function, its components are the graph's parameters, so the
    # next step's batch reuses the trace; returned, it travels as them.
    def _arg_key(self):
        return ("PerReplica", len(self._values))

    def _arg_parts(self):
        return list(self._values)

    def _from_arg_parts(self, parts):
        return PerReplica(parts)

    def _components(self):
        return list(self._values)

    def _from_components(self, components):
        return PerReplica(components)


def local_results(value):
    """The per-replica components of a distributed value; a plain value is its own only one."""
    components = getattr(value, "_ember_replica_values_", None)
    if components is not None:
        return tuple(components())
    if isinstance(value, PerReplica):
        return value.values
    return (value,)


def select_replica(replica_id, structure):
    """``structure`` with each PerReplica leaf replaced by replica ``replica_id``'s element."""
    return nest.map_structure(lambda v: v.values[replica_id] if isinstance(v, PerReplica) else v, structure)


def regroup(per_replica_outputs):
    """From one output structure per replica to one structure of PerReplica leaves. A leaf that is
    the same object in every replica (a MirroredVariable, a Python constant) stays as it is; with
    one replica the output is returned unchanged, as TensorFlow does."""
    if len(per_replica_outputs) == 1:
        return per_replica_outputs[0]

    def group(*leaves):
        if all(leaf is leaves[0] for leaf in leaves[1:]):
            return leaves[0]
        return PerReplica(leaves)

    return nest.map_structure(group, *per_replica_outputs)

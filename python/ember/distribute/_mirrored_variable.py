"""Distributed variables: one component variable per replica device, mirrored or synced on read."""

import threading
import weakref

from ember import _C, _context, _tensor_repr
from ember._context import current_trace
from ember._creation import convert_to_tensor
from ember._generated import ops
from ember._variable_policy import VariableAggregation, VariableSynchronization
from ember._variables import Variable
from ember.device import device
from ember.distribute import _distribution_context
from ember.distribute._reduce_op import ReduceOp
from ember.distribute._values import PerReplica


class DistributedVariable(Variable):
    """What MirroredVariable and SyncOnReadVariable share: the components, one per replica device
    of this process, and which of them a read or write inside a replica means."""

    def __init__(self, strategy, components, name, trainable, aggregation=VariableAggregation.NONE):  # noqa
        # super().__init__ would make one more variable; the components hold the values.
        self._strategy = strategy
        self._components = tuple(components)
        self._name = name
        self._trainable = trainable
        self._aggregation = aggregation
        self._lock = threading.Lock()
        container = weakref.ref(self)
        for component in self._components:
            component._ember_container = container  # for strategy.extended.value_container

    @property
    def values(self):
        """The component variables, one per replica device."""
        return self._components

    def _ember_replica_values_(self):
        return self._components

    def _in_own_replica(self):
        """This variable's replica id inside its strategy's run, else None."""
        replica = _distribution_context.current_replica()
        if replica is not None and replica[0] is self._strategy:
            return replica[1]
        return None

    def _component(self):
        replica_id = self._in_own_replica()
        if replica_id is not None:
            return self._components[replica_id]
        here = _C._current_device_scope()
        for component in self._components:
            if component.device == here:
                return component
        return self._components[0]

    def _read_component(self, component):
        trace = current_trace()
        value = component._eager_value if trace is None else trace.read_variable(component)
        if _context.active_tape_count:  # tapes watch the distributed variable, not its component
            _context.variable_read(self, value)
        return value

    @property
    def _value(self):
        return self._read_component(self._component())

    def _set_each(self, value):
        """Writes ``value`` to every component, each on its device."""
        for component in self._components:
            with device(component.device):
                component._set_value(ops.identity(value))

    def _set_own(self, value):
        component = self._component()
        with device(component.device):
            component._set_value(ops.identity(value))

    def _set_value(self, value):
        """Inside a replica, that replica's component; outside, every component."""
        if _distribution_context.current_replica() is not None:
            self._set_own(value)
        else:
            self._set_each(value)

    device = property(lambda self: self._component().device)
    # The components' metadata: a SyncOnReadVariable's own read would be a collective.
    dtype = property(lambda self: self._components[0].dtype)
    shape = property(lambda self: self._components[0].shape)
    ndim = property(lambda self: self._components[0].ndim)

    def _kept_on_error(self, new):
        # Note [Failed variable updates] (_variables.py), against the component written first.
        return new if current_trace() is not None else _C._keep_on_error(new, self._component()._eager_value)

    def _repr_parts(self):
        return ", ".join(f"{c.device}: {_tensor_repr.value_field(c._eager_value)}" for c in self._components)


class MirroredVariable(DistributedVariable):
    """A variable made in a strategy's scope: a component Variable on each replica device,
    all with the same initial value (``tf.distribute.MirroredVariable``).

    Note [Mirrored reads and writes]: ops read a variable through ``_value``
    (Note [Variables in traces] in _variables.py); here that is the current
    replica's component inside ``strategy.run``, and in the cross-replica
    context the component on the current device scope, else the first one.
    A write (``assign``, ``assign_add``, a slice assignment) goes through
    ``_set_value``: in the cross-replica context it computes the new value
    once and copies it to every component; in a replica context it writes
    that replica's component only. Replicas keep their components equal by
    writing equal values, which the optimizer does after summing the
    gradients of all replicas (TensorFlow instead switches to the
    cross-replica context for such writes, and refuses a replica-context
    write to a variable whose aggregation is NONE).

    Note [Aggregated writes]: with an aggregation other than NONE,
    ``assign``, ``assign_add`` and ``assign_sub`` called inside
    ``strategy.run`` are collectives, as in TensorFlow: the replicas' values
    are combined in a merge_call (SUM, MEAN, or global replica 0's value,
    sent to every worker, for ONLY_FIRST_REPLICA) and the result is written
    to every component.
    Every replica must make the same such calls in the same order.
    """

    _synchronization = VariableSynchronization.ON_WRITE

    def assign(self, value, use_locking=None, name=None, read_value=True):
        if self._aggregates_here():
            return self._aggregated_write("assign", value, read_value)
        return super().assign(value, use_locking, name, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        if self._aggregates_here():
            return self._aggregated_write("assign_add", delta, read_value)
        return super().assign_add(delta, use_locking, name, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        if self._aggregates_here():
            return self._aggregated_write("assign_sub", delta, read_value)
        return super().assign_sub(delta, use_locking, name, read_value)

    def _aggregates_here(self):
        return (self._aggregation is not VariableAggregation.NONE and self._in_own_replica() is not None
                and self._strategy.num_replicas_in_sync > 1)

    def _aggregated_write(self, method, value, read_value):
        """Note [Aggregated writes]."""
        if self._aggregation is VariableAggregation.MEAN and not self.dtype.is_floating:
            raise ValueError(f"{method} on {self._name!r}: a {self.dtype.name} variable cannot be updated with "
                             "aggregation MEAN inside strategy.run (as in TensorFlow)")
        aggregation = self._aggregation

        def merge_fn(strategy, value):
            if aggregation is VariableAggregation.ONLY_FIRST_REPLICA:
                combined = strategy._first_replica_value(value)
            else:
                combined = strategy.extended.reduce_to(aggregation_reduce_op(aggregation), value, self)
            strategy.extended.update(self, lambda component, v: getattr(component, method)(v), args=(combined,))

        _distribution_context.get_replica_context().merge_call(merge_fn, args=(value,))
        return self if read_value else None

    def _ember_make_slot_(self, initial_value, name):
        """An optimizer slot for this variable: mirrored on the same devices."""
        return self._strategy._mirrored_variable(initial_value, name=name, trainable=False)

    def __repr__(self):
        return (f"<ember.distribute.MirroredVariable '{self._name}' shape={self.shape} dtype={self.dtype.name} "
                f"{{{self._repr_parts()}}}>")


class SyncOnReadVariable(DistributedVariable):
    """A variable made in a strategy's scope with ``synchronization=ON_READ``
    (``tf.distribute.SyncOnReadVariable``), what Keras metrics keep their totals in.

    Note [Synced on read]: inside ``strategy.run`` each replica reads and
    writes its own component only, with no communication. Read in the
    cross-replica context, the value is the components combined with the
    variable's aggregation: their SUM or MEAN over every replica of every
    worker (a collective, so under MultiWorkerMirroredStrategy every worker
    must read it), or this worker's first component for ONLY_FIRST_REPLICA. A cross-replica
    ``assign(v)`` writes ``v`` to every component, except with SUM, where
    each component gets ``v / num_replicas_in_sync`` so that the sum reads
    ``v`` back (a checkpoint's restore). ``assign_add`` and ``assign_sub``
    there move every component by ``delta``, or by ``delta /
    num_replicas_in_sync`` with SUM, so that the sum moves by ``delta``:
    cross-replica code computes the same ``delta`` on every worker (Keras
    metrics updated by ``fit`` rely on this; TensorFlow refuses these calls
    with SUM, and Ember does too for integers). As in TensorFlow, a read in
    the cross-replica context with aggregation NONE is an error.
    """

    _synchronization = VariableSynchronization.ON_READ

    @property
    def _value(self):
        if _distribution_context.current_replica() is not None or not self._distributed():
            return super()._value
        if self._aggregation is VariableAggregation.ONLY_FIRST_REPLICA:
            return self._read_component(self._components[0])
        if self._aggregation is VariableAggregation.NONE:
            raise ValueError(f"SyncOnReadVariable {self._name!r} has aggregation NONE, so its replicas' values "
                             "cannot be combined in the cross-replica context; create it with aggregation SUM, "
                             "MEAN or ONLY_FIRST_REPLICA")
        parts = [self._read_component(c) for c in self._components]
        return self._strategy._reduce_one(aggregation_reduce_op(self._aggregation),
                                          PerReplica(parts) if len(parts) > 1 else parts[0], None)

    def _distributed(self):
        return self._strategy.num_replicas_in_sync > 1

    def assign(self, value, use_locking=None, name=None, read_value=True):
        if (_distribution_context.current_replica() is None and self._distributed()
                and self._aggregation is VariableAggregation.SUM):
            share = ops.cast(convert_to_tensor(value, dtype=self.dtype), "float64") / float(
                self._strategy.num_replicas_in_sync)
            value = ops.cast(share, self.dtype)  # an integer share truncates, as in TensorFlow
        return super().assign(value, use_locking, name, read_value)

    def _update(self, op, delta, what, read_value):
        if _distribution_context.current_replica() is None and self._distributed():
            if self._aggregation is VariableAggregation.SUM:
                if not self.dtype.is_floating:
                    raise ValueError(f"{what} on SyncOnReadVariable {self._name!r}: not supported in the "
                                     f"cross-replica context for a {self.dtype.name} variable with aggregation SUM; "
                                     "use assign")
                # Each of the num_replicas_in_sync components takes its share, so the sum moves by delta.
                delta = ops.divide(convert_to_tensor(delta, dtype=self.dtype),
                                   ops.cast(self._strategy.num_replicas_in_sync, self.dtype))
            for component in self._components:  # each component moves by delta, from its own value
                with device(component.device):
                    component._update(op, delta, what, False)
            return self if read_value else None
        return super()._update(op, delta, what, read_value)

    def __repr__(self):
        return (f"<ember.distribute.SyncOnReadVariable '{self._name}' aggregation={self._aggregation.name} "
                f"shape={self.shape} dtype={self.dtype.name} {{{self._repr_parts()}}}>")


def aggregation_reduce_op(aggregation):
    """The ReduceOp of a SUM or MEAN VariableAggregation."""
    if aggregation is VariableAggregation.SUM:
        return ReduceOp.SUM
    if aggregation is VariableAggregation.MEAN:
        return ReduceOp.MEAN
    raise ValueError(f"aggregation {aggregation.name} has no reduce op (only SUM and MEAN do)")

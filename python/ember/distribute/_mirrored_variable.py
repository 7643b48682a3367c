"""MirroredVariable: one variable per replica device, kept equal."""

import threading

from ember import _C, _context, _tensor_repr
from ember._context import current_trace
from ember._generated import ops
from ember._variables import Variable
from ember.device import device
from ember.distribute import _distribution_context


class MirroredVariable(Variable):
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
    cross-replica context for such writes).
    """

    def __init__(self, strategy, components, name, trainable):  # noqa: super().__init__ makes one variable
        self._strategy = strategy
        self._components = tuple(components)
        self._name = name
        self._trainable = trainable
        self._lock = threading.Lock()

    @property
    def values(self):
        """The component variables, one per replica device."""
        return self._components

    def _ember_replica_values_(self):
        return self._components

    def _component(self):
        replica = _distribution_context.current_replica()
        if replica is not None and replica[0] is self._strategy:
            return self._components[replica[1]]
        here = _C._current_device_scope()
        for component in self._components:
            if component.device == here:
                return component
        return self._components[0]

    @property
    def _value(self):
        component = self._component()
        trace = current_trace()
        value = component._eager_value if trace is None else trace.read_variable(component)
        if _context.active_tape_count:  # tapes watch the mirrored variable, not its component
            _context.variable_read(self, value)
        return value

    def _set_value(self, value):
        if _distribution_context.current_replica() is not None:
            component = self._component()
            with device(component.device):
                component._set_value(ops.identity(value))
            return
        for component in self._components:
            with device(component.device):
                component._set_value(ops.identity(value))

    device = property(lambda self: self._component().device)

    def _ember_make_slot_(self, initial_value, name):
        """An optimizer slot for this variable: mirrored on the same devices."""
        return self._strategy._mirrored_variable(initial_value, name=name, trainable=False)

    def __repr__(self):
        parts = ", ".join(f"{c.device}: {_tensor_repr.value_field(c._eager_value)}" for c in self._components)
        return (f"<ember.distribute.MirroredVariable '{self._name}' shape={self.shape} dtype={self.dtype.name} "
                f"{{{parts}}}>")

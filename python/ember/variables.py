"""ember.Variable: a mutable tensor that lives on one device."""

import threading


from ember import _C, _tensor_repr
from ember.autodiff import tape as _autodiff_tape
from ember.creation import convert_to_tensor
from ember.function import current_trace as _current_trace


class Variable:
    """A named, mutable tensor, usable wherever a tensor is (``tf.Variable``).

    The value lives on the device that was current when the variable was
    created (``with ember.device(...)``, else the initial value's device),
    and every op that reads or writes it runs there. ``assign``,
    ``assign_add`` and ``assign_sub`` replace the value; ops issued before
    an assignment see the old value and ops issued after it the new one,
    in async mode too. Shape and dtype are fixed at creation.
    """

    _next_id = 0

    def __init__(self, initial_value, trainable=True, name=None, dtype=None, shape=None):
        if _current_trace() is not None:
            raise RuntimeError("Variable: cannot create a variable while ember.function traces; create it "
                               "outside the function (e.g. on first use, before calling it)")
        if callable(initial_value):
            initial_value = initial_value()
        value = convert_to_tensor(_read(initial_value), dtype=dtype)
        if shape is not None and tuple(shape) != value.shape:
            raise ValueError(f"Variable: initial value has shape {value.shape}, expected {tuple(shape)}")
        Variable._next_id += 1
        self._name = name or f"Variable{Variable._next_id}"
        self._trainable = bool(trainable)
        self._lock = threading.Lock()
        # A view, so the caller's tensor and the variable never share
        # identity; under a device scope, a copy onto that device.
        self._eager_value = _ops().identity(value)

    # Note [Variables in traces]: ops read a variable through `_value` (the
    # C++ binding unwraps it so). Eagerly that is the tensor it holds. While
    # ember.function traces on this thread, it is a symbolic graph argument
    # that each call fills with the value the variable holds then, and
    # assignments made by the traced code update only the trace's view; the
    # call writes the final value back (ConcreteFunction._call_flat).
    # Note [Variables on tapes]: a read inside an active GradientTape makes
    # the value read watched (python/ember/autodiff/tape.py); the count
    # keeps that to one global load when no tape is active anywhere.
    @property
    def _value(self):
        trace = _current_trace()
        value = self._eager_value if trace is None else trace.read_variable(self)
        if _autodiff_tape.active_tape_count:
            _autodiff_tape.variable_read(self, value)
        return value

    def _set_value(self, value):
        trace = _current_trace()
        if trace is None:
            self._eager_value = value
        else:
            trace.write_variable(self, value)


    # --- Metadata ----------------------------------------------------------
    name = property(lambda self: self._name)
    trainable = property(lambda self: self._trainable)
    dtype = property(lambda self: self._value.dtype)
    shape = property(lambda self: self._value.shape)
    ndim = property(lambda self: self._value.ndim)
    device = property(lambda self: self._value.device)

    # --- Reading -----------------------------------------------------------
    def read_value(self):
        """The current value as a Tensor (later assignments do not change it)."""
        return self._value

    def value(self):
        return self._value

    def numpy(self):
        return self._value.numpy()

    def __array__(self, dtype=None, copy=None):
        return self._value.__array__(dtype, copy)

    def __dlpack__(self, **kwargs):
        return self._value.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._value.__dlpack_device__()

    def __complex__(self):
        return complex(self._value)

    def __float__(self):
        return float(self._value)

    def __int__(self):
        return int(self._value)

    def __bool__(self):
        return bool(self._value)

    def __index__(self):
        return self._value.__index__()

    def __len__(self):
        return len(self._value)

    def __repr__(self):
        return (f"<ember.Variable '{self._name}' shape={self.shape} dtype={self.dtype.name} "
                f"device={self.device} {_tensor_repr.value_field(self._value)}>")

    # --- Writing -----------------------------------------------------------
    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Replaces the value; ``value`` must have the variable's shape and dtype."""
        del use_locking, name
        new = convert_to_tensor(_read(value), dtype=self.dtype)
        if new.shape != self.shape:
            raise ValueError(f"assign: value of shape {new.shape} does not match the variable's "
                             f"shape {self.shape}")
        with self._lock:
            self._set_value(self._kept_on_error(_ops().identity(new)))
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds ``delta`` (broadcast to the variable's shape) to the value."""
        return self._update(_ops().add, delta, "assign_add", read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts ``delta`` (broadcast to the variable's shape) from the value."""
        return self._update(_ops().subtract, delta, "assign_sub", read_value)

    def _update(self, op, delta, what, read_value):
        with self._lock:  # read-modify-write: one update at a time
            new = op(self, delta)
            if new.shape != self.shape or new.dtype != self.dtype:
                raise ValueError(f"{what}: result of shape {new.shape} and dtype {new.dtype.name} does "
                                 f"not match the variable ({self.shape}, {self.dtype.name})")
            self._set_value(self._kept_on_error(new))
        return self if read_value else None

    def _kept_on_error(self, new):
        # Note [Failed variable updates]: if `new`'s kernel fails, the
        # variable keeps its value and ember.sync() raises the failure.
        # (Traced assignments are symbolic; the call's write-back applies it.)
        return new if _current_trace() is not None else _C._keep_on_error(new, self._value)

    # Element-wise __eq__ (installed with the other operators) makes
    # variables unhashable, like tensors.
    __hash__ = None
    __array_priority__ = 100


def _read(value):
    return value.read_value() if isinstance(value, Variable) else value


def _ops():
    from ember._generated import ops

    return ops


_C._set_variable_type(Variable)

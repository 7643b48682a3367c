"""ember.Variable: a mutable tensor that lives on one device."""

import contextlib
import operator
import threading

import numpy as np


from ember import _C, _context, _tensor_repr, _variable_policy
from ember._context import current_trace as _current_trace
from ember._creation import convert_to_tensor
from ember._generated import ops
from ember._name_scope import get_current_name_scope

# Note [Variable creators]: ``ember.variable_creator_scope(creator)`` makes
# ``ember.Variable(...)`` call ``creator(next_creator, **kwargs)`` instead of
# building a plain variable, as tf.variable_creator_scope does. A
# distribution strategy's scope uses it to turn every variable made inside
# into a MirroredVariable (python/ember/distribute/). The stack is per
# thread; ``next_creator`` is the next creator down, the plain constructor last.
_creators = threading.local()
_INIT_PARAMETERS = ("initial_value", "trainable", "validate_shape", "caching_device", "name", "variable_def",
                    "dtype", "import_scope", "constraint", "synchronization", "aggregation", "shape")


def _creator_stack():
    stack = getattr(_creators, "stack", None)
    if stack is None:
        stack = _creators.stack = []
    return stack


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Inside the block, ``ember.Variable(**kwargs)`` calls ``variable_creator(next_creator, **kwargs)``
    (``tf.variable_creator_scope``); the creator may call ``next_creator(**kwargs)`` to build the
    variable the usual way, and return it or something that stands for it."""
    stack = _creator_stack()
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack.pop()


class _VariableType(type):
    """Routes ``Variable(...)`` through the thread's creators (Note [Variable creators])."""

    def __call__(cls, *args, **kwargs):
        stack = getattr(_creators, "stack", None)
        if cls is not Variable or not stack:
            return super().__call__(*args, **kwargs)
        if len(args) > len(_INIT_PARAMETERS):
            raise TypeError(f"Variable() takes at most {len(_INIT_PARAMETERS)} arguments ({len(args)} given)")
        for key, value in zip(_INIT_PARAMETERS, args):
            if key in kwargs:
                raise TypeError(f"Variable() got multiple values for argument '{key}'")
            kwargs[key] = value
        return _creator_chain(list(stack), plain_variable)(**kwargs)


def plain_variable(**kwargs):
    """An ember.Variable made by its constructor alone, past any creators in scope."""
    return type.__call__(Variable, **kwargs)


def _creator_chain(creators, plain):
    """A callable that runs the innermost creator with the rest of the chain as its next_creator."""
    if not creators:
        return plain
    inner = creators[-1]
    rest = _creator_chain(creators[:-1], plain)
    return lambda **kwargs: inner(rest, **kwargs)


class Variable(metaclass=_VariableType):
    """A named, mutable tensor, usable wherever a tensor is (``tf.Variable``).

    The value lives on the device that was current when the variable was
    created (``with ember.device(...)``, else the initial value's device),
    and every op that reads or writes it runs there. ``assign``,
    ``assign_add`` and ``assign_sub`` replace the value; ops issued before
    an assignment see the old value and ops issued after it the new one,
    in async mode too. Shape and dtype are fixed at creation.
    """

    _next_id = 0

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None,
                 variable_def=None, dtype=None, import_scope=None, constraint=None, synchronization=None,
                 aggregation=None, shape=None):
        # tf.Variable's parameters, in its order. caching_device only matters to TensorFlow's
        # graphs; synchronization and aggregation to a strategy's variables (one copy here).
        del caching_device
        synchronization, aggregation, trainable = _variable_policy.validate(synchronization, aggregation,
                                                                            trainable, name)
        if initial_value is None:
            raise ValueError("Variable: initial_value must be given")
        for what, value in (("variable_def", variable_def), ("import_scope", import_scope),
                            ("constraint", constraint)):
            if value is not None:
                raise NotImplementedError(f"Variable: {what} is not supported")
        if not validate_shape:
            raise NotImplementedError("Variable: validate_shape=False (a variable whose shape can change) is "
                                      "not supported")
        if _current_trace() is not None:  # Note [Variables created in functions] in function.py
            with _context.variable_creation_in_trace(initial_value):
                self.__init__(initial_value, trainable=trainable, name=name, dtype=dtype, shape=shape,
                              synchronization=synchronization, aggregation=aggregation)
            return
        if callable(initial_value):
            initial_value = initial_value()
        value = convert_to_tensor(_read(initial_value), dtype=dtype)
        if shape is not None and tuple(shape) != value.shape:
            raise ValueError(f"Variable: initial value has shape {value.shape}, expected {tuple(shape)}")
        Variable._next_id += 1
        # As in TensorFlow, the enclosing name scope prefixes the name (a Module's variables: "dense/w").
        base = name or f"Variable{Variable._next_id}"
        scope = get_current_name_scope()
        self._name = f"{scope}/{base}" if scope else base
        self._trainable = bool(trainable)
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._lock = threading.Lock()
        # A view, so the caller's tensor and the variable never share
        # identity; under a device scope, a copy onto that device.
        self._eager_value = ops.identity(value)

    # Note [Variables in traces]: ops read a variable through `_value` (the
    # C++ binding unwraps it so). Eagerly that is the tensor it holds. While
    # ember.function traces on this thread, it is a symbolic graph argument
    # that each call fills with the value the variable holds then, and
    # assignments made by the traced code update only the trace's view; the
    # call writes the final value back (ConcreteFunction._call_flat).
    # Note [Variables on tapes]: a read inside an active GradientTape makes
    # the value read watched (python/ember/autodiff/_tape.py); the count
    # keeps that to one global load when no tape is active anywhere.
    @property
    def _value(self):
        trace = _current_trace()
        value = self._eager_value if trace is None else trace.read_variable(self)
        if _context.active_tape_count:  # Note [Layer hooks] in _context.py
            _context.variable_read(self, value)
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
    synchronization = property(lambda self: self._synchronization)
    aggregation = property(lambda self: self._aggregation)
    _synchronization = _variable_policy.VariableSynchronization.AUTO  # for subclasses that make no value
    _aggregation = _variable_policy.VariableAggregation.NONE
    dtype = property(lambda self: self._value.dtype)
    shape = property(lambda self: self._value.shape)
    ndim = property(lambda self: self._value.ndim)
    device = property(lambda self: self._value.device)

    def get_shape(self):
        """The shape, an ember.TensorShape (the same as ``shape``)."""
        return self.shape

    # --- Reading -----------------------------------------------------------
    def read_value(self):
        """The current value as a Tensor (later assignments do not change it)."""
        return self._value

    def value(self):
        return self._value

    def _ember_value_(self):
        """The value protocol (Note [Value protocol] in _creation.py): the current value."""
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

    def __getitem__(self, key):
        """Reads a slice like a tensor (``v[0]``, ``v[1:3]``, ``v[:, 0]``); the result also has
        ``assign``, ``assign_add`` and ``assign_sub``, which write that slice of the variable
        (TensorFlow's strided-slice assignment)."""
        return _VariableSlice(self, key)

    def __iter__(self):
        return iter(self._value)

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
        with self._lock, _unrecorded():
            self._set_value(self._kept_on_error(ops.identity(new)))
        return self if read_value else None

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds ``delta`` (broadcast to the variable's shape) to the value."""
        return self._update(ops.add, delta, "assign_add", read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts ``delta`` (broadcast to the variable's shape) from the value."""
        return self._update(ops.subtract, delta, "assign_sub", read_value)

    def _update(self, op, delta, what, read_value):
        with self._lock, _unrecorded():  # read-modify-write: one update at a time
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


class _VariableSlice(Variable):
    """``variable[key]``: the slice's value when it was taken, used like a tensor (ops unwrap
    it through ``_value``, as they do a variable), plus assignment into that slice of the
    variable. It is not itself a variable: it owns no value and never changes.

    Only basic keys (ints, slices, ``...``, None) can be assigned, as in TensorFlow.
    """

    def __init__(self, variable, key):  # noqa: super().__init__ would create a variable
        self._variable = variable
        self._key = key
        self._name = variable.name
        self._trainable = False
        self._slice_value = variable.read_value()[key]

    @property
    def _value(self):
        return self._slice_value

    def __getitem__(self, key):  # a slice of the slice is a plain tensor, as in TensorFlow
        return self._slice_value[key]

    def __repr__(self):
        return repr(self._slice_value)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Writes value (broadcast to the slice's shape) into the slice; returns the variable."""
        del use_locking, name
        return self._write(lambda old: value, "assign", read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        del use_locking, name
        return self._write(lambda old: ops.add(old, delta), "assign_add", read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        del use_locking, name
        return self._write(lambda old: ops.subtract(old, delta), "assign_sub", read_value)

    def _write(self, new_slice, what, read_value):
        var = self._variable
        coords = _slice_coordinates(var.shape, self._key, what)
        with var._lock, _unrecorded():  # read-modify-write of the whole value
            current = var._value
            old = current[self._key]
            new = convert_to_tensor(_read(new_slice(old)), dtype=var.dtype)
            try:
                new = ops.broadcast_to(new, list(old.shape))
            except (ValueError, TypeError):
                raise ValueError(f"{what}: value of shape {new.shape} cannot be assigned to a slice of shape "
                                 f"{old.shape}") from None
            updates = ops.reshape(new, list(coords.shape[:-1]))
            var._set_value(var._kept_on_error(ops.tensor_scatter_nd_update(current, coords, updates)))
        return var if read_value else None


def _slice_coordinates(shape, key, what):
    """The int64 coordinates [n_0, ..., n_{r-1}, r] of the elements `key` selects: one list of
    indices per variable dim (an int keeps its dim as a list of one). Row-major order of the
    grid is the order of the slice's elements, so a slice reshaped to the grid's leading shape
    lines up with it."""
    if any(d is None for d in shape):
        raise ValueError(f"{what}: sliced assignment needs a known shape, got {shape}")
    key = key if isinstance(key, tuple) else (key,)
    for k in key:
        if not (k is None or k is Ellipsis or isinstance(k, slice) or _is_int(k)):
            raise TypeError(f"{what}: sliced assignment supports ints, slices, '...' and None (a strided slice), "
                            f"got {k!r}")
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    real = [k for k in key if k is not None and k is not Ellipsis]
    if len(real) > len(shape):
        raise IndexError(f"too many indices for a variable of rank {len(shape)}")
    if Ellipsis not in key:
        key = key + (Ellipsis,)
    lists, dim = [], 0
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            for _ in range(len(shape) - len(real)):
                lists.append(np.arange(shape[dim]))
                dim += 1
            continue
        size = shape[dim]
        if isinstance(k, slice):
            lists.append(np.arange(size)[k])
        else:
            i = int(k)
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for axis {dim} with size {size}")
            lists.append(np.array([i % size]))
        dim += 1
    grid = np.meshgrid(*lists, indexing="ij") if lists else []
    return np.stack(grid, axis=-1).astype(np.int64) if lists else np.zeros((0,), np.int64)


def _is_int(k):
    if isinstance(k, (bool, np.bool_)):
        return False
    try:
        operator.index(k)
    except TypeError:
        return False
    return True


def _unrecorded():
    """Assignments are not differentiable, as in TensorFlow: tapes do not record the ops
    that compute a variable's new value, so no gradient flows through it."""
    if _context.active_tape_count:
        return _context.recording_paused()
    return contextlib.nullcontext()


def _read(value):
    return value.read_value() if isinstance(value, Variable) else value


_C._set_variable_type(Variable)

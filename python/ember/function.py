"""ember.function: trace a Python function into a graph and call it as one op.

See docs/functions.md for the semantics: what a trace sees, the cache key,
retracing, captured tensors and variables.
"""

import contextlib
import functools
import inspect
import os
import threading

from ember._checks import check_int, check_str, safe_repr
import numpy as np

from ember import _C, _context, config
from ember._context import HostCallbackInTrace
from ember.autodiff import _tape as _autodiff_tape
from ember._tensor_shape import TensorShape
from ember.dtypes import as_dtype, float32, string
from ember._tensor import Tensor
from ember._variables import Variable, _VariableSlice

_C._set_package_dir(os.path.dirname(os.path.abspath(__file__)) + os.sep)


def _logger():
    """The "ember.function" logger; logging is imported at the first
    retrace warning, not with ember (0.4 MiB and 5 ms of every import)."""
    import logging
    return logging.getLogger("ember.function")


# Retraces beyond this many traces of one function log a warning naming the
# argument that changed (tracing costs far more than a call).
RETRACE_WARNING_THRESHOLD = 5

_state = _context.trace_state  # Note [Layer hooks] in _context.py


def _autograph_not_loaded(func, warn=True):
    raise RuntimeError("ember.function: AutoGraph (ember/_autograph) is not loaded; import ember")


# Note [AutoGraph] (ember/_autograph): AutoGraph sits above this module, since
# the code it writes calls ember.cond and ember.while_loop, which trace with
# this module's SubTrace. It installs its `convert` here when it is imported.
_autograph_convert = _autograph_not_loaded


def set_autograph_converter(convert):
    global _autograph_convert
    _autograph_convert = convert


# The settings live in ember.config, below this module.
run_functions_eagerly = config.run_functions_eagerly
functions_run_eagerly = config.functions_run_eagerly
set_trace_cache_capacity = config.set_trace_cache_capacity
trace_cache_capacity = config.get_trace_cache_capacity


class VariableNeedsEagerRun(BaseException):
    """Raised by Variable() on a function's first trace when its initial value
    is symbolic (Note [Variables created in functions])."""


class HostCallbackError(ValueError):
    """get_concrete_function of a function that runs eagerly (Note [py_function in functions])."""


# Marks a trace-cache entry whose function runs eagerly at every call.
_EAGER = object()
# Marks a lookup made on a Function itself, not through an instance (_BoundMethod).
_UNBOUND = object()


# Note [Variables created in functions]: as in TensorFlow, a function may
# create variables on its first call only (the usual `if self.v is None:
# self.v = ember.Variable(...)`). That first trace allows it: Variable()
# then makes an eager variable under init_scope, which the trace reads like
# any other. A trace that created variables is thrown away and the function
# traced again with creation refused, so code that would make a new
# variable at every call raises ValueError at once, as TensorFlow's second
# trace does. An initial value computed in the trace (`Variable(zeros([3]))`)
# has no value yet: that first trace stops, the call runs eagerly (creating
# the variables with real values), and the function is then traced with
# creation refused.
_VARIABLE_CREATION_ERROR = ("ember.function only supports singleton ember.Variables created on the first call. "
                            "Make sure the ember.Variable is only created once or created outside ember.function")


def root_trace():
    """The outermost trace in progress on this thread (a cond or loop body's trace is nested in it), or None."""
    trace = current_trace()
    while isinstance(trace, _NestedTrace):
        trace = trace.outer
    return trace


def allow_variable_creation(initial_value):
    """Checks that the current trace may create a variable (Note [Variables created in functions])."""
    trace = root_trace()
    if not getattr(trace, "allow_variable_creation", False):
        raise ValueError(_VARIABLE_CREATION_ERROR)
    if isinstance(initial_value, Tensor) and _C._is_symbolic(initial_value):
        raise VariableNeedsEagerRun()
    trace.created_variables += 1


current_trace = _context.current_trace


@contextlib.contextmanager
def init_scope():
    """Runs its block eagerly even while a function traces (``tf.init_scope``).

    For state created on first use, such as optimizer slots: the values
    made inside are ordinary eager tensors and variables, which the trace
    then reads like any other variable.
    """
    trace = current_trace()
    if trace is None:
        yield
        return
    _state.trace = None
    _C._suspend_tracing()
    try:
        yield
    finally:
        _C._resume_tracing()
        _state.trace = trace


@contextlib.contextmanager
def joined_trace(trace):
    """Records this thread's ops into ``trace``, another thread's trace in progress.

    For threads that take turns with the tracing thread and never run at
    the same time as it (Note [Replicas join the caller's trace] in
    ember/distribute/_lockstep.py). ``trace`` None: nothing changes.
    """
    if trace is None:
        yield
        return
    previous = current_trace()
    _state.trace = trace
    trace.tracer.join()
    try:
        yield
    finally:
        trace.tracer.leave()
        _state.trace = previous


@contextlib.contextmanager
def _variable_creation_in_trace(initial_value):
    allow_variable_creation(initial_value)
    with init_scope():
        yield


_context.variable_creation_in_trace = _variable_creation_in_trace


class TensorSpec:
    """Describes a tensor argument: a shape whose dims may be None, and a dtype."""

    def __init__(self, shape, dtype=float32, name=None):
        if shape is None or (isinstance(shape, TensorShape) and shape.rank is None):
            self.shape = TensorShape(None)  # unknown rank: any tensor of the dtype fits
        elif isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
            raise TypeError(f"TensorSpec: shape must be None or a sequence of ints and Nones, got {safe_repr(shape)}")
        else:
            self.shape = TensorShape(tuple(None if d is None else check_int(d, "TensorSpec", "a shape dim", minimum=0)
                                           for d in shape))
        try:
            self.dtype = as_dtype(dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(f"TensorSpec: {e}") from None
        if name is not None and not isinstance(name, str):
            raise TypeError(f"TensorSpec: name must be a str or None, got {safe_repr(name)}")
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of a tensor, variable or NumPy array."""
        if not (_is_tensor_like(tensor) or _is_variable(tensor) or getattr(tensor, "dtype", None) is string):
            raise TypeError(f"TensorSpec.from_tensor: expected a tensor, got {type(tensor).__name__}")
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, value):
        shape, dtype = _shape_and_dtype(value)
        return dtype == self.dtype and shape_fits(self.shape, shape)

    def _key(self):
        return ("T", self.dtype.name, None if self.shape.rank is None else tuple(self.shape))

    def _with_rank_of(self, value):
        """This spec, or for an unknown rank the spec with value's rank and every dim unknown:
        graphs have a known rank, so a function traces once per rank such a spec meets."""
        if self.shape.rank is not None:
            return self
        shape = value.shape if isinstance(value, TensorSpec) else _shape_and_dtype(value)[0]
        if getattr(shape, "rank", 0) is None:
            raise ValueError("an input_signature spec of unknown rank needs a tensor or a spec of known rank "
                             "to trace for")
        return TensorSpec([None] * len(shape), self.dtype, self.name)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype=ember.{self.dtype.name})"


def shape_fits(pattern, shape):
    """True if `shape` has the rank of `pattern` and its dims wherever both
    are known (None matches any size), like C++ Shape::IsCompatibleWith. A pattern of
    unknown rank fits every shape."""
    if getattr(pattern, "rank", 0) is None:
        return True
    return len(pattern) == len(shape) and all(p is None or d is None or p == d for p, d in zip(pattern, shape))


def _shape_and_dtype(value):
    if isinstance(value, Tensor):
        return value.shape, value.dtype
    array = np.asarray(value)
    return array.shape, as_dtype(array.dtype)


# --- Argument structures ------------------------------------------------------
#
# A call's arguments are flattened into a key (Note [Trace cache key] in
# docs/functions.md) and a list of tensor leaves. Leaves: tensors and NumPy
# arrays become graph parameters; variables are passed by reference; any
# other value is part of the key and is seen by the trace as a constant.


def _is_tensor_like(value):
    return isinstance(value, (Tensor, np.ndarray, np.generic))


def _is_variable(value):
    return isinstance(value, Variable)


def _signature(values):
    """(key, tensor-like leaves) of a call's argument values (Note [Trace cache key])."""
    key, leaves, _ = _signature_and_variables(values)
    return key, leaves


def _signature_and_variables(values):
    """(key, tensor-like leaves, variable arguments). Tensors, lists and tuples are keyed in
    C++ (_C._signature_key); the rest here. Note [Variable arguments]: a variable is keyed by
    its dtype, shape and device, not its identity, so one trace serves every such variable
    (as in TensorFlow); the key also records which arguments are the same variable, since
    a trace for two variables is not one for a variable passed twice."""
    try:
        key, leaves = _C._signature_key(values, _raw_key)
    except RecursionError:
        raise ValueError("ember.function: an argument is nested too deeply to be keyed") from None
    if not any(type(leaf) is _VariableArgument for leaf in leaves):
        return key, leaves, []
    variables = [leaf.variable for leaf in leaves if type(leaf) is _VariableArgument]
    aliases = tuple(next(i for i, u in enumerate(variables) if u is v) for v in variables)
    return key + (("aliases", aliases),), [leaf for leaf in leaves if type(leaf) is not _VariableArgument], variables


class _VariableArgument:
    """Marks a variable argument in the C++ keyer's leaf list (which otherwise holds tensors)."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable


def _nested_key(value, leaves):
    try:
        key, sub = _C._signature_key([value], _raw_key)
    except RecursionError:
        raise ValueError("ember.function: an argument is nested too deeply to be keyed") from None
    leaves.extend(sub)
    return key[0]


def _raw_key(value, leaves):
    if _is_variable(value) and not _is_variable_slice(value):
        leaves.append(_VariableArgument(value))
        return ("V", value.dtype.name, tuple(value.shape), value.device)
    return _other_key(value, leaves)


def _is_variable_slice(value):
    return isinstance(value, _VariableSlice)


def _other_key(value, leaves):
    if _is_tensor_like(value):
        shape, dtype = _shape_and_dtype(value)
        leaves.append(value)
        return ("T", dtype.name, tuple(shape))
    if isinstance(value, TensorSpec):
        leaves.append(value)
        return value._key()
    if _is_variable(value):  # a slice v[...]: its value was read when it was taken
        return ("V", id(value))
    if hasattr(value, "_arg_key"):  # Note [Composite arguments]
        return ("C", value._arg_key(), tuple(_nested_key(part, leaves) for part in value._arg_parts()))
    if isinstance(value, (list, tuple)):  # subclasses, e.g. named tuples
        return ("L" if isinstance(value, list) else "U", type(value).__name__,
                tuple(_nested_key(v, leaves) for v in value))
    if isinstance(value, dict):
        return ("D", tuple((k, _nested_key(value[k], leaves)) for k in sorted(value, key=repr)))
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))  # unhashable: each object is its own trace
    return ("P", type(value).__name__, value)


# What FunctionBase's call reads (Note [Function calls in C]).
_C._set_function_call_state(_state, vars(_context), vars(config), _other_key)


# Note [Composite arguments]: a SparseTensor or RaggedTensor argument is
# keyed by the part of it that ops need as Python data (a dense shape, row
# splits: `_arg_key()`), and its other tensors (`_arg_parts()`: values,
# indices) are graph parameters, so a new batch of the same structure
# reuses the trace. A composite returned by a function travels as all its
# tensors (`_components()`), rebuilt after the call.
class _CompositeOutput:
    """Stands for a composite in a function's output structure."""

    __slots__ = ("template", "components")

    def __init__(self, template, components):
        self.template, self.components = template, components


def _replace_leaves(value, leaves):
    """value with each tensor-like leaf replaced by next(leaves)."""
    if _is_tensor_like(value) or isinstance(value, TensorSpec):
        return next(leaves)
    if type(value) is _CompositeOutput:
        return value.template._from_components([_replace_leaves(c, leaves) for c in value.components])
    if hasattr(value, "_arg_key"):
        return value._from_arg_parts([_replace_leaves(part, leaves) for part in value._arg_parts()])
    if isinstance(value, (list, tuple)):
        items = [_replace_leaves(v, leaves) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        # Visit in key order (as _signature does), rebuild in insertion order.
        new = {k: _replace_leaves(value[k], leaves) for k in sorted(value, key=repr)}
        return {k: new[k] for k in value}
    return value


def _describe_change(names, old_key, new_key):
    """'argument x: shape (8, 784) -> (16, 784)' for the first parameter that differs."""
    for name, old, new in zip(names, old_key, new_key):
        if old == new:
            continue
        if old[0] == "T" and new[0] == "T":
            if old[1] != new[1]:
                return f"argument {name}: dtype {old[1]} -> {new[1]}"
            return f"argument {name}: shape {old[2]} -> {new[2]}"
        if old[0] == "P" and new[0] == "P":
            return f"argument {name}: value {safe_repr(old[2])} -> {safe_repr(new[2])}"
        return f"argument {name}: {_short(old)} -> {_short(new)}"
    return "a different argument structure"


def _short(key):
    kinds = {"T": "tensor", "V": "variable", "L": "list", "U": "tuple", "D": "dict", "P": "value", "id": "object",
             "C": "composite"}
    return kinds.get(key[0], key[0])


def _relax(old_key, new_key):
    """new_key with tensor dims that differ from old_key set to None, if the
    two have the same structure, dtypes and ranks; else None."""
    if old_key[0] != new_key[0]:
        return None
    if new_key[0] == "T":
        if old_key[1] != new_key[1] or len(old_key[2]) != len(new_key[2]):
            return None
        return ("T", new_key[1], tuple(a if a == b else None for a, b in zip(old_key[2], new_key[2])))
    if new_key[0] in ("L", "U"):
        if old_key[1] != new_key[1] or len(old_key[2]) != len(new_key[2]):
            return None
        parts = [_relax(a, b) for a, b in zip(old_key[2], new_key[2])]
        return None if any(p is None for p in parts) else (new_key[0], new_key[1], tuple(parts))
    return new_key if old_key == new_key else None


def _key_matches(pattern, key):
    """True if key (concrete) fits pattern (dims may be None)."""
    if pattern[0] != key[0]:
        return False
    if key[0] == "T":
        return pattern[1] == key[1] and len(pattern[2]) == len(key[2]) and all(
            p is None or p == d for p, d in zip(pattern[2], key[2]))
    if key[0] in ("L", "U"):
        return pattern[1] == key[1] and len(pattern[2]) == len(key[2]) and all(
            _key_matches(p, k) for p, k in zip(pattern[2], key[2]))
    return pattern == key


def _args_key(key):
    """A call's key (one entry per argument) as one tuple node, for _relax and _key_matches."""
    return ("U", "tuple", key)


def _specs_from_key(key, out):
    """The TensorSpecs of a key's tensor leaves, in leaf order."""
    if key[0] == "T":
        out.append(TensorSpec(key[2], key[1]))
    elif key[0] in ("L", "U"):
        for k in key[2]:
            _specs_from_key(k, out)
    elif key[0] == "D":
        for _, k in key[1]:
            _specs_from_key(k, out)
    elif key[0] == "C":
        for k in key[2]:
            _specs_from_key(k, out)
    return out


# --- Tracing ------------------------------------------------------------------


class _Trace:
    """State of one trace: the C++ tracer and the variables it touched."""

    def __init__(self):
        self.tracer = _C._Tracer()
        self.variables = {}  # id(var) -> [var, symbolic argument, current symbolic value]
        self.variable_order = []  # vars in the order they became graph arguments
        self.subgraphs = []  # cond / while_loop graphs the traced graph refers to by id
        self.allow_variable_creation = False  # Note [Variables created in functions]
        self.created_variables = 0

    def keep_alive(self, *graphs):
        """Keeps graphs registered (their ids are attrs of this trace's nodes)."""
        self.subgraphs.extend(graphs)

    def read_variable(self, var):
        entry = self.variables.get(id(var))
        if entry is None:
            symbolic = self.tracer.variable(var._eager_value)
            entry = self.variables[id(var)] = [var, symbolic, symbolic]
            self.variable_order.append(var)
        return entry[2]

    def write_variable(self, var, value):
        self.read_variable(var)
        self.variables[id(var)][2] = value


class _NestedTrace(_Trace):
    """The state of a SubTrace: a variable it reads (and does not bind) is
    the outer trace's current value, captured like any outer tensor, so a
    gradient tape sees the same value inside and outside the branch or body
    (Note [Control-flow traces])."""

    def __init__(self, outer):
        super().__init__()
        self.outer = outer

    def read_variable(self, var):
        entry = self.variables.get(id(var))
        if entry is None:
            value = self.outer.read_variable(var)
            entry = self.variables[id(var)] = [var, value, value]
        return entry[2]


class SubTrace:
    """A graph traced inside the current trace: a cond branch, or a
    while_loop's cond or body (Note [Control-flow traces]).

    Note [Control-flow traces]: fn(*parameters) is traced into a graph of
    its own. Outer tensors it uses are captured; the caller passes them as
    inputs of the control-flow op (finish() returns them). A variable it
    reads is the outer trace's current value, captured the same way (the
    tapes watch that one value, so gradients reach it through the op).
    `bound_variables` are instead parameters after the spec'd ones, so a
    loop body sees the value of the previous iteration. Assignments inside
    only change this trace's view; finish() can return the final values as
    extra outputs, which the caller writes back to the outer trace.
    """

    def __init__(self, fn, specs, bound_variables=(), device=None):
        self.outer = current_trace()
        self.sub = _NestedTrace(self.outer)
        # The parameters live where the control-flow op will hand them over.
        device = device or _C._current_device_scope() or "cpu:0"
        params = [self.sub.tracer.parameter(spec.dtype.name, list(spec.shape), device) for spec in specs]
        for var in bound_variables:
            param = self.sub.tracer.parameter(var.dtype.name, list(var.shape), var.device)
            self.sub.variables[id(var)] = [var, param, param]
        _state.trace = self.sub
        self.sub.tracer.enter()
        try:
            self.structure, self.flat = _flatten_outputs(fn(*params))
        finally:
            self.sub.tracer.exit()
            _state.trace = self.outer

    def updated_variables(self):
        """The variables the traced code assigned, in first-use order."""
        return [entry[0] for entry in self.sub.variables.values() if entry[2] is not entry[1]]

    def value_of(self, var):
        """The variable's value at the end of the traced code."""
        return self.sub.read_variable(var)

    def finish(self, extra_outputs=()):
        """(graph, inputs): the optimized graph, and the outer tensors for its
        arguments after the parameters, in order."""
        graph = self.sub.tracer.finish(self.flat + list(extra_outputs))
        inputs = [captured for kind, captured in graph.args() if kind == "capture"]
        self.outer.keep_alive(graph, *self.sub.subgraphs)
        return graph, inputs


def _device_of(value):
    if isinstance(value, Tensor):
        return value.device
    return _C._current_device_scope() or "cpu:0"


class ConcreteFunction:
    """One trace of a Function: a graph for one input signature.

    Calling it runs the graph as one asynchronous op (``call_function``);
    ``graph.pretty()`` shows the nodes, ``graph.to_text()`` a text form that
    ``ember.function_from_text`` reads back.
    """

    def __init__(self, graph, structured_outputs, variables, updated_variables, specs, name, subgraphs=()):
        self._subgraphs = list(subgraphs)  # keeps cond / while_loop graphs registered
        self.graph = _GraphView(graph)
        self._graph = graph
        self._args = graph.args()
        self._structured_outputs = structured_outputs
        self._variables = variables
        self._updated = updated_variables
        self._num_user_outputs = len(graph.outputs()) - len(updated_variables)
        self.input_signature = tuple(specs)
        self.name = name
        self._single_output = isinstance(structured_outputs, Tensor)
        # Note [Function gradients]: what the backward function needs to run
        # the Python function again: set by Function._trace.
        self._python_function = None
        self._call_templates = None  # (call_args, call_kwargs) with the traced leaves
        self._backward = None  # the backward Function, made on first use
        # Note [Variable arguments]: the variables passed as arguments when traced; a
        # call binds the variables passed then in their place.
        self._arg_variables = []
        self._fast_call = self._make_fast_call()
        # Note [Traced calls in C] (csrc/python/function_binding.cc): what
        # _C._call_traced needs for the same call, or None.
        # The graph's address spares the call pybind11's locked type lookup;
        # the tuple keeps the graph alive.
        self._fast_entry = (None if self._fast_call is None
                            else (self._graph, self._variables, self.name, self._graph._address))

    def _make_fast_call(self):
        """The common call in one Python frame, or None: one output, no
        variable written back, no tape recording (Function.__call__ checks
        that); the same as _call_flat then, which takes four frames."""
        if self._updated or not self._single_output:
            return None
        call_flat_one, variables, name = self._graph.call_flat_one, self._variables, self.name

        def fast_call(params):
            try:
                return call_flat_one(params, variables)
            except TypeError as e:
                raise TypeError(f"{name}: {e}") from None

        return fast_call

    @property
    def structured_outputs(self):
        return self._structured_outputs

    def __call__(self, *args):
        _, leaves, arg_variables = _signature_and_variables(list(args))
        if len(leaves) != len(self.input_signature):
            raise TypeError(f"{self.name}: this concrete function takes {len(self.input_signature)} tensor "
                            f"argument(s) {self.input_signature}, got {len(leaves)}")
        params = []
        for i, (value, spec) in enumerate(zip(leaves, self.input_signature)):
            tensor = _as_tensor(value, spec.dtype)
            if not shape_fits(spec.shape, tensor.shape):
                raise ValueError(f"{self.name}: argument {i} has shape {tuple(tensor.shape)}, which does not "
                                 f"match {spec}")
            params.append(tensor)
        if len(arg_variables) != len(self._arg_variables):
            raise TypeError(f"{self.name}: this concrete function takes {len(self._arg_variables)} variable "
                            f"argument(s), got {len(arg_variables)}")
        return self._call_flat(params, arg_variables)

    def _call_flat(self, params, arg_variables=()):
        if arg_variables:
            variables, updated = self._bound_variables(arg_variables)
        else:  # the common call, kept free of an extra Python call
            variables, updated = self._variables, self._updated
        if _context.active_tape_count and self._python_function is not None and _autodiff_tape._thread_tapes():
            return self._call_recorded(params, arg_variables, variables, updated)
        return self._call_plain(params, variables, updated)

    def _bound_variables(self, arg_variables):
        """(graph variables, updated variables) with the call's variable arguments in place of the trace's."""
        swap = {id(old): new for old, new in zip(self._arg_variables, arg_variables)}
        return [swap.get(id(v), v) for v in self._variables], [swap.get(id(v), v) for v in self._updated]

    # Note [Function gradients]
    # A call under an active gradient tape is recorded as one step whose
    # gradient is another function: the backward function, traced once
    # per concrete function and cached. It runs the Python function again
    # inside a trace under a fresh tape (watching the parameters and the
    # variables) and returns the gradients of the outputs, weighted by the
    # incoming gradients: a forward pass and a backward pass in one graph.
    # The recompute costs a second forward pass, in exchange for keeping
    # no intermediate values alive between the call and tape.gradient.
    # Higher orders work the same way: the backward function is a function
    # too. Variables are read at backward time, so a function that both
    # assigns a variable and is differentiated with respect to it sees the
    # new value there; the backward function never writes variables back.
    def _call_recorded(self, params, arg_variables, graph_variables, updated):
        params = [p if isinstance(p, Tensor) else _as_tensor(p) for p in params]
        variables = [v for v in graph_variables if _is_variable(v)]
        values = [v._value for v in variables]  # read before the call: the tapes watch these
        with _autodiff_tape.recording_paused():
            flat_results = (self._call_updating(params, graph_variables, updated) if updated
                            else self._call(params, graph_variables))
        results = self._structure(flat_results)
        float_params = [p for p in params if p.dtype.is_floating]
        float_values = [v for v in values if v.dtype.is_floating]
        float_outputs = [i for i, r in enumerate(flat_results) if isinstance(r, Tensor) and r.dtype.is_floating]
        if not float_outputs or not (float_params or float_values):
            return results

        def gradient(*upstream):
            backward = self._backward_function(len(params), float_outputs)
            grads = backward(*params, *arg_variables, *[upstream[i] for i in float_outputs])
            grads = [grads] if isinstance(grads, Tensor) else list(grads)
            return grads[:len(float_params)] + [g for v, g in zip(variables, grads[len(float_params):])
                                                 if v.dtype.is_floating]

        _autodiff_tape.record_custom_gradient(float_params + float_values,
                                              [flat_results[i] for i in float_outputs], gradient)
        return results

    def _backward_function(self, num_params, float_outputs):
        if self._backward is not None:
            return self._backward
        python_function = self._python_function
        call_args, call_kwargs = self._call_templates
        traced_arg_variables = self._arg_variables
        num_bound = num_params + len(traced_arg_variables)

        def backward(*flat):
            params, upstream = list(flat[:num_params]), list(flat[num_bound:])
            # The variables passed to this call stand in for those of the trace (Note [Variable arguments]).
            swap = {id(old): new for old, new in zip(traced_arg_variables, flat[num_params:num_bound])}
            variables = [swap.get(id(v), v) for v in self._variables if _is_variable(v)]
            with _autodiff_tape.GradientTape(watch_accessed_variables=False) as tape:
                tape.watch([p for p in params if p.dtype.is_floating])
                if variables:
                    tape.watch(variables)
                it = iter(params)
                args = [_replace_leaves(_swap_variables(a, swap), it) for a in call_args]
                kwargs = {k: _replace_leaves(_swap_variables(call_kwargs[k], swap), it) for k in sorted(call_kwargs)}
                outputs = python_function(*args, **kwargs)
            _, flat_outputs = _flatten_outputs(outputs)
            sources = [p for p in params if p.dtype.is_floating] + [v for v in variables if v.dtype.is_floating]
            return tape.gradient([flat_outputs[i] for i in float_outputs], sources, output_gradients=upstream,
                                 unconnected_gradients="zero")

        self._backward = Function(backward, name=f"{self.name}_backward", autograph=False)
        self._backward._discard_variable_updates = True
        return self._backward

    def _call_plain(self, params, variables, updated):
        return self._structure(self._call_updating(params, variables, updated) if updated
                               else self._call(params, variables))

    def _structure(self, results):
        if self._single_output:
            return results[0]
        return _replace_leaves(self._structured_outputs, iter(results))

    def _call(self, params, variables):
        try:
            return self._graph.call_flat(params, variables)
        except TypeError as e:
            raise TypeError(f"{self.name}: {e}") from None

    def _call_updating(self, params, variables, updated):
        # Reading the variables, calling and writing the new values back is
        # one read-modify-write, like Variable.assign_add: it holds the
        # variables' locks (in a fixed order), so concurrent calls and eager
        # assignments never lose an update.
        locks = sorted({id(v._lock): v._lock for v in updated}.values(), key=id)  # an aliased variable locks once
        for lock in locks:
            lock.acquire()
        try:
            results = self._call(params, variables)
            for var, value in zip(updated, results[self._num_user_outputs:]):
                var._eager_value = _C._keep_on_error(value, var._eager_value)  # Note [Failed variable updates]
        finally:
            for lock in reversed(locks):
                lock.release()
        del results[self._num_user_outputs:]
        return results

    def __repr__(self):
        return f"<ember.ConcreteFunction {self.name} {list(self.input_signature)}>"


class _GraphView:
    """What ConcreteFunction.graph shows of the traced graph."""

    def __init__(self, graph):
        self._graph = graph

    def pretty(self):
        """One line per node: op, inputs, attrs, output dtypes and shapes, device, traced location."""
        return self._graph.pretty()

    def to_text(self):
        return self._graph.to_text()

    def op_names(self):
        return self._graph.op_names()

    def partitions(self):
        """[(device, [op names])]: the per-device subgraphs, joined by transfer nodes."""
        return self._graph.partitions()

    @property
    def num_nodes(self):
        return self._graph.num_nodes()

    def __repr__(self):
        return self.pretty()


def _as_tensor(value, dtype=None):
    if isinstance(value, Tensor):
        return value
    return _C.convert_to_tensor(value, dtype)


def _flatten_outputs(outputs):
    """(structure with Tensor leaves, list of the leaf tensors). Variables
    in the result are returned as their value."""
    if _is_variable(outputs):
        outputs = outputs.read_value()
    if isinstance(outputs, Tensor):
        return outputs, [outputs]
    leaves = []

    def walk(value):
        if _is_variable(value):
            value = value.read_value()
        if isinstance(value, Tensor):
            leaves.append(value)
            return value
        if hasattr(value, "_arg_key"):  # Note [Composite arguments]
            return _CompositeOutput(value, [walk(c) for c in value._components()])
        if isinstance(value, (list, tuple)):
            items = [walk(v) for v in value]
            return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
        if isinstance(value, dict):
            new = {k: walk(value[k]) for k in sorted(value, key=repr)}
            return {k: new[k] for k in value}
        if isinstance(value, (np.ndarray, np.generic)):
            tensor = _as_tensor(value)
            leaves.append(tensor)
            return tensor
        if isinstance(value, TensorSpec):
            raise TypeError("a function may not return a TensorSpec: return tensors or Python values")
        return value

    return walk(outputs), leaves


class Function(_C.FunctionBase):
    """A Python function traced into graphs, one per input signature (``tf.function``)."""

    def __init__(self, python_function, input_signature=None, reduce_retracing=False, name=None,
                 jit_compile=None, autograph=None):
        del jit_compile  # accepted for TensorFlow compatibility
        functools.update_wrapper(self, python_function)
        self._python_function = python_function
        # Note [AutoGraph] (ember/_autograph): on unless autograph=False, as in
        # tf.function; only an explicit autograph=True warns when the source
        # cannot be converted.
        self._traced_function = (python_function if autograph is False
                                 else _autograph_convert(python_function, warn=autograph is True))
        self._name = name or getattr(python_function, "__name__", "function")
        self._signature = inspect.signature(python_function)
        params = list(self._signature.parameters.values())
        self._param_names = [p.name for p in params]
        simple = all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params)
        self._simple_arity = len(params) if simple else -1
        # Note [Completing simple calls]: defaults of a simple signature, so
        # a call that omits them or passes keywords still takes the fast path.
        self._defaults = {p.name: p.default for p in params if p.default is not p.empty}
        self._default_tail = tuple(self._defaults.values())  # trailing, as Python requires
        self._input_signature = None
        if input_signature is not None:
            self._input_signature = tuple(input_signature)
            if not all(isinstance(s, TensorSpec) for s in _signature(list(self._input_signature))[1]):
                raise TypeError(f"{self._name}: input_signature must hold TensorSpecs")
        # The argument count of a call that may take the C path at once
        # (__call__); -2 (no call has it) with an input signature.
        self._fast_arity = self._simple_arity if input_signature is None else -2
        self._reduce_retracing = bool(reduce_retracing)
        self._lock = threading.RLock()
        # Note [Trace cache bound]: at most trace_cache_capacity() traces per
        # function; past that the oldest trace is dropped (and retraced if
        # called again), so endless new shapes cannot grow memory without
        # bound. Hits do not reorder entries: the call fast path stays one
        # dict lookup.
        self._concrete = {}  # exact key -> ConcreteFunction, oldest first
        self._relaxed = []  # (pattern key, ConcreteFunction) for reduce_retracing
        self._evictions = 0
        self._last_key = None
        self._tracing_count = 0
        self._discard_variable_updates = False  # Note [Function gradients]
        self._first_call = True  # Note [Variables created in functions]

    @property
    def python_function(self):
        return self._python_function

    def experimental_get_tracing_count(self):
        """How many times the Python function has been traced."""
        return self._tracing_count

    def __get__(self, instance, owner):
        # A decorated method: bind `self` like a plain function would. With an
        # input_signature, the signature describes the arguments after self.
        if instance is None:
            return self
        return _BoundMethod(self.__call__ if self._input_signature is None else self._call_method, instance)

    # Note [Function calls in C] (csrc/python/function_call.cc): the common
    # call (positional arguments, a trace made, no trace in progress, no
    # tape, functions not forced eager) never reaches Python; FunctionBase's
    # call makes it and sends every other call here, with tried_c set when
    # it already tried the trace cache for these arguments.
    def _call_general(self, tried_c, args, kwargs):
        if config._functions_eager or _state.trace is not None:
            # Inside another trace the body is traced inline into the outer graph.
            return self._python_function(*args, **kwargs)
        if (kwargs or len(args) != self._simple_arity) and self._simple_arity >= 0:
            completed = self._complete_simple_call(args, kwargs)
            if completed is not None:
                args, kwargs = completed, {}
        if not kwargs and len(args) == self._simple_arity and self._input_signature is None:
            # The common call: positional arguments, already traced. The
            # leaves go to C++ as they are (NumPy values are converted there).
            # Variables are keyed by identity here, so a call with variable
            # arguments never hits and takes _lookup (Note [Variable arguments]).
            if not tried_c and not _context.active_tape_count:  # Note [Traced calls in C]
                result = _C._call_traced(self._concrete, args, _other_key)
                if result is not NotImplemented:
                    return result
            key, leaves = _C._signature_key(args, _other_key)
            concrete = self._concrete.get(key)
            if concrete is not None and concrete is not _EAGER:
                fast_call = concrete._fast_call
                if fast_call is not None and not _context.active_tape_count:
                    return fast_call(leaves)
                return concrete._call_flat(leaves)
        concrete, params, arg_variables = self._lookup(args, kwargs, trace_specs=False)
        if concrete is _EAGER:  # Note [py_function in functions]
            return self._python_function(*args, **kwargs)
        if type(concrete) is _EagerResult:  # Note [Variables created in functions]
            return concrete.value
        return concrete._call_flat(params, arg_variables)

    def _complete_simple_call(self, args, kwargs):
        """Note [Completing simple calls]: when every parameter is positional-
        or-keyword, a call that omits defaults or names some arguments binds
        to the full positional tuple that inspect's bind would give, at a
        fraction of its cost. None when the call does not bind (too many
        arguments, an unknown or repeated keyword, a missing argument): the
        slow path then raises the error inspect words."""
        names = self._param_names
        if not kwargs:  # only trailing defaults left out
            first_default = len(names) - len(self._default_tail)
            if first_default <= len(args) <= len(names):
                return args + self._default_tail[len(args) - first_default:]
            return None
        if len(args) > len(names):
            return None
        rest = []
        used = 0
        for name in names[len(args):]:
            if name in kwargs:
                rest.append(kwargs[name])
                used += 1
            elif name in self._defaults:
                rest.append(self._defaults[name])
            else:
                return None
        if used != len(kwargs):
            return None
        return args + tuple(rest)

    def _call_method(self, instance, *args, **kwargs):
        """A call through an instance of a method that has an input_signature."""
        if config._functions_eager or getattr(_state, "trace", None) is not None:
            return self._python_function(instance, *args, **kwargs)
        concrete, params, arg_variables = self._lookup(args, kwargs, trace_specs=False, instance=instance)
        if concrete is _EAGER:
            return self._python_function(instance, *args, **kwargs)
        if type(concrete) is _EagerResult:
            return concrete.value
        return concrete._call_flat(params, arg_variables)

    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (values or TensorSpecs), tracing if needed."""
        return self._get_concrete_function(args, kwargs, _UNBOUND)

    def _get_concrete_function(self, args, kwargs, instance):
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        concrete, _, _ = self._lookup(args, kwargs, trace_specs=True, instance=instance)
        if concrete is _EAGER:
            raise HostCallbackError(f"{self._name} calls py_function or numpy_function (or next() on an outside "
                                    "iterator), reads or writes files, or takes or computes string tensors from "
                                    "its arguments, so it runs eagerly at each call and has no concrete graph "
                                    "(Note [py_function in functions], Note [String tensors in functions])")
        return concrete

    # --- Signature handling --------------------------------------------------

    def _bind(self, args, kwargs):
        if not kwargs and self._simple_arity == len(args) and self._input_signature is None:
            return self._param_names, list(args), {}  # the common case, without inspect
        if self._input_signature is not None:
            if kwargs or len(args) != len(self._input_signature):
                raise TypeError(f"{self._name}: takes {len(self._input_signature)} positional arguments "
                                f"matching its input_signature, got {len(args)} and {sorted(kwargs)}")
            # Python numbers and lists where the signature has a TensorSpec are tensors of its
            # dtype, as in TensorFlow (else they would be trace constants, outside the signature).
            args = [_as_tensor(v, s.dtype) if isinstance(s, TensorSpec) and isinstance(v, (bool, int, float, list,
                                                                                            tuple)) else v
                    for v, s in zip(args, self._input_signature)]
            for i, (value, spec) in enumerate(zip(args, self._input_signature)):
                for leaf, leaf_spec in zip(_signature([value])[1], _signature([spec])[1]):
                    if isinstance(leaf, TensorSpec):  # tensors are converted to the spec's dtype
                        ok = leaf.dtype == leaf_spec.dtype and shape_fits(leaf_spec.shape, leaf.shape)
                    else:
                        ok = shape_fits(leaf_spec.shape, _shape_and_dtype(leaf)[0])
                    if not ok:  # TypeError, as TensorFlow raises when binding fails
                        raise TypeError(f"{self._name}: argument {i} does not match its input_signature "
                                         f"{leaf_spec}: got {_describe_value(leaf)}")
            names = [f"arg{i}" for i in range(len(args))]
            return names, list(args), {}
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self._name}: {e}") from None
        bound.apply_defaults()
        return list(bound.arguments), list(bound.args), dict(bound.kwargs)

    def _lookup(self, args, kwargs, trace_specs, instance=_UNBOUND):
        names, call_args, call_kwargs = self._bind(args, kwargs)
        bound = instance is not _UNBOUND  # a method with an input_signature, called through an instance
        if bound:
            names, call_args = [self._param_names[0]] + names, [instance] + call_args
        values = call_args + [call_kwargs[k] for k in sorted(call_kwargs)]
        key, leaves, arg_variables = _signature_and_variables(values)
        if self._input_signature is not None:
            specs = [spec._with_rank_of(leaf) for spec, leaf in
                     zip(_signature(list(self._input_signature))[1], leaves)]
            # The instance is part of the key: each object's trace reads its own variables.
            key = ("signature", tuple(len(spec.shape) for spec in specs), key[-1] if arg_variables else None,
                   key[0] if bound else None)
            params = [] if trace_specs else [_as_tensor(v, s.dtype) for v, s in zip(leaves, specs)]
        else:
            params = [] if trace_specs else [v if type(v) is Tensor else _as_tensor(v) for v in leaves]
            specs = None
        extra = _context.trace_key_extra()  # Note [Layer hooks] in _context.py
        if extra is not None:
            key = key + (extra,)
        with self._lock:
            concrete = self._concrete.get(key)
            if concrete is None and self._reduce_retracing:
                concrete = next((c for pattern, c in self._relaxed if _key_matches(pattern, _args_key(key))),
                                None)
            if concrete is None:
                trace_key = key
                if self._reduce_retracing and self._last_key is not None and specs is None:
                    relaxed = _relax(_args_key(self._last_key), _args_key(key))
                    if relaxed is not None and relaxed[2] != key:
                        trace_key = relaxed[2]
                if specs is None:
                    specs = _specs_from_key(_args_key(trace_key), [])
                first_call, self._first_call = self._first_call, False
                eager_result = None
                try:
                    concrete = self._trace(names, call_args, call_kwargs, specs, key, first_call)
                except HostCallbackInTrace:
                    self._store(key, _EAGER)
                    return _EAGER, params, arg_variables
                except VariableNeedsEagerRun:  # Note [Variables created in functions]
                    if trace_specs:
                        self._first_call = True  # a later call may still create them
                        raise ValueError(f"{self._name}: its first call creates variables from values computed "
                                         "in the function; call it once before get_concrete_function") from None
                    eager_result = [self._python_function(*args, **kwargs)]
                    concrete = None
                if concrete is None or concrete._created_variables:
                    concrete = self._trace(names, call_args, call_kwargs, specs, key, False)
                if eager_result is not None:
                    concrete._arg_variables = arg_variables
                    self._store(key, concrete)
                    return _EagerResult(eager_result[0]), params, arg_variables
                concrete._arg_variables = arg_variables
                self._store(key, concrete)
                if trace_key != key:
                    self._relaxed.append((_args_key(trace_key), concrete))
                    del self._relaxed[:-config._trace_cache_capacity]
        return concrete, params, arg_variables

    def _store(self, key, concrete):
        while len(self._concrete) >= config._trace_cache_capacity:
            del self._concrete[next(iter(self._concrete))]  # the oldest (Note [Trace cache bound])
            self._evictions += 1
        self._concrete[key] = concrete

    def trace_cache_stats(self):
        """``{'size', 'capacity', 'traces', 'evictions'}`` of this function's trace cache."""
        with self._lock:
            return {"size": len(self._concrete), "capacity": config._trace_cache_capacity,
                    "traces": self._tracing_count, "evictions": self._evictions}

    def _trace(self, names, call_args, call_kwargs, specs, key, allow_variables=False):
        if self._last_key is not None and self._tracing_count >= RETRACE_WARNING_THRESHOLD:
            _logger().warning("%s was traced %d times; this retrace is for %s. Retracing is slow: pass tensors "
                           "instead of Python values, or use input_signature or reduce_retracing=True.",
                           self._name, self._tracing_count + 1, _describe_change(names, self._last_key, key))
        self._tracing_count += 1
        self._last_key = key
        trace = _Trace()
        trace.allow_variable_creation = allow_variables
        leaves = _signature(call_args + [call_kwargs[k] for k in sorted(call_kwargs)])[1]
        if any(spec.dtype == string for spec in specs):  # Note [String tensors in functions]
            raise HostCallbackInTrace("a string tensor argument")
        symbolic = [trace.tracer.parameter(spec.dtype.name, list(spec.shape), _device_of(leaf))
                    for leaf, spec in zip(leaves, specs)]
        it = iter(symbolic)
        sym_args = [_replace_leaves(a, it) for a in call_args]
        sym_kwargs = {k: _replace_leaves(call_kwargs[k], it) for k in sorted(call_kwargs)}
        previous = current_trace()
        _state.trace = trace
        trace.tracer.enter()
        try:
            outputs = self._traced_function(*sym_args, **sym_kwargs)
            structure, flat = _flatten_outputs(outputs)
        finally:
            trace.tracer.exit()
            _state.trace = previous
        updated = [entry[0] for entry in trace.variables.values() if entry[2] is not entry[1]]
        if self._discard_variable_updates:
            updated = []  # a backward function recomputes the forward pass: never write it back
        flat = flat + [trace.variables[id(v)][2] for v in updated]
        graph = trace.tracer.finish(flat)
        concrete = ConcreteFunction(graph, structure, trace.variable_order, updated, specs, self._name,
                                    trace.subgraphs)
        concrete._python_function = self._traced_function
        concrete._call_templates = (call_args, call_kwargs)
        concrete._created_variables = trace.created_variables
        return concrete


class _BoundMethod(functools.partial):
    """A Function read through an instance (``model.__call__``): a call passes the
    instance first, and get_concrete_function takes the arguments after it."""

    __slots__ = ()

    def get_concrete_function(self, *args, **kwargs):
        function = self.func.__self__
        if function._input_signature is None:
            return function._get_concrete_function((self.args[0],) + args, kwargs, _UNBOUND)
        return function._get_concrete_function(args, kwargs, self.args[0])

    @property
    def python_function(self):
        return self.func.__self__.python_function

    @property
    def input_signature(self):
        return self.func.__self__._input_signature


class _EagerResult:
    """The result of a first call that ran eagerly (Note [Variables created in functions])."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _swap_variables(value, swap):
    """value with the variables in `swap` (by id) replaced, inside lists, tuples and dicts."""
    if not swap:
        return value
    if _is_variable(value):
        return swap.get(id(value), value)
    if isinstance(value, (list, tuple)):
        items = [_swap_variables(v, swap) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, dict):
        return {k: _swap_variables(v, swap) for k, v in value.items()}
    return value


def _describe_value(value):
    if _is_tensor_like(value):
        shape, dtype = _shape_and_dtype(value)
        return f"{dtype.name} tensor of shape {tuple(shape)}"
    return repr(value)


def function(func=None, input_signature=None, autograph=None, jit_compile=None, reduce_retracing=False,
             name=None):
    """Compiles a Python function into graphs (``tf.function``); usable as ``@ember.function``
    or ``@ember.function(input_signature=[...])``. The parameters are in tf.function's order;
    name (an ember extension) comes after them."""
    def wrap(f):
        return Function(f, input_signature=input_signature, reduce_retracing=reduce_retracing, name=name,
                        jit_compile=jit_compile, autograph=autograph)

    return wrap if func is None else wrap(func)


def function_from_text(text):
    """A callable for a graph in the text form of ``graph.to_text()``.

    It takes one tensor per graph argument and returns the graph's outputs
    (one tensor, or a list); graphs with captured tensors or variables need
    those passed as arguments too, in argument order.
    """
    return _TextFunction(_C._GraphFunction.from_text(check_str(text, "function_from_text", "text")))


class _TextFunction:
    def __init__(self, graph):
        self.graph = _GraphView(graph)
        self._graph = graph

    def __call__(self, *args):
        results = self._graph.call([_as_tensor(a) for a in args])
        return results[0] if len(results) == 1 else results

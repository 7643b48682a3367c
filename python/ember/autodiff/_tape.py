"""ember.GradientTape: reverse-mode automatic differentiation (``tf.GradientTape``).

Recording is C++ (Note [Gradient tape] in csrc/autodiff/tape.h): a pushed
tape sees every op call of its thread through the runtime's op-call
record and keeps those that read a watched value. The backward pass is
here: it walks the kept calls in reverse and calls each op's gradient
function (ember/_grads/, declared with the op in op_defs/). Gradient
functions are written with Ember ops, so the backward pass runs on any
device, is itself recorded by the tapes still active (higher-order
gradients), and is traced into the graph when it runs inside
``@ember.function``.
"""

import contextlib
import enum
import itertools
import threading

import numpy as np

from ember import _C, _context, nest
from ember.autodiff import _registry as registry
from ember._creation import constant, convert_to_tensor
from ember.device import device
from ember._generated.ops import add_n, zeros
from ember._movement import ones_like, zeros_like
from ember._strings._dispatch import reshape, stack
from ember._tensor import Tensor
from ember._variables import Variable


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


_state = threading.local()
# _context.active_tape_count: tapes between __enter__ and __exit__, over all
# threads (Note [Layer hooks]); this lock guards it.
_count_lock = threading.Lock()
_custom_ids = itertools.count()


def _thread_tapes():
    tapes = getattr(_state, "tapes", None)
    if tapes is None:
        tapes = _state.tapes = []
    return tapes


def variable_read(variable, value):
    """Variable._value calls this when a tape is active somewhere: the value
    read becomes watched on this thread's tapes that watch the variable."""
    for tape in _thread_tapes():
        tape._on_variable_read(variable, value)


def _is_variable(value):
    return isinstance(value, Variable)


def _differentiable(dtype):
    return dtype.is_floating or dtype.is_complex


class OpRecord:
    """One recorded op call, as a gradient function sees it (like TF's ``op``).

    ``inputs`` and ``outputs`` are flat lists of tensors (list arguments
    laid out by ``list_sizes``); ``attrs`` maps attribute names to values.
    ``skip_input_indices`` (as in TensorFlow's eager ops) names the inputs
    whose gradients nobody asked for: a gradient function may return None
    for them instead of computing them (conv2d's input gradient, when the
    input is the data, is as costly as the forward pass).
    """

    __slots__ = ("name", "attrs", "inputs", "outputs", "list_sizes", "skip_input_indices")

    def __init__(self, name, attrs, inputs, outputs, list_sizes, skip_input_indices=()):
        self.name = name
        self.attrs = attrs
        self.inputs = inputs
        self.outputs = outputs
        self.list_sizes = list_sizes
        self.skip_input_indices = skip_input_indices

    @property
    def type(self):
        return self.name

    def get_attr(self, name):
        return self.attrs[name]

    def __repr__(self):
        return f"<OpRecord {self.name} inputs={len(self.inputs)} outputs={len(self.outputs)}>"


def _aggregate(partials):
    """The sum of the partial gradients of one value (None if there are none)."""
    if not partials:
        return None
    if len(partials) == 1:
        return partials[0]
    return add_n(partials)


def _as_list(grads, n, what):
    if n == 1 and not isinstance(grads, (list, tuple)):
        return [grads]
    grads = list(grads)
    if len(grads) != n:
        raise ValueError(f"gradient: the gradient function of {what} returned {len(grads)} gradients for "
                         f"{n} inputs")
    return grads


def backward(entries, targets, target_grads, source_keys, custom_grads):
    """Reverse-mode pass over the recorded ``entries``.

    ``targets`` and ``target_grads`` pair each target tensor with its
    incoming gradient; returns {source key: gradient or None}.
    """
    sources = set(source_keys)
    # Forward: the recorded values that depend on a source. Only the calls
    # that read one take part in the backward pass.
    depends = set(sources)
    relevant = []
    for entry in entries:
        if any(k in depends for k in entry[4]):
            depends.update(entry[5])
            relevant.append(entry)
    grads = {}
    for target, grad in zip(targets, target_grads):
        key = _C._handle_key(target)
        if key in depends and _differentiable(target.dtype):
            grads.setdefault(key, []).append(grad)
    for name, attrs, inputs, outputs, in_keys, out_keys, list_sizes, custom_id in reversed(relevant):
        out_grads = [_aggregate(grads.get(k)) for k in out_keys]
        for k in out_keys:
            if k not in sources:
                grads.pop(k, None)  # consumed: free it early
        if all(g is None for g in out_grads):
            continue
        # Gradient functions see one gradient per output: zeros where a
        # differentiable output got none.
        out_grads = [g if g is not None or not _differentiable(o.dtype) else zeros_like(o)
                     for g, o in zip(out_grads, outputs)]
        if custom_id >= 0:
            what = "a custom_gradient function"
            in_grads = custom_grads[custom_id](*out_grads)
        else:
            what = f"op '{name}'"
            fn = registry.gradient_function(name)
            skip = tuple(i for i, (k, x) in enumerate(zip(in_keys, inputs))
                         if k not in depends or not _differentiable(x.dtype))
            in_grads = fn(OpRecord(name, attrs, inputs, outputs, list_sizes, skip), *out_grads)
        for key, grad, x in zip(in_keys, _as_list(in_grads, len(inputs), what), inputs):
            if grad is None or key not in depends or not _differentiable(x.dtype):
                continue
            grads.setdefault(key, []).append(grad)
    return {k: _aggregate(grads.get(k)) for k in source_keys}


class GradientTape:
    """Records operations for automatic differentiation (``tf.GradientTape``).

    Ops run inside ``with GradientTape() as tape:`` that read a watched
    value are recorded: trainable variables read inside the block are
    watched automatically (unless ``watch_accessed_variables=False``),
    tensors after ``tape.watch(t)``. ``tape.gradient(target, sources)``
    then computes d(target)/d(sources). A tape that is not ``persistent``
    computes one set of gradients and releases what it recorded.

    Gradients are dense tensors (TensorFlow's ``IndexedSlices`` are not
    used: the gradient of ``gather`` is a dense scatter-add).
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._tape = None
        self._recording = False
        self._used = False
        self._variables = {}  # id(variable) -> (variable, [values read])
        self._explicit_variables = set()
        self._custom_grads = {}  # custom_gradient id -> gradient function

    # --- Recording ---------------------------------------------------------
    def __enter__(self):
        if self._recording:
            raise ValueError("GradientTape: this tape is already recording; a tape cannot be entered twice")
        self._push()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._pop()
        return False

    def _ensure_tape(self):
        if self._tape is None:
            self._tape = _C._Tape()
        return self._tape

    def _push(self):
        self._ensure_tape().push()
        _thread_tapes().append(self)
        self._recording = True
        with _count_lock:
            _context.active_tape_count += 1

    def _pop(self):
        self._tape.pop()
        tapes = _thread_tapes()
        if self in tapes:
            tapes.remove(self)
        self._recording = False
        with _count_lock:
            _context.active_tape_count -= 1

    def watch(self, tensor):
        """Watches ``tensor`` (a Tensor, a Variable, or a nested structure of them)."""
        tape = self._ensure_tape()
        for t in nest.flatten(tensor):
            if _is_variable(t):
                self._explicit_variables.add(id(t))
                self._watch_variable_value(t, t._value)
            elif isinstance(t, Tensor):
                tape.watch(t)
            else:
                raise ValueError(f"GradientTape.watch: expected a Tensor or a Variable, got {type(t).__name__}")

    def _on_variable_read(self, variable, value):
        if not self._tape.recording or not isinstance(value, Tensor):
            return
        if (self._watch_accessed_variables and variable.trainable) or id(variable) in self._explicit_variables:
            self._watch_variable_value(variable, value)

    def _watch_variable_value(self, variable, value):
        record = self._variables.get(id(variable))
        if record is None:
            record = self._variables[id(variable)] = (variable, [])
        key = _C._handle_key(value)
        if all(_C._handle_key(v) != key for v in record[1]):
            record[1].append(value)
        self._tape.watch(value)

    def watched_variables(self):
        """The variables this tape watched, in the order it first saw them."""
        return tuple(var for var, _ in self._variables.values())

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside this block are not recorded."""
        if not self._recording:
            raise ValueError("GradientTape.stop_recording: the tape is not recording")
        self._tape.recording = False
        try:
            yield
        finally:
            self._tape.recording = True

    def reset(self):
        """Forgets everything recorded so far; recording continues if the tape is active."""
        if self._tape is not None:
            self._tape.reset()
        self._variables.clear()
        self._explicit_variables.clear()
        self._custom_grads.clear()
        self._used = False

    def _record_custom(self, inputs, outputs, grad_fn):
        if self._tape is None or not self._tape.recording:
            return
        custom_id = next(_custom_ids)
        self._custom_grads[custom_id] = grad_fn
        self._tape.record_custom(list(inputs), list(outputs), custom_id)

    # --- Gradients ---------------------------------------------------------
    def _consume(self, what):
        if not self._persistent:
            if self._used:
                raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of "
                                   "gradients (or jacobians)")
            self._used = True

    def _source_keys(self, source, what):
        if _is_variable(source):
            record = self._variables.get(id(source))
            return [] if record is None else [_C._handle_key(v) for v in record[1]]
        if isinstance(source, Tensor):
            return [_C._handle_key(source)]
        raise ValueError(f"GradientTape.{what}: a source must be a Tensor or a Variable, got "
                         f"{type(source).__name__}")

    @contextlib.contextmanager
    def _paused(self):
        # The backward pass is recorded by the other active tapes (higher
        # order), never by this one.
        was = self._tape.recording if self._tape is not None else False
        if self._tape is not None:
            self._tape.recording = False
        try:
            yield
        finally:
            if self._tape is not None:
                self._tape.recording = was

    def _gradients(self, targets, target_grads, sources, unconnected, what, target_variables=()):
        source_keys = [self._source_keys(s, what) for s in sources]
        # A variable that is itself a target is its own source, read or not (TensorFlow
        # identifies both by the variable's handle): d v / d v is one.
        for var, value in target_variables:
            for source, keys in zip(sources, source_keys):
                if source is var and _C._handle_key(value) not in keys:
                    keys.append(_C._handle_key(value))
        if self._tape is None:
            results = {}
        else:
            with self._paused():
                results = backward(self._tape.entries(), targets, target_grads,
                                   [k for keys in source_keys for k in keys], self._custom_grads)
        out = []
        for source, keys in zip(sources, source_keys):
            partials = [results[k] for k in keys if results.get(k) is not None]
            grad = _aggregate(partials)
            dtype = source.dtype
            if grad is None and unconnected is UnconnectedGradients.ZERO and _differentiable(dtype):
                grad = zeros_like(source._value if _is_variable(source) else source)
            if not _differentiable(dtype):
                grad = None
            out.append(grad)
        return out

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(target)/d(sources): one gradient (or None) per source, in the sources' structure.

        ``target`` may be a nested structure: the gradient is of the sum of
        its parts. ``output_gradients`` (same structure as ``target``)
        weights each part; by default each is all ones.
        ``unconnected_gradients``: "none" (None for a source the target
        does not depend on) or "zero" (zeros of the source's shape).
        """
        unconnected = _unconnected(unconnected_gradients)
        self._consume("gradient")
        flat_targets = nest.flatten(target)
        targets = [_as_target(t) for t in flat_targets]
        target_variables = [(t, value) for t, value in zip(flat_targets, targets) if _is_variable(t)]
        if output_gradients is None:
            weights = [None] * len(targets)
        else:
            weights = nest.flatten(output_gradients)
            if len(weights) != len(targets):
                raise ValueError(f"GradientTape.gradient: output_gradients has {len(weights)} parts, "
                                 f"target has {len(targets)}")
        target_grads = [_initial_grad(t, w) for t, w in zip(targets, weights)]
        flat_sources = nest.flatten(sources)
        grads = self._gradients(targets, target_grads, flat_sources, unconnected, "gradient", target_variables)
        if not self._persistent and self._tape is not None:
            self._tape.reset()  # a non-persistent tape is done: free what it saved
        return nest.pack_sequence_as(sources, grads)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """The Jacobian of ``target`` with respect to each source: shape target.shape + source.shape."""
        del parallel_iterations, experimental_use_pfor
        unconnected = _unconnected(unconnected_gradients)
        self._consume("jacobian")
        target = _as_target(target)
        flat_sources = nest.flatten(sources)
        size = int(np.prod(target.shape, dtype=np.int64))
        rows = [[] for _ in flat_sources]
        for i in range(size):
            onehot = np.zeros(size, dtype=target.dtype.as_numpy_dtype)
            onehot[i] = 1
            seed = _constant_like(onehot.reshape(target.shape), target)
            grads = self._gradients([target], [seed], flat_sources, unconnected, "jacobian")
            for r, g in zip(rows, grads):
                r.append(g)
        out = []
        for source, r in zip(flat_sources, rows):
            shape = tuple(target.shape) + tuple(source.shape)
            if size == 0:
                out.append(zeros(shape, dtype=source.dtype) if _differentiable(source.dtype) else None)
            elif any(g is None for g in r):
                out.append(None)
            else:
                out.append(reshape(stack(r), shape))
        if not self._persistent and self._tape is not None:
            self._tape.reset()
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: target [b, ...] and source [b, ...] give [b] + target.shape[1:] + source.shape[1:].

        Assumes, as TensorFlow does, that example i of the target depends
        only on example i of the source.
        """
        del parallel_iterations, experimental_use_pfor
        unconnected = _unconnected(unconnected_gradients)
        self._consume("batch_jacobian")
        target = _as_target(target)
        if target.ndim < 1 or source.ndim < 1 or target.shape[0] != source.shape[0]:
            raise ValueError(f"GradientTape.batch_jacobian: target {tuple(target.shape)} and source "
                             f"{tuple(source.shape)} need the same first (batch) dimension")
        batch = target.shape[0]
        inner = int(np.prod(target.shape[1:], dtype=np.int64))
        columns = []
        for j in range(inner):
            onehot = np.zeros((batch, inner), dtype=target.dtype.as_numpy_dtype)
            onehot[:, j] = 1
            seed = _constant_like(onehot.reshape(target.shape), target)
            (g,) = self._gradients([target], [seed], [source], unconnected, "batch_jacobian")
            columns.append(g)
        shape = (batch,) + tuple(target.shape[1:]) + tuple(source.shape[1:])
        if not self._persistent and self._tape is not None:
            self._tape.reset()
        if inner == 0 or batch == 0:
            return zeros(shape, dtype=source.dtype) if _differentiable(source.dtype) else None
        if any(g is None for g in columns):
            return None
        return reshape(stack(columns, axis=1), shape)


def _unconnected(value):
    if isinstance(value, UnconnectedGradients):
        return value
    try:
        return UnconnectedGradients(str(value).lower())
    except ValueError:
        raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {value!r}") from None


def _as_target(value):
    if _is_variable(value):
        return value._value
    if isinstance(value, Tensor):
        return value
    raise ValueError(f"GradientTape: a target must be a Tensor or a Variable, got {type(value).__name__}")


def _constant_like(array, like):
    with device(like.device):
        return constant(array, dtype=like.dtype)


def _initial_grad(target, weight):
    if weight is None:
        return ones_like(target)
    w = weight if isinstance(weight, Tensor) else convert_to_tensor(weight, dtype=target.dtype)
    if tuple(w.shape) != tuple(target.shape):
        raise ValueError(f"GradientTape.gradient: an output gradient of shape {tuple(w.shape)} for a target "
                         f"of shape {tuple(target.shape)}")
    return w


def is_recording():
    """True if a tape of this thread records now (not paused or stopped)."""
    return any(t._tape is not None and t._tape.recording for t in _thread_tapes())


def record_custom_gradient(inputs, outputs, grad_fn):
    """Records a custom_gradient call on this thread's recording tapes."""
    for tape in _thread_tapes():
        tape._record_custom(inputs, outputs, grad_fn)


@contextlib.contextmanager
def recording_paused():
    """No tape of this thread records inside the block (custom_gradient's forward pass)."""
    tapes = [t for t in _thread_tapes() if t._tape is not None]
    was = [t._tape.recording for t in tapes]
    for t in tapes:
        t._tape.recording = False
    try:
        yield
    finally:
        for t, w in zip(tapes, was):
            t._tape.recording = w


_context.variable_read = variable_read
_context.recording_paused = recording_paused

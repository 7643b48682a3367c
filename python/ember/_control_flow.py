"""ember.cond and ember.while_loop: control flow that works eagerly and in
@ember.function graphs (tf.cond, tf.while_loop). See docs/functions.md."""

import contextlib

import numpy as np

from ember import _C, nest
from ember.autodiff import _tape as _autodiff_tape
from ember.autodiff._tape import GradientTape
from ember.function import SubTrace, TensorSpec, current_trace, shape_fits
from ember._creation import constant
from ember._generated import raw_ops
from ember._generated.ops import tensor_scatter_nd_update, zeros
from ember._movement import zeros_like
from ember._strings._dispatch import concat, expand_dims, gather, reshape
from ember._tensor import Tensor


def _is_symbolic(value):
    return isinstance(value, Tensor) and _C._is_symbolic(value)


def _flat(values):
    """A branch result (a tensor, or a list or tuple of them) as a flat
    list, and how to rebuild that structure from the op's outputs."""
    single = not isinstance(values, (list, tuple))
    items = [values] if single else list(values)
    if not all(isinstance(v, Tensor) for v in items):
        raise TypeError("cond: each branch must return a tensor or a list or tuple of tensors")
    return items, (lambda xs: xs[0]) if single else (lambda xs: type(values)(xs))


def _describe(value):
    if isinstance(value, Tensor):
        return f"a {value.dtype.name} tensor of shape {tuple(value.shape)}"
    if isinstance(value, (list, tuple)):  # no repr: its tensors may be symbolic
        return f"a {type(value).__name__} of {len(value)} items"
    return f"{type(value).__name__} {value!r}"[:200]


def _check_predicate(value, what):
    """A Python or NumPy bool, or a scalar bool tensor, as TensorFlow
    requires; anything else (a list, a tuple, a vector) is an error rather
    than a truth value that never changes."""
    if isinstance(value, (bool, np.bool_)):
        return
    if isinstance(value, np.ndarray):
        value = _C.convert_to_tensor(value, None)
    if not isinstance(value, Tensor):
        raise TypeError(f"{what} must be a scalar bool tensor, got {_describe(value)}")
    if value.dtype.name != "bool":
        raise TypeError(f"{what} must be a scalar bool tensor, got {_describe(value)}")
    if tuple(value.shape) != ():
        raise ValueError(f"{what} must be a scalar bool tensor, got {_describe(value)}")


def _check_maximum_iterations(value):
    """None, or a non-negative integer that fits int64 (a Python int, a
    NumPy integer or an eager integer scalar tensor)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        if _is_symbolic(value):
            raise TypeError("while_loop: maximum_iterations must be known when the loop is traced")
        if not value.dtype.is_integer or tuple(value.shape) != ():
            raise TypeError(f"while_loop: maximum_iterations must be a scalar int, got {_describe(value)}")
        value = int(value)
    elif isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"while_loop: maximum_iterations must be a scalar int, got {_describe(value)}")
    value = int(value)
    if not 0 <= value < 2**63:
        raise ValueError(f"while_loop: maximum_iterations must be in [0, 2**63), got {value}")
    return value


def _same_structure(a, b):
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same_structure(x, y) for x, y in zip(a, b))
    return isinstance(a, Tensor) and isinstance(b, Tensor)


def cond(pred, true_fn=None, false_fn=None, name=None):
    """Returns ``true_fn()`` if ``pred`` is true, else ``false_fn()`` (``tf.cond``).

    Eagerly (and inside a function when ``pred`` is known at trace time) only
    the chosen branch runs. Inside ``@ember.function`` with a symbolic
    ``pred``, both branches are traced into graphs and a ``cond`` op picks
    one at run time; they must return the same structure of tensors with the
    same dtypes and shapes.
    """
    del name
    if true_fn is None or false_fn is None:
        raise TypeError("cond: true_fn and false_fn are required")
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond: true_fn and false_fn must be callable")
    _check_predicate(pred, "cond: pred")
    if not _is_symbolic(pred):
        return true_fn() if bool(pred) else false_fn()
    then_trace, else_trace = SubTrace(true_fn, []), SubTrace(false_fn, [])
    then_flat, rebuild = _flat(then_trace.structure)
    else_flat, _ = _flat(else_trace.structure)
    if len(then_flat) != len(else_flat):
        raise ValueError(f"cond: true_fn returns {len(then_flat)} tensors but false_fn returns {len(else_flat)}")
    if not _same_structure(then_trace.structure, else_trace.structure):
        raise ValueError(f"cond: true_fn and false_fn must return the same structure, got "
                         f"{type(then_trace.structure).__name__} and {type(else_trace.structure).__name__}")
    # Variables either branch assigns are extra outputs of both (the other
    # branch passes the value through), written back after the op.
    updated = list({id(v): v for v in then_trace.updated_variables() + else_trace.updated_variables()}.values())
    # A branch that prints makes the cond an effect the graph passes keep
    # and order (Note [Effects in control flow] in graph/graph_function.h).
    then_graph, then_inputs = then_trace.finish([then_trace.value_of(v) for v in updated])
    else_graph, else_inputs = else_trace.finish([else_trace.value_of(v) for v in updated])

    recording = _autodiff_tape.is_recording()
    with _autodiff_tape.recording_paused():
        results = raw_ops.cond(pred, then_inputs + else_inputs, then_graph.function_id, else_graph.function_id,
                               len(then_inputs))
    for var, value in zip(updated, results[len(then_flat):]):
        current_trace().write_variable(var, value)
    if recording:
        _record_cond_gradient(pred, true_fn, false_fn, then_inputs + else_inputs, results[:len(then_flat)])
    return rebuild(results[:len(then_flat)])


# Note [cond gradients]: a cond under a gradient tape is recorded as one
# step whose gradient is another cond on the same predicate. Each of its
# branches runs the original branch again under a fresh tape watching the
# values the branches captured, and returns their gradients (zeros where
# a branch does not use a value), so both branches have one structure.
def _record_cond_gradient(pred, true_fn, false_fn, captured, outputs):
    inputs = _float_unique(captured)
    float_outputs = [i for i, o in enumerate(outputs) if o.dtype.is_floating]
    if not inputs or not float_outputs:
        return

    def gradient(*upstream):
        weights = [upstream[i] for i in float_outputs]

        def branch(fn):
            def run():
                with GradientTape(watch_accessed_variables=False) as tape:
                    tape.watch(inputs)
                    flat, _ = _flat(fn())
                return tape.gradient([flat[i] for i in float_outputs], inputs, output_gradients=weights,
                                     unconnected_gradients="zero")
            return run

        return cond(pred, branch(true_fn), branch(false_fn))

    _autodiff_tape.record_custom_gradient(inputs, [outputs[i] for i in float_outputs], gradient)


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` is true (``tf.while_loop``).

    ``loop_vars`` is a tensor or a list/tuple of tensors; ``body`` returns
    the same structure with the same dtypes. A loop variable keeps its shape
    from one iteration to the next unless ``shape_invariants`` (one shape
    per variable, ``None`` for a dim that may change) allows otherwise; a
    change it does not allow is a ``ValueError``. Eagerly the loop runs in
    Python; inside ``@ember.function`` it becomes one ``while_loop`` op whose
    cond and body are traced graphs. Gradients flow through the loop both
    ways (Note [while_loop gradients]) unless ``back_prop=False``.
    """
    del parallel_iterations, swap_memory, name
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callable")
    maximum_iterations = _check_maximum_iterations(maximum_iterations)
    if _is_structured(loop_vars):
        return _structured_loop(cond, body, loop_vars, shape_invariants, back_prop, maximum_iterations)
    single = not isinstance(loop_vars, (list, tuple))
    flat = [_C.convert_to_tensor(v, None) if not isinstance(v, Tensor) else v
            for v in ([loop_vars] if single else list(loop_vars))]
    if shape_invariants is None:
        invariants = [tuple(v.shape) for v in flat]
    else:
        is_one_shape = isinstance(shape_invariants, TensorSpec) or all(
            d is None or isinstance(d, int) for d in shape_invariants)
        invariants = [shape_invariants] if single and is_one_shape else list(shape_invariants)
        if len(invariants) != len(flat):
            raise ValueError(f"while_loop: {len(invariants)} shape invariants for {len(flat)} loop variables")
        invariants = [tuple(None if d is None else int(d) for d in (s.shape if isinstance(s, TensorSpec) else s))
                      for s in invariants]
        for i, (v, inv) in enumerate(zip(flat, invariants)):
            if not shape_fits(inv, v.shape):
                raise ValueError(f"while_loop: loop variable {i} has shape {tuple(v.shape)}, which its shape "
                                 f"invariant {inv} does not allow")

    def call(fn, values):
        out = fn(values[0]) if single else fn(*values)
        return out

    def next_vars(values, iteration):
        out = call(body, values)
        out_flat = [out] if single else (list(out) if isinstance(out, (list, tuple)) else [out])
        if len(out_flat) != len(flat):
            raise ValueError(f"while_loop: body returned {len(out_flat)} values for {len(flat)} loop variables")
        checked = []
        for i, (old, new, inv) in enumerate(zip(values, out_flat, invariants)):
            if not isinstance(new, Tensor):
                new = _C.convert_to_tensor(new, old.dtype)
            if new.dtype != old.dtype:
                raise TypeError(f"while_loop: loop variable {i} has dtype {old.dtype.name} before the loop but "
                                f"{new.dtype.name} after iteration {iteration}")
            if not shape_fits(inv, new.shape):
                raise ValueError(f"while_loop: loop variable {i} has shape {tuple(flat[i].shape)} before the loop "
                                 f"but {tuple(new.shape)} after iteration {iteration}; pass shape_invariants "
                                 f"with None for the dims that may change")
            checked.append(new)
        return checked

    if current_trace() is None:
        with _autodiff_tape.recording_paused() if not back_prop else contextlib.nullcontext():
            values = _eager_loop(call, cond, next_vars, flat, maximum_iterations)
        return values[0] if single else type(loop_vars)(values)

    def loop_cond(values):
        return call(cond, values)

    def loop_body(values):
        return next_vars(values, 1)

    if back_prop and _autodiff_tape.is_recording() and any(v.dtype.is_floating for v in flat):
        results = _recorded_loop(loop_cond, loop_body, flat, invariants, maximum_iterations)
    else:
        results = _trace_loop(loop_cond, loop_body, flat, invariants, maximum_iterations)[0]
    return results[0] if single else type(loop_vars)(results)


def _is_composite(value):
    return hasattr(value, "_from_components")


def _is_structured(loop_vars):
    """True for loop variables beyond a tensor or a flat list/tuple of tensors:
    nested lists, dicts, or composites such as a TensorArray."""
    items = list(loop_vars) if isinstance(loop_vars, (list, tuple)) else [loop_vars]
    return _is_composite(loop_vars) or isinstance(loop_vars, dict) or any(
        nest.is_nested(v) or _is_composite(v) for v in items)


# Note [Structured loop variables]: nested structures and composites
# (TensorArray, Note [TensorArray representation]) are flattened to their
# tensors around the flat loop: each composite stands for the tensors of
# _components() and is rebuilt with _from_components() before cond and body
# see it. Eagerly the loop is plain Python, so the objects pass through as
# they are.
def _structured_loop(cond, body, loop_vars, shape_invariants, back_prop, maximum_iterations):
    is_list = isinstance(loop_vars, (list, tuple)) and not _is_composite(loop_vars)

    def call(fn, values):
        return fn(*values) if is_list else fn(values)

    if current_trace() is None:
        def next_values(values, _iteration):
            values = call(body, values)
            if is_list:
                values = type(loop_vars)(values) if isinstance(values, (list, tuple)) else [values]
            if len(nest.flatten(values)) != len(nest.flatten(loop_vars)):
                raise ValueError("while_loop: body must return the structure of loop_vars")
            return values

        with _autodiff_tape.recording_paused() if not back_prop else contextlib.nullcontext():
            return _eager_loop(call, cond, next_values, loop_vars, maximum_iterations)

    leaves = nest.flatten(loop_vars)
    probes = {k: leaf._probe_copy() for k, leaf in enumerate(leaves)
              if _is_composite(leaf) and hasattr(leaf, "_needs_probe") and leaf._needs_probe()}
    if probes:  # Note [TensorArray shape probe]
        sample = nest.pack_sequence_as(loop_vars, [probes.get(k, leaf) for k, leaf in enumerate(leaves)])
        SubTrace(lambda: call(body, sample), [])
        for k, probe in probes.items():
            leaves[k] = leaves[k]._copy_for_loop()._with_element_shape(probe._element_shape)
        loop_vars = nest.pack_sequence_as(loop_vars, leaves)
    flat, invariants, sizes = [], [], []
    user_invariants = None if shape_invariants is None else nest.flatten(shape_invariants)
    for k, leaf in enumerate(leaves):
        if _is_composite(leaf):
            parts = leaf._components()
            invariants += leaf._component_invariants(parts)
        else:
            parts = [leaf if isinstance(leaf, Tensor) else _C.convert_to_tensor(leaf, None)]
            given = None if user_invariants is None or k >= len(user_invariants) else user_invariants[k]
            invariants.append(tuple(parts[0].shape) if given is None else given)
        flat += parts
        sizes.append(len(parts))

    def rebuild(values):
        out, pos = [], 0
        for leaf, n in zip(leaves, sizes):
            out.append(leaf._from_components(list(values[pos:pos + n])) if _is_composite(leaf) else values[pos])
            pos += n
        return nest.pack_sequence_as(loop_vars, out)

    def flatten(structure):
        out = []
        for leaf in nest.flatten(structure):
            out += leaf._components() if _is_composite(leaf) else [leaf]
        if len(out) != len(flat):
            raise ValueError("while_loop: body must return the structure of loop_vars")
        return out

    results = while_loop(lambda *xs: call(cond, rebuild(xs)), lambda *xs: flatten(call(body, rebuild(xs))), flat,
                         shape_invariants=invariants, back_prop=back_prop, maximum_iterations=maximum_iterations)
    return rebuild(list(results))


def _loop_device(values):
    """Where a traced while_loop runs and its cond and body find their
    parameters: the device scope, else the first loop value's device that is
    not a CPU (placement prefers accelerators), else the CPU. The loop op is
    issued there too, so the traced parameters' devices are where the
    values arrive (Note [Strict device memory] caught a loop traced for the
    CPU that ran on sim:0)."""
    scoped = _C._current_device_scope()
    if scoped:
        return scoped
    return next((v.device for v in values if not v.device.startswith("cpu")), "cpu:0")


@contextlib.contextmanager
def _device_scope(name):
    _C._push_device_scope(name)
    try:
        yield
    finally:
        _C._pop_device_scope()


def _eager_loop(call, cond, next_vars, values, maximum_iterations):
    """Runs the loop in Python: each op is an eager op (and a tape records it)."""
    iteration = 0
    while maximum_iterations is None or iteration < maximum_iterations:
        keep_going = call(cond, values)
        _check_predicate(keep_going, "while_loop: cond")
        if not bool(keep_going):
            break
        iteration += 1
        values = next_vars(values, iteration)
    return values


def _trace_loop(loop_cond, loop_body, initial, invariants, maximum_iterations):
    """Traces one while_loop op into the current trace.

    loop_cond and loop_body take the list of loop values; returns (the
    final values, the variables the body assigns, the outer tensors the
    body captures)."""
    trace = current_trace()
    specs = [TensorSpec(inv, v.dtype) for v, inv in zip(initial, invariants)]
    n = len(initial)
    device = _loop_device(initial)

    def traced_cond(*vs):
        return loop_cond(list(vs[:n]))

    def traced_body(*vs):
        return loop_body(list(vs[:n]))

    # Variables the body assigns become extra loop variables (bound to
    # parameters, so each iteration sees the previous one's value): a first
    # trace finds them.
    first = SubTrace(traced_body, specs, device=device)
    assigned = first.updated_variables()
    cond_trace = SubTrace(traced_cond, specs, assigned, device=device)
    if cond_trace.updated_variables():
        raise ValueError("while_loop: cond must not assign variables")
    _check_predicate(cond_trace.structure, "while_loop: cond")
    if not _is_symbolic(cond_trace.structure):
        raise TypeError(f"while_loop: cond must compute its result from the loop variables in a function, got "
                        f"{_describe(cond_trace.structure)}")
    body_trace = SubTrace(traced_body, specs, assigned, device=device)
    cond_graph, cond_inputs = cond_trace.finish()
    body_graph, body_inputs = body_trace.finish([body_trace.value_of(v) for v in assigned])

    loop_inputs = initial + [trace.read_variable(v) for v in assigned]
    with _autodiff_tape.recording_paused(), _device_scope(device):  # the caller records the loop's gradient
        results = raw_ops.while_loop(loop_inputs + cond_inputs + body_inputs, cond_graph.function_id,
                                     body_graph.function_id, len(loop_inputs), len(cond_inputs),
                                     -1 if maximum_iterations is None else int(maximum_iterations))
    for var, value in zip(assigned, results[n:]):
        trace.write_variable(var, value)
    return list(results[:n]), assigned, body_inputs


# Stacks of loop values up to this many elements are allocated whole when
# maximum_iterations is known; larger ones (or unbounded loops) grow.
_PREALLOCATED_STACK_ELEMENTS = 1 << 24


# Note [while_loop gradients]: eagerly a loop is Python, so the tape
# records each iteration's ops. A traced loop under a recording tape
# becomes one step of the tape. Its forward loop also pushes each
# iteration's loop values onto stacks (extra loop variables: a buffer of
# maximum_iterations rows written in place, or, without a bound, a stack
# that grows by one row per iteration). Its gradient is another
# while_loop that runs the iterations backwards: it takes iteration i's
# values from the stacks, runs the body again on them under a fresh tape,
# and turns the gradient of iteration i's outputs into the gradient of its
# inputs, summing the gradients of the captured tensors over iterations.
# Recomputing the body trades one extra forward pass of the body for not
# storing its intermediate values. The stacks are outputs of the recorded
# step too: a second-order gradient reads them in the backward loop, and
# the gradient reaching row i joins the gradient of iteration i's values.
# Stacking needs loop values of fixed shape; a loop whose body assigns
# variables is not differentiated (both raise when differentiated).
def _recorded_loop(loop_cond, loop_body, flat, invariants, maximum_iterations):
    n = len(flat)
    float_idx = [i for i, v in enumerate(flat) if v.dtype.is_floating]
    variable_shapes = [inv for inv in invariants if any(d is None for d in inv)]
    if variable_shapes:
        results, _, captures = _trace_loop(loop_cond, loop_body, flat, invariants, maximum_iterations)
        _record_loop_error(flat, results, captures, float_idx,
                           f"while_loop: gradients through a traced loop need loop variables of fixed shape, "
                           f"but a shape invariant is {variable_shapes[0]}")
        return results
    largest = max(int(np.prod(inv, dtype=np.int64)) for inv in invariants)
    capacity = None
    if maximum_iterations is not None and maximum_iterations * max(largest, 1) <= _PREALLOCATED_STACK_ELEMENTS:
        capacity = maximum_iterations
    stacks = [zeros((capacity or 0,) + inv, dtype=v.dtype) for v, inv in zip(flat, invariants)]
    counter = constant(0, dtype="int64")

    def stacking_body(values):
        current, k, rows = values[:n], values[n], values[n + 1:]
        following = loop_body(current)
        if capacity is None:
            pushed = [concat([s, expand_dims(v, 0)], 0) for s, v in zip(rows, current)]
        else:
            at = reshape(k, [1, 1])
            pushed = [tensor_scatter_nd_update(s, at, expand_dims(v, 0)) for s, v in zip(rows, current)]
        return following + [k + 1] + pushed

    results, assigned, captures = _trace_loop(
        lambda values: loop_cond(values[:n]), stacking_body, flat + [counter] + stacks,
        invariants + [()] + [(capacity,) + inv for inv in invariants], maximum_iterations)
    outputs, count, stacks = results[:n], results[n], results[n + 1:]
    if assigned:
        _record_loop_error(flat, outputs, captures, float_idx,
                           f"while_loop: gradients through a traced loop whose body assigns variables "
                           f"({', '.join(v.name for v in assigned)}) are not supported")
        return outputs
    captures = _float_unique(captures)

    float_stacks = [stacks[i] for i in float_idx]
    nf = len(float_idx)

    def gradient(*upstream):
        # upstream: the gradients of the float outputs, then of their stacks
        # (nonzero only when a higher-order gradient reads the stacks).
        stack_grads = upstream[nf:]

        def backward_body(j, *grads):
            at = count - 1 - j
            values = [_stack_row(s, at) for s in stacks]
            float_values = [values[i] for i in float_idx]
            with GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(float_values + captures)
                following = loop_body(values)
            partials = tape.gradient([following[i] for i in float_idx], float_values + captures,
                                     output_gradients=list(grads[:nf]), unconnected_gradients="zero")
            value_grads = [p + _stack_row(g, at) for p, g in zip(partials[:nf], stack_grads)]
            sums = [a + b for a, b in zip(grads[nf:], partials[nf:])]
            return [j + 1] + value_grads + sums

        initial = [constant(0, dtype="int64")] + list(upstream[:nf]) + [zeros_like(c) for c in captures]
        final = while_loop(lambda j, *_: j < count, backward_body, initial, maximum_iterations=maximum_iterations)
        return list(final[1:])

    _autodiff_tape.record_custom_gradient([flat[i] for i in float_idx] + captures,
                                          [outputs[i] for i in float_idx] + float_stacks, gradient)
    return outputs


def _stack_row(stack, at):
    """stack[at], for the backward loop. Its own gradient (second order)
    writes the row into zeros_like(stack), which, unlike gather's gradient,
    works for a stack whose length the trace does not know."""
    with _autodiff_tape.recording_paused():
        row = gather(stack, at)
    if stack.dtype.is_floating and _autodiff_tape.is_recording():
        def gradient(grad):
            return [tensor_scatter_nd_update(zeros_like(stack), reshape(at, [1, 1]), expand_dims(grad, 0))]
        _autodiff_tape.record_custom_gradient([stack], [row], gradient)
    return row


def _float_unique(tensors):
    seen, out = set(), []
    for t in tensors:
        key = _C._handle_key(t)
        if t.dtype.is_floating and key not in seen:
            seen.add(key)
            out.append(t)
    return out


def _record_loop_error(flat, outputs, captures, float_idx, message):
    """Records the loop so that differentiating through it raises `message`
    instead of silently giving no gradient."""
    if not float_idx:
        return

    def gradient(*upstream):
        raise ValueError(message)

    _autodiff_tape.record_custom_gradient([flat[i] for i in float_idx] + _float_unique(captures),
                                          [outputs[i] for i in float_idx], gradient)

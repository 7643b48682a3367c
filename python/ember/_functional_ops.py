"""TensorFlow's higher-order functions: map_fn, vectorized_map, scan, foldl, foldr and switch_case.

Note [Functional ops as loops]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each op is a loop over the rows (axis 0) of `elems`, written with
ember.while_loop and TensorArrays, as TensorFlow writes them. Eagerly that
loop is Python and a gradient tape records each step; inside
@ember.function it is one while_loop op (the arrays travel through it as
dense buffers, Note [TensorArray representation]), and gradients flow
through it as through any traced loop (Note [while_loop gradients]).
When the trace does not know the number of rows (an input_signature with
None), the results grow by a row per iteration: they can be used inside
the function, but a function cannot return a value whose shape is known
only at run time yet (docs/functions.md), and such a loop is not
differentiated.
"""

import contextlib

from ember import _C, _control_flow, _creation, _movement, nest
from ember.autodiff import _tape as _autodiff_tape
from ember.dtypes import DType, as_dtype, int32
from ember.function import SubTrace, TensorSpec, current_trace
from ember._generated import ops
from ember._strings import _dispatch
from ember._tensor import Tensor
from ember._tensor_array import TensorArray


def _tensor(value):
    return value if isinstance(value, Tensor) else _C.convert_to_tensor(value, None)


def _rows(flat, what):
    """The common number of rows of the flattened elems: an int, or, when the trace does
    not know it, an int32 tensor computed at run time."""
    if not flat:
        raise ValueError(f"{what}: elems must hold at least one tensor")
    counts = set()
    for t in flat:
        if len(t.shape) == 0:
            raise ValueError(f"{what}: elements in elems must be at least rank 1, got a scalar")
        counts.add(t.shape[0])
    if None in counts:  # Note [Functional ops as loops]: the results grow row by row
        return _dispatch.shape(flat[0])[0]
    if len(counts) != 1:
        raise ValueError(f"{what}: all tensors in elems must have the same number of rows, got {sorted(counts)}")
    return counts.pop()


def _row(structure, flat, i):
    return nest.pack_sequence_as(structure, [_dispatch.gather(t, i) for t in flat])


def _spec_dtypes(signature):
    """The dtypes of a fn_output_signature (a DType, a TensorSpec or a structure of them), flat."""

    def one(spec):
        if isinstance(spec, TensorSpec):
            return spec.dtype
        return as_dtype(spec)

    if isinstance(signature, (DType, TensorSpec, str)):
        return [one(signature)]
    return [one(s) for s in nest.flatten(signature)]


def _conform(out, signature, what):
    """fn's result, checked against (and Python values converted to) the declared dtypes."""
    flat = nest.flatten(out)
    if signature is None:
        return out, [_tensor(v) for v in flat]
    dtypes = _spec_dtypes(signature)
    if len(dtypes) != len(flat):
        raise ValueError(f"{what}: fn returned {len(flat)} values but fn_output_signature describes {len(dtypes)}")
    converted = []
    for v, d in zip(flat, dtypes):
        t = v if isinstance(v, Tensor) else _C.convert_to_tensor(v, d)
        if t.dtype != d:
            raise TypeError(f"{what}: fn returned a {t.dtype.name} tensor where fn_output_signature says {d.name}")
        converted.append(t)
    return out, converted


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """Applies `fn` to each row of `elems` and stacks the results (``tf.map_fn``).

    `elems` is a tensor or a nested structure of tensors with the same
    number of rows; fn gets the same structure of rows. Its results, a
    structure described by `fn_output_signature` (or the deprecated
    `dtype`) when it differs from elems', are stacked along a new axis 0.
    See Note [Functional ops as loops].
    """
    del parallel_iterations, swap_memory, infer_shape, name
    signature = fn_output_signature if fn_output_signature is not None else dtype
    flat = [_tensor(t) for t in nest.flatten(elems)]
    n = _rows(flat, "map_fn")
    if isinstance(n, int) and n == 0:
        return _empty_result(fn, elems, flat, signature)
    known = not isinstance(n, Tensor)
    if known and (current_trace() is None or n <= _CHUNK):
        # Eagerly a Python loop, recorded op by op; in a trace, a few rows unroll.
        results = [_conform(fn(_row(elems, flat, i)), signature, "map_fn") for i in range(n)]
        stacked = [_dispatch.stack(list(column)) for column in zip(*(r[1] for r in results))]
        return nest.pack_sequence_as(results[0][0], stacked)
    # Traced: one throwaway trace of fn finds its result structure.
    found = {}

    def probe_fn():
        found["structure"], outs = _conform(fn(_row(elems, flat, 0)), signature, "map_fn")
        return outs

    probe = SubTrace(probe_fn, [])
    structure = found["structure"]
    arrays = [TensorArray(t.dtype, size=n, element_shape=t.shape) for t in probe.structure]
    chunk = _CHUNK if known else 1  # Note [map_fn chunks]

    def body(c, arrays):
        first = c * chunk
        rows = [_conform(fn(_row(elems, flat, first + k)), signature, "map_fn")[1] for k in range(chunk)]
        if chunk == 1:
            return c + 1, [a.write(first, o) for a, o in zip(arrays, rows[0])]
        at = _movement.range(chunk) + first
        return c + 1, [a.scatter(at, _dispatch.stack(list(column))) for a, column in zip(arrays, zip(*rows))]

    loops = n // chunk if known else n
    _, arrays = _control_flow.while_loop(lambda c, _: c < loops, body,
                                         [_creation.constant(0, dtype=int32), arrays], back_prop=back_prop)
    for i in range(loops * chunk, n) if known else ():  # the rows after the last whole chunk
        arrays = [a.write(i, o) for a, o in zip(arrays, _conform(fn(_row(elems, flat, i)), signature, "map_fn")[1])]
    return nest.pack_sequence_as(structure, [a.stack() for a in arrays])


# Note [map_fn chunks]: writing one row into the loop's result buffer
# (tensor_scatter_nd_update on a loop variable) copies the whole buffer, so
# a loop of n single-row writes costs O(n^2) copying (2,000 rows of 256
# floats: 0.28 s a call, against 0.02 s eagerly). A traced map_fn or scan
# with a known number of rows therefore unrolls up to _CHUNK rows outright,
# and beyond that runs fn on _CHUNK rows per iteration (unrolled in the
# body) and writes them with one scatter: n / _CHUNK copies of the buffer
# (0.017 s a call), at the price of tracing fn _CHUNK times.
_CHUNK = 32


def _empty_result(fn, elems, flat, signature):
    del fn, elems, flat
    if signature is None or not all(isinstance(s, TensorSpec) for s in nest.flatten(signature)):
        raise ValueError("map_fn: elems has no rows, so fn_output_signature must give each result's TensorSpec")
    return nest.map_structure(lambda s: ops.zeros((0,) + tuple(s.shape), dtype=s.dtype), signature)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``tf.vectorized_map``: the result of map_fn(fn, elems).

    Ember does not vectorize `fn` (TensorFlow's pfor rewrite); it runs it
    per row, as TensorFlow does when pfor cannot convert an op
    (fallback_to_while_loop), with the same results.
    """
    del fallback_to_while_loop, warn
    return map_fn(fn, elems)


def _scan(fn, elems, initializer, reverse, keep, what, back_prop=True):
    """The accumulator after each row (keep=True) or only the final one."""
    flat = [_tensor(t) for t in nest.flatten(elems)]
    n = _rows(flat, what)
    known = not isinstance(n, Tensor)
    if keep and reverse and not known:
        raise ValueError(f"{what}: reverse=True needs the number of rows of elems when the function is traced")
    step = -1 if reverse else 1
    first = None
    if initializer is None:
        if known and n == 0:
            raise ValueError(f"{what}: elems has no rows and there is no initializer")
        first = n - 1 if reverse else 0
        acc = _row(elems, flat, first)
        start = first + step
    else:
        acc = nest.map_structure(_tensor, initializer)
        start = n - 1 if reverse else 0
    acc_flat = nest.flatten(acc)
    arrays = [TensorArray(a.dtype, size=n, element_shape=a.shape, clear_after_read=False) for a in acc_flat]
    if keep and first is not None:
        arrays = [ta.write(first, a) for ta, a in zip(arrays, acc_flat)]

    def advance(acc, i):
        new = fn(acc, _row(elems, flat, i))
        new_flat = [v if isinstance(v, Tensor) else _C.convert_to_tensor(v, a.dtype)
                    for v, a in zip(nest.flatten(new), acc_flat)]
        if len(nest.flatten(new)) != len(acc_flat):
            raise ValueError(f"{what}: fn must return the structure of the accumulator")
        return nest.pack_sequence_as(acc, new_flat), new_flat

    def unrolled(acc, arrays, indices):
        for i in indices:
            acc, new_flat = advance(acc, i)
            if keep:
                arrays = [ta.write(i, v) for ta, v in zip(arrays, new_flat)]
        return acc, arrays

    traced = current_trace() is not None
    carried = arrays if keep else []  # a fold carries only its accumulator
    if not known:  # one row per iteration; the arrays grow (Note [Functional ops as loops])
        def body(i, acc, carried):
            return (i + step,) + unrolled(acc, carried, [i])

        start = start if isinstance(start, Tensor) else _creation.constant(start, dtype=int32)
        _, final, carried = _control_flow.while_loop(lambda i, acc, carried: i >= 0 if reverse else i < n, body,
                                                     [start, acc, carried], back_prop=back_prop)
        return nest.pack_sequence_as(acc, [ta.stack() for ta in carried]) if keep else final
    count = start + 1 if reverse else n - start  # the rows left to visit
    loops = count // _CHUNK if traced and count > _CHUNK else 0  # Note [map_fn chunks]
    if loops:
        def chunk_body(c, acc, carried):
            return (c + 1,) + _chunk_step(advance, acc, carried, start + step * _CHUNK * c, step)

        _, acc, carried = _control_flow.while_loop(lambda c, acc, carried: c < loops, chunk_body,
                                                   [_creation.constant(0, dtype=int32), acc, carried],
                                                   back_prop=back_prop)
        arrays = carried if keep else arrays
    tail = [start + step * k for k in range(loops * _CHUNK, count)]
    with _autodiff_tape.recording_paused() if not back_prop else contextlib.nullcontext():
        final, arrays = unrolled(acc, arrays, tail)
    if not keep:
        return final
    return nest.pack_sequence_as(acc, [ta.stack() for ta in arrays])


def _chunk_step(advance, acc, arrays, base, step):
    """_CHUNK steps of a scan, unrolled, and their accumulators written with one scatter each."""
    rows = []
    for k in range(_CHUNK):
        acc, new_flat = advance(acc, base + step * k)
        rows.append(new_flat)
    if not arrays:
        return acc, arrays
    at = base + step * _movement.range(_CHUNK)
    return acc, [ta.scatter(at, _dispatch.stack(list(column))) for ta, column in zip(arrays, zip(*rows))]


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """Accumulates ``acc = fn(acc, row)`` over the rows of `elems` and stacks every
    accumulator (``tf.scan``). Without `initializer` the first row (the last with
    `reverse`) starts the accumulation and is the first result."""
    del parallel_iterations, swap_memory, infer_shape, name
    return _scan(fn, elems, initializer, bool(reverse), True, "scan", back_prop)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """The final ``acc = fn(acc, row)`` over the rows of `elems`, first to last (``tf.foldl``)."""
    del parallel_iterations, swap_memory, name
    return _scan(fn, elems, initializer, False, False, "foldl", back_prop)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """The final ``acc = fn(acc, row)`` over the rows of `elems`, last to first (``tf.foldr``)."""
    del parallel_iterations, swap_memory, name
    return _scan(fn, elems, initializer, True, False, "foldr", back_prop)


def switch_case(branch_index, branch_fns, default=None, name=None):
    """Runs ``branch_fns[branch_index]()`` (``tf.switch_case``).

    `branch_fns` is a list of callables, or a dict or list of (int, callable)
    pairs. An index with no branch runs `default`, or the last branch when
    there is no default. Inside @ember.function with a traced index the
    branches become nested ember.cond ops, so they must return the same
    structure of tensors.
    """
    del name
    if isinstance(branch_fns, dict):
        pairs = sorted(branch_fns.items())
    else:
        branch_fns = list(branch_fns)
        pairs = [p if isinstance(p, tuple) else (k, p) for k, p in enumerate(branch_fns)]
    if not pairs:
        raise ValueError("switch_case: branch_fns must not be empty")
    for key, fn in pairs:
        if not isinstance(key, int) or not callable(fn):
            raise TypeError("switch_case: branch_fns must map ints to callables")
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"switch_case: duplicate branch index in {keys}")
    fallback = default if default is not None else pairs[-1][1]
    index = _tensor(branch_index)
    if index.dtype != int32 or len(index.shape) != 0:
        raise TypeError(f"switch_case: branch_index must be a scalar int32, got {index.dtype.name} of shape "
                        f"{tuple(index.shape)}")
    if not _C._is_symbolic(index):
        return dict(pairs).get(int(index), fallback)()
    chain = pairs if default is not None else pairs[:-1]

    def build(k):
        if k == len(chain):
            return fallback()
        key, fn = chain[k]
        return _control_flow.cond(_dispatch.equal(index, key), fn, lambda: build(k + 1))

    return build(0)

"""What converted control flow calls at run time (the `_ag` of _transform.py).

Each helper looks at its condition or iterable: a symbolic tensor (inside
@ember.function) becomes ember.cond or ember.while_loop; anything else runs
as the Python statement would have.
"""

import inspect

from ember import _C
from ember._tensor import Tensor
from ember._control_flow import cond, while_loop
from ember._generated.ops import cast
from ember._movement import range as ember_range
from ember._selection import where
from ember._strings._dispatch import gather, shape


class _Undefined:
    """The value of a variable not bound yet when a statement starts."""

    def __repr__(self):
        return "<undefined>"


UNDEFINED = _Undefined()


def ld(read):
    """A variable's current value, or UNDEFINED if it has none yet."""
    try:
        return read()
    except NameError:  # an unbound local or free variable
        return UNDEFINED


def _symbolic(value):
    return isinstance(value, Tensor) and _C._is_symbolic(value)


def _require_defined(values, names, where):
    for name, value in zip(names, values):
        if value is UNDEFINED:
            raise ValueError(f"autograph: '{name}' must have a value before {where}, because the statement "
                             "runs in the graph and every variable it sets needs one on each path")


def _carried(values, names, local, where):
    """The positions of the variables a loop on a tensor carries. A variable first set in the
    loop body and read nowhere outside the loop (`local`, found by _transform.py) is a
    temporary of one iteration, as in TensorFlow's AutoGraph: it is not carried and stays
    unset after the loop. Every other variable needs a value before the loop."""
    keep = [k for k, (name, value) in enumerate(zip(names, values)) if not (value is UNDEFINED and name in local)]
    _require_defined([values[k] for k in keep], [names[k] for k in keep], where)
    return keep


def _with_locals(values, keep, carried):
    """All the loop's variables: the carried ones from `carried`, the temporaries unset."""
    full = [UNDEFINED if value is UNDEFINED else value for value in values]
    for k, value in zip(keep, carried):
        full[k] = value
    return full


def _checked_branch(fn, values, names, which):
    def branch():
        out = fn(*values)
        for name, value in zip(names, out):
            if value is UNDEFINED:
                raise ValueError(f"autograph: '{name}' is set in only one branch of an if on a tensor; "
                                 f"the {which} branch leaves it unset")
        return out
    return branch


def if_stmt(test, true_fn, false_fn, values, names, local=()):
    if not _symbolic(test):
        return true_fn(*values) if test else false_fn(*values)
    # A variable first set in a branch and read nowhere outside the if is the
    # branch's own temporary (`local`, from _transform.py): not an output.
    keep = [k for k, (name, value) in enumerate(zip(names, values)) if not (value is UNDEFINED and name in local)]
    kept_names = [names[k] for k in keep]

    def only_kept(fn):
        def run(*current):
            out = fn(*current)
            return [out[k] for k in keep]
        return run

    result = cond(test, _checked_branch(only_kept(true_fn), values, kept_names, "true"),
                  _checked_branch(only_kept(false_fn), values, kept_names, "false"))
    return tuple(_with_locals(values, keep, result)) if names else ()


class LazyRange:
    """`for i in ember.range(...)`: the call, made only if no bound is traced."""

    def __init__(self, range_fn, *args, **kwargs):
        self.range_fn, self.args, self.kwargs = range_fn, args, kwargs

    def symbolic(self):
        return any(_symbolic(v) for v in list(self.args) + list(self.kwargs.values()))

    def bounds(self):
        """(start, limit, delta) as tensors, with ember.range's argument rules."""
        bound = inspect.signature(ember_range).bind(*self.args, **self.kwargs)
        start, limit, delta = (bound.arguments.get(k) for k in ("start", "limit", "delta"))
        if limit is None:  # range(n) counts from 0
            start, limit = 0, start
        return [_C.convert_to_tensor(v, None) for v in (start, limit, 1 if delta is None else delta)]


def _for_range(lazy, body, values, names, local):
    keep = _carried(values, names, local, "a for loop over ember.range of a tensor")
    start, limit, delta = lazy.bounds()
    dtype = start.dtype if start.dtype == limit.dtype else limit.dtype
    start, limit, delta = (cast(v, dtype) for v in (start, limit, delta))

    def more(i, *_):
        return where(delta > 0, i < limit, i > limit)

    def step(i, *current):
        out = body(i, *_with_locals(values, keep, current))
        return (i + delta,) + tuple(out[k] for k in keep)

    return tuple(_with_locals(values, keep, while_loop(more, step, [start] + [values[k] for k in keep])[1:]))


def for_stmt(iterable, body, values, names, local=()):
    if isinstance(iterable, LazyRange):
        if iterable.symbolic():
            return _for_range(iterable, body, values, names, local)
        iterable = iterable.range_fn(*iterable.args, **iterable.kwargs)
    if not _symbolic(iterable):
        for item in iterable:
            values = body(item, *values)
        return values
    keep = _carried(values, names, local, "a for loop over a tensor")
    length = shape(iterable)[0]

    def more(i, *_):
        return i < length

    def step(i, *current):
        out = body(gather(iterable, i), *_with_locals(values, keep, current))  # row i
        return (i + 1,) + tuple(out[k] for k in keep)

    result = while_loop(more, step, [_C.convert_to_tensor(0, None)] + [values[k] for k in keep])
    return tuple(_with_locals(values, keep, result[1:]))


def while_stmt(test_fn, body, values, names, local=()):
    while True:
        test = test_fn(*values)
        if _symbolic(test):
            break
        if not test:
            return values
        values = body(*values)
    keep = _carried(values, names, local, "a while loop on a tensor")

    def more(*current):
        return test_fn(*_with_locals(values, keep, current))

    def step(*current):
        out = body(*_with_locals(values, keep, current))
        return tuple(out[k] for k in keep)

    return tuple(_with_locals(values, keep, while_loop(more, step, [values[k] for k in keep])))

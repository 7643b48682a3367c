"""Runtime entry points that are not ops: the open-domain execute and sync."""

import functools

from ember import _C
from ember._checks import check_str


def execute(op_name, inputs, attrs=None):
    """Runs any registered op by name: the open-domain entry point.

    ``inputs`` are given in the op's declaration order; ``attrs`` is a dict
    by attribute name (missing ones take their defaults)::

        ember.execute("matmul", [a, b], {"transpose_b": True})

    Returns a Tensor, or a tuple of Tensors for multi-output ops.
    """
    check_str(op_name, "execute", "op_name")
    if isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__iter__"):
        raise TypeError(f"execute: inputs must be a list of tensors, got {type(inputs).__name__}")
    if attrs is not None and not isinstance(attrs, dict):
        raise TypeError(f"execute: attrs must be a dict by attribute name, got {type(attrs).__name__}")
    return _C.execute(op_name, list(inputs), dict(attrs or {}))


def sync():
    """Waits for all pending work on every device.

    Raises the first error of an asynchronously failed kernel among the ops
    this thread issued, unless it was already raised (by reading a value
    downstream of it, or by an earlier ``sync()``); see "Errors" in
    docs/architecture.md.
    """
    _C.sync()


def composite(func):
    """Marks a Python function that issues several ops (Note [Async error
    routing]): if it raises, the asynchronous errors of the ops it already
    issued are dropped, since its own exception reports the failed call."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        mark = _C._issue_mark()
        try:
            return func(*args, **kwargs)
        except BaseException:
            _C._abandon_since(mark)
            raise

    return wrapper

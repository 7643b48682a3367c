"""Runtime entry points that are not ops: the open-domain execute and sync."""

from ember import _C


def execute(op_name, inputs, attrs=None):
    """Runs any registered op by name: the open-domain entry point.

    ``inputs`` are given in the op's declaration order; ``attrs`` is a dict
    by attribute name (missing ones take their defaults)::

        ember.execute("matmul", [a, b], {"transpose_b": True})

    Returns a Tensor, or a tuple of Tensors for multi-output ops.
    """
    return _C.execute(op_name, list(inputs), dict(attrs or {}))


def sync():
    """Waits for all pending work on every device.

    Raises the first error of an asynchronously failed kernel that has not
    been raised by ``sync()`` yet (each such error is raised once).
    """
    _C.sync()

"""ember.device: the thread-local device scope."""

from ember import _C
from ember._checks import check_str


class device:  # noqa: N801 - TensorFlow's name
    """``with ember.device("cpu:0"):`` places ops in the block on that device.

    Scopes nest and are per thread. Names: ``"cpu"``, ``"cpu:0"``,
    ``"/device:CPU:0"``. An unknown device raises ``ValueError`` at once.
    ``ember.device(None)`` clears the scope inside its block, as in
    TensorFlow: ops are placed by the default rules.
    """

    def __init__(self, name):
        self.name = None if name is None else _C._canonical_device(check_str(name, "ember.device", "name"))

    def __enter__(self):
        if self.name is None:
            _C._push_no_device_scope()
        else:
            _C._push_device_scope(self.name)
        return self

    def __exit__(self, *exc):
        _C._pop_device_scope()
        return False

    def __repr__(self):
        return f"ember.device({self.name!r})"


def list_devices():
    """Names of the devices this process can use, e.g. ``['cpu:0']``."""
    return _C.list_devices()

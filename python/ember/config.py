"""Runtime settings: execution mode, placement logging, the kernel cache.

``EMBER_ASYNC=0`` in the environment starts Ember in synchronous mode and
``EMBER_LOG_PLACEMENT=1`` logs every placement decision to stderr.
"""

from ember import _C
from ember._checks import check_int, check_str


def set_async(enabled):
    """Async mode (the default): ops return at once and run on the device's
    executor; kernel errors surface when a value is read or at
    ``ember.sync()``. Sync mode runs each kernel before the call returns and
    raises kernel errors at the call."""
    _C.set_async(bool(enabled))


def is_async():
    return _C.is_async()


def set_log_device_placement(enabled):
    """Print each op's device and the rule that chose it to stderr."""
    _C.set_log_device_placement(bool(enabled))


def get_log_device_placement():
    return _C.get_log_device_placement()


def kernel_cache_stats():
    """Returns ``{'hits', 'misses', 'evictions', 'size', 'capacity'}``."""
    return _C.kernel_cache_stats()


def clear_kernel_cache():
    _C.kernel_cache_clear()


def set_kernel_cache_capacity(capacity):
    """Bounds the kernel cache to ``capacity`` kernels (least recently used
    ones are evicted; 4096 by default)."""
    _C.set_kernel_cache_capacity(check_int(capacity, "set_kernel_cache_capacity", "capacity", minimum=0,
                                           maximum=2**62))


def run_functions_eagerly(enabled):
    """Run every ``@ember.function`` as plain Python, op by op, for debugging
    (``tf.config.run_functions_eagerly``)."""
    from ember.function import run_functions_eagerly as set_eager  # the module, not ember.function the decorator

    set_eager(enabled)


def functions_run_eagerly():
    from ember.function import functions_run_eagerly as eager

    return eager()


def memory_stats(device="cpu:0"):
    """``{'bytes_in_use', 'peak_bytes_in_use'}`` of the device's allocator
    (tensor buffers; the peak since the last ``reset_peak_memory_stats``)."""
    return _C.memory_stats(check_str(device, "memory_stats", "device"))


def reset_peak_memory_stats(device="cpu:0"):
    _C.reset_peak_memory_stats(check_str(device, "reset_peak_memory_stats", "device"))


def set_trace_cache_capacity(capacity):
    """Bounds how many traces each ``@ember.function`` keeps (128 by
    default); past that the oldest is dropped and retraced if called again.
    ``Function.trace_cache_stats()`` reports a function's cache."""
    from ember.function import set_trace_cache_capacity as set_capacity

    set_capacity(capacity)


def get_trace_cache_capacity():
    from ember.function import trace_cache_capacity

    return trace_cache_capacity()

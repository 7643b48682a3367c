"""Per-thread state that the lower layers read and the higher layers own.

Note [Layer hooks]: a Variable (the variables layer) must know whether
ember.function is tracing and whether a GradientTape is recording, but
function.py and autodiff/_tape.py sit above it (docs/architecture.md,
"Python package layers"). So the state lives here, below both: function.py
sets the current trace, autodiff/_tape.py counts active tapes, and each
installs the callbacks below when it is imported. The defaults are what
holds while nothing of the higher layer has run.
"""

import contextlib
import threading


class HostCallbackInTrace(BaseException):
    """Raised by py_function / numpy_function (and host-side string ops) while a
    function traces (Note [py_function in functions]). A BaseException, so that
    a user's `except Exception` in the traced code does not swallow it."""


class _TraceState(threading.local):
    # A class-level default: reading `trace` on a thread that never set it
    # finds None here instead of raising (and catching) an AttributeError,
    # which cost about 350 ns per current_trace() call.
    trace = None


# The trace in progress on this thread: function.py sets `trace`.
trace_state = _TraceState()


def current_trace():
    """The trace in progress on this thread, or None."""
    return trace_state.trace


# Tapes between __enter__ and __exit__, over all threads (autodiff/_tape.py
# keeps it): Variable reads look at the thread's tapes only when it is non-zero.
active_tape_count = 0


def _no_variable_creation(initial_value):
    raise RuntimeError("a variable was created in a trace before ember.function was loaded")


# Set by autodiff/_tape.py: variable_read(variable, value) makes a value read
# watched on the thread's tapes; recording_paused() is a context manager.
variable_read = None
recording_paused = contextlib.nullcontext
# Set by ember.distribute: trace_key_extra() is None, or a value that
# ember.function adds to its trace cache key, so that the replicas of a
# strategy's run each trace their own graph (Note [Traces per replica] in
# distribute/_distribution_context.py).
trace_key_extra = lambda: None  # noqa: E731
# Set by ember.distribute: replicas_in_sync() is the number of replicas that
# sum their gradients, or None in the cross-replica context (ember.nn's loss
# scaling, python/ember/_loss_scaling.py, sits below the strategies).
replicas_in_sync = lambda: 1  # noqa: E731
# Set by function.py: a context manager, entered by Variable() inside a trace,
# that checks the trace may create the variable and runs its block eagerly.
variable_creation_in_trace = _no_variable_creation

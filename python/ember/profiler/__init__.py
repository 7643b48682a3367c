"""ember.profiler: where a program's time goes, op by op.

While recording, every op leaves a *dispatch* span on the thread that
called it (from the Python call to the returned tensor, with whether the
kernel cache hit) and a *kernel* span on the thread that ran its kernel
(the device's executor, the caller in sync mode, or a graph executor's
thread for the nodes of an ``@ember.function``), with the device, the
input and output shapes and dtypes and the bytes they hold; an arrow
joins the two. Copies between devices and ``Trace`` annotations are spans
too. The result is a Chrome trace (JSON) that ``chrome://tracing`` and
https://ui.perfetto.dev open, and a table of the ops that took the most
time (``summary``). docs/profiling.md shows one.

Names follow ``tf.profiler.experimental``: ``start``/``stop``, ``Profile``
and ``Trace``, also under ``ember.profiler.experimental``;
``trace(path)`` is the short form of ``Profile``. Recording off costs one
branch per op (Note [Profiler] in csrc/runtime/profiler.h).
"""

from ember.profiler import experimental
from ember.profiler._recording import Profile, ProfileResult, Trace, last_result, start, stop, summary, trace

__all__ = ["Profile", "ProfileResult", "Trace", "experimental", "last_result", "start", "stop", "summary", "trace"]

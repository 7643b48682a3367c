"""SummaryWriter, the default writer and step, and record_if (``tf.summary``'s state).

The default writer, the default step and the recording condition are
per-thread, as TensorFlow keeps them; ``writer.as_default()`` nests.
"""

import contextlib
import itertools
import os
import socket
import threading
import time

import numpy as np

from ember.summary import _event

_state = threading.local()
_file_ids = itertools.count()


def _stack(name):
    if not hasattr(_state, name):
        setattr(_state, name, [])
    return getattr(_state, name)


class SummaryWriter:
    """Writes summaries to one event file (``tf.summary.SummaryWriter``). Use ``as_default()`` to make
    it the writer that ``scalar``, ``histogram`` and ``text`` write to."""

    def __init__(self, logdir=None, max_queue=10, filename_suffix=""):
        self._file = None
        self._pending = 0
        self._max_queue = 10 if max_queue is None else max(int(max_queue), 1)
        if logdir is None:  # create_noop_writer
            return
        from ember.io._tfrecord import TFRecordWriter
        self.logdir = os.fspath(logdir)
        os.makedirs(self.logdir, exist_ok=True)
        # TensorFlow 2's name: events.out.tfevents.<seconds>.<host>.<pid>.<id>.v2
        name = (f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}.{os.getpid()}."
                f"{next(_file_ids)}.v2{filename_suffix or ''}")
        self.path = os.path.join(self.logdir, name)
        self._file = TFRecordWriter(self.path)
        self._append({"wall_time": time.time(), "file_version": _event.FILE_VERSION})
        self.flush()

    def _append(self, event):
        if self._file is None:
            return
        self._file.write(_event.encode_event(event))
        self._pending += 1
        if self._pending >= self._max_queue:
            self.flush()

    def write_value(self, value, step):
        """Appends one Summary.Value (a dict of the _event schema) at ``step``."""
        self._append({"wall_time": time.time(), "step": int(step), "summary": {"value": [value]}})

    def init(self):
        pass

    def set_as_default(self, step=None):
        """Makes this the default writer for the rest of the thread (and sets the step if given)."""
        _stack("writers")[:] = [self]
        if step is not None:
            set_step(step)

    @contextlib.contextmanager
    def as_default(self, step=None):
        """The default writer (and, with ``step``, the default step) inside the ``with`` block."""
        writers = _stack("writers")
        writers.append(self)
        previous_step = get_step()
        if step is not None:
            set_step(step)
        try:
            yield self
        finally:
            writers.pop()
            if step is not None:
                set_step(previous_step)
            self.flush()

    def flush(self):
        if self._file is not None:
            self._file.flush()
            self._pending = 0

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - the interpreter may be shutting down
            pass


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None):
    """A SummaryWriter writing an event file into ``logdir`` (made if missing). Events are buffered
    and written every ``max_queue`` events (10), on ``flush()``, at the end of ``as_default()``
    blocks and on ``close()``; ``flush_millis`` is accepted and not used."""
    del flush_millis, name, experimental_trackable, experimental_mesh
    return SummaryWriter(logdir, max_queue=max_queue, filename_suffix=filename_suffix)


def create_noop_writer():
    """A writer that writes nothing."""
    return SummaryWriter(None)


def default_writer():
    writers = _stack("writers")
    return writers[-1] if writers else None


def flush(writer=None, name=None):
    """Flushes ``writer`` (default: the default writer)."""
    del name
    writer = writer or default_writer()
    if writer is not None:
        writer.flush()


def _as_int(step):
    if hasattr(step, "numpy"):
        step = step.numpy()
    return int(np.asarray(step))


def set_step(step):
    """The default step of ``scalar``, ``histogram`` and ``text`` in this thread (an int, a tensor or
    a variable such as ``optimizer.iterations``, read when a summary is written); None clears it."""
    _state.step = step


def get_step():
    return getattr(_state, "step", None)


def resolve_step(step):
    if step is None:
        step = get_step()
    if step is None:
        raise ValueError("No step set: pass step= or call ember.summary.experimental.set_step()")
    return _as_int(step)


@contextlib.contextmanager
def record_if(condition):
    """Summaries are written inside the block only while ``condition`` (a bool, or a callable returning
    one, evaluated at each write) holds."""
    conditions = _stack("conditions")
    conditions.append(condition)
    try:
        yield
    finally:
        conditions.pop()


def should_record_summaries():
    """Whether a summary written now would be recorded: a default writer exists and record_if allows it."""
    if default_writer() is None:
        return False
    for condition in _stack("conditions"):
        value = condition() if callable(condition) else condition
        if hasattr(value, "numpy"):
            value = value.numpy()
        if not bool(value):
            return False
    return True

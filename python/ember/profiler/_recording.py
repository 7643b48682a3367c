"""The profiler's recording sessions and results (ember.profiler).

While recording, every op leaves a *dispatch* span on the thread that
called it (from the Python call to the returned tensor, with whether the
kernel cache hit) and a *kernel* span on the thread that ran its kernel
(the device's executor, the caller in sync mode, or a graph executor's
thread for the nodes of an ``@ember.function``), with the device, the
input and output shapes and dtypes, and the bytes they hold; an arrow
joins the two. Copies between devices and ``Trace`` annotations are spans
too. The result is a Chrome trace (JSON) that ``chrome://tracing`` and
https://ui.perfetto.dev open, and a table of the ops that took the most
time (``summary``).

Names follow ``tf.profiler.experimental``: ``start``/``stop``, ``Profile``
and ``Trace``; ``trace(path)`` is the short form of ``Profile``. Recording
off costs one branch per op (Note [Profiler] in csrc/runtime/profiler.h).
"""

import collections
import contextlib
import json
import os
import threading

from ember import _C
from ember._checks import safe_repr
from ember._runtime import sync

_lock = threading.Lock()
_session = None  # (output path or None, start ns) while recording
_last_result = None

_DEFAULT_FILE = "ember_trace.json"


class ProfileResult:
    """The events of one recording: ``events`` (dicts with ``name``,
    ``category``, ``start_ns``, ``end_ns``, ``thread_id``, ``thread_name``,
    ``flow`` and ``args``), ``chrome_trace()``, ``save(path)`` and
    ``summary()``."""

    def __init__(self, threads, start_ns, end_ns):
        self.start_ns = start_ns
        self.end_ns = end_ns
        python_names = {t.native_id: f"python {t.name}" for t in threading.enumerate() if t.native_id}
        self.events = []
        self.thread_names = {}
        for thread_id, thread_name, events in threads:
            name = thread_name or python_names.get(thread_id, f"thread {thread_id}")
            self.thread_names[thread_id] = name
            for ev_name, category, start, end, flow, args in events:
                self.events.append({
                    "name": ev_name, "category": category, "start_ns": start, "end_ns": end,
                    "thread_id": thread_id, "thread_name": name, "flow": flow,
                    "args": json.loads("{" + args + "}"),
                })
        self.events.sort(key=lambda e: e["start_ns"])

    def chrome_trace(self):
        """The trace as a dict in the Chrome trace event format (times in microseconds)."""
        pid = os.getpid()
        base = self.start_ns

        def us(ns):
            return (ns - base) / 1000.0

        out = [{"ph": "M", "pid": pid, "name": "process_name", "args": {"name": "ember"}}]
        for thread_id, name in sorted(self.thread_names.items()):
            out.append({"ph": "M", "pid": pid, "tid": thread_id, "name": "thread_name", "args": {"name": name}})
        for e in self.events:
            out.append({"ph": "X", "pid": pid, "tid": e["thread_id"], "name": e["name"], "cat": e["category"],
                        "ts": us(e["start_ns"]), "dur": max(us(e["end_ns"]) - us(e["start_ns"]), 0.001),
                        "args": e["args"]})
            if e["flow"]:  # the arrow from an op's dispatch to its kernel
                start = e["category"] == "dispatch"
                out.append({"ph": "s" if start else "f", "pid": pid, "tid": e["thread_id"], "name": "launch",
                            "cat": "flow", "id": e["flow"], "ts": us(e["end_ns"] if start else e["start_ns"]),
                            **({} if start else {"bp": "e"})})
        return {"traceEvents": out, "displayTimeUnit": "ns",
                "otherData": {"producer": "ember.profiler", "duration_ns": self.end_ns - self.start_ns}}

    def save(self, path):
        """Writes the Chrome trace JSON to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.chrome_trace(), f)
        return path

    def op_stats(self):
        """Per op: calls, kernel time and dispatch time (ns), as a dict of dicts."""
        stats = collections.defaultdict(lambda: {"calls": 0, "kernels": 0, "kernel_ns": 0, "kernel_min_ns": None,
                                                 "kernel_max_ns": 0, "dispatch_ns": 0, "cache_misses": 0,
                                                 "bytes": 0})
        for e in self.events:
            if e["category"] == "user":
                continue
            s = stats[e["name"]]
            duration = e["end_ns"] - e["start_ns"]
            if e["category"] == "dispatch":
                s["calls"] += 1
                s["dispatch_ns"] += duration
                s["cache_misses"] += e["args"].get("kernel_cache") == "miss"
            elif e["category"] in ("kernel", "copy"):
                s["kernels"] += 1
                s["kernel_ns"] += duration
                s["kernel_max_ns"] = max(s["kernel_max_ns"], duration)
                s["kernel_min_ns"] = duration if s["kernel_min_ns"] is None else min(s["kernel_min_ns"], duration)
                s["bytes"] += e["args"].get("bytes", 0)
        return dict(stats)

    def summary(self, sort_by="kernel_total", top=20):
        """A table of the ``top`` ops by ``sort_by`` (``kernel_total``,
        ``dispatch_total``, ``calls``), like torch.profiler's
        ``key_averages().table()``."""
        keys = {"kernel_total": "kernel_ns", "dispatch_total": "dispatch_ns", "calls": "calls"}
        if sort_by not in keys:
            raise ValueError(f"summary: sort_by must be one of {', '.join(keys)}, got {safe_repr(sort_by)}")
        stats = self.op_stats()
        rows = sorted(stats.items(), key=lambda kv: kv[1][keys[sort_by]], reverse=True)[:top]
        kernel_total = sum(s["kernel_ns"] for s in stats.values()) or 1
        header = (f"{'op':<28}{'calls':>8}{'kernels':>9}{'kernel total':>14}{'%':>7}{'kernel mean':>13}"
                  f"{'kernel max':>12}{'dispatch total':>16}{'dispatch mean':>15}{'cache miss':>12}")
        lines = [header, "-" * len(header)]
        for name, s in rows:
            mean_kernel = s["kernel_ns"] / s["kernels"] if s["kernels"] else 0
            mean_dispatch = s["dispatch_ns"] / s["calls"] if s["calls"] else 0
            lines.append(f"{name[:27]:<28}{s['calls']:>8}{s['kernels']:>9}{_time(s['kernel_ns']):>14}"
                         f"{100.0 * s['kernel_ns'] / kernel_total:>6.1f}%{_time(mean_kernel):>13}"
                         f"{_time(s['kernel_max_ns']):>12}{_time(s['dispatch_ns']):>16}{_time(mean_dispatch):>15}"
                         f"{s['cache_misses']:>12}")
        lines.append("-" * len(header))
        lines.append(f"{len(self.events)} events over {_time(self.end_ns - self.start_ns)}; "
                     f"kernel time {_time(sum(s['kernel_ns'] for s in stats.values()))}, "
                     f"dispatch time {_time(sum(s['dispatch_ns'] for s in stats.values()))}")
        return "\n".join(lines)


def _time(ns):
    if ns >= 1e9:
        return f"{ns / 1e9:.3f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.3f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.3f} us"
    return f"{ns:.0f} ns"


def _output_path(logdir):
    if logdir is None:
        return None
    logdir = os.fspath(logdir)
    if logdir.endswith(".json"):
        parent = os.path.dirname(logdir)
        if parent:
            os.makedirs(parent, exist_ok=True)
        return logdir
    os.makedirs(logdir, exist_ok=True)
    return os.path.join(logdir, _DEFAULT_FILE)


def start(logdir=None, options=None):
    """Starts recording. ``logdir`` is a directory (the trace goes to
    ``ember_trace.json`` in it) or a ``.json`` path; ``None`` keeps the
    trace in memory only (``stop()`` returns it). ``options`` is accepted
    for TensorFlow's signature and ignored."""
    del options
    global _session
    with _lock:
        if _session is not None:
            raise RuntimeError("profiler.start: the profiler is already recording; call ember.profiler.stop() first")
        path = _output_path(logdir)
        _C._profiler_start()
        _session = (path, _C._profiler_now_ns())


def stop(save=True):
    """Stops recording; writes the trace where ``start`` said (if ``save``)
    and returns it as a ``ProfileResult``. Ops still queued are waited for,
    so their kernels are in the trace."""
    global _session, _last_result
    with _lock:
        if _session is None:
            raise RuntimeError("profiler.stop: the profiler is not recording; call ember.profiler.start() first")
        path, start_ns = _session
    try:
        sync()
    except Exception:  # noqa: BLE001 - a failed op's error was (or will be) reported where its value is read
        pass
    with _lock:
        threads = _C._profiler_stop()
        end_ns = _C._profiler_now_ns()
        _session = None
    result = ProfileResult(threads, start_ns, end_ns)
    _last_result = result
    if save and path is not None:
        result.save(path)
    return result


@contextlib.contextmanager
def Profile(logdir=None, options=None):  # noqa: N802 - tf.profiler.experimental.Profile
    """Records the ``with`` block; yields nothing. The trace is written on exit
    and available from ``summary()`` and ``last_result()``."""
    start(logdir, options)
    try:
        yield
    finally:
        stop()


def trace(path=None):
    """``with ember.profiler.trace("out.json"):`` records the block and writes
    the Chrome trace to ``path``."""
    return Profile(path)


class Trace:
    """A named span of your own in the trace (``tf.profiler.experimental.Trace``):
    ``with ember.profiler.Trace("train_step", step_num=3): ...``. Keyword
    arguments become the span's arguments. Costs almost nothing when the
    profiler is off."""

    def __init__(self, name, **kwargs):
        self._name = str(name)
        self._args = kwargs
        self._start = None

    def __enter__(self):
        if _C._profiler_enabled():
            self._start = _C._profiler_now_ns()
        return self

    def __exit__(self, *exc):
        if self._start is not None:
            args = json.dumps({k: v if isinstance(v, (int, float, str, bool)) else repr(v)
                               for k, v in self._args.items()})[1:-1]
            _C._profiler_record(self._name, self._start, _C._profiler_now_ns(), args)
        return False


def last_result():
    """The ``ProfileResult`` of the last recording, or ``None``."""
    return _last_result


def summary(result=None, sort_by="kernel_total", top=20, file=None):
    """Prints (to ``file``, default stdout) and returns the table of the top
    ops of ``result`` (default: the last recording)."""
    result = result if result is not None else _last_result
    if result is None:
        raise RuntimeError("profiler.summary: nothing recorded yet; use ember.profiler.trace() or start()/stop()")
    text = result.summary(sort_by=sort_by, top=top)
    print(text, file=file)
    return text

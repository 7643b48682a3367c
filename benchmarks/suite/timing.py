"""Interleaved timing of several implementations of one piece of work.

Every round runs each implementation once (A B C A B C ...), so a burst of
machine noise lands on all of them alike instead of on whichever ran
during it. Per implementation we keep every sample and report the best and
the median.
"""
from __future__ import annotations

import gc
import statistics
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, Optional


def _same(y):
    return y


@dataclass
class Impl:
    """One implementation of a case.

    build() does the set-up that is not timed (tracing, jit compiling,
    converting inputs) and returns loop(n), which runs the work n times and
    returns the last output. finish(y) waits until y is computed (JAX and
    Ember's async mode return before the kernel has run) and is timed with
    the loop. mode() returns a context manager entered around each sample,
    untimed (Ember's sync mode).
    """
    name: str
    framework: str
    build: Callable[[], Callable[[int], Any]]
    finish: Callable[[Any], Any] = _same
    to_numpy: Callable[[Any], Any] = _same
    mode: Optional[Callable[[], Any]] = None
    note: str = ""
    # A whole function compiled or traced (ember.function, jax.jit, ...), as
    # opposed to eager op-by-op calls; eager Ember is also compared with eager peers.
    compiled: bool = False

    @property
    def is_ember(self):
        return self.framework == "ember"


@dataclass
class Samples:
    """Seconds per call: one entry per round (the mean of its `inner`
    calls), or one per call with per_call."""
    seconds: list = field(default_factory=list)

    @property
    def best(self):
        return min(self.seconds)

    @property
    def median(self):
        return statistics.median(self.seconds)


def _sample(loop, finish, inner):
    start = time.perf_counter()
    y = loop(inner)
    finish(y)
    return time.perf_counter() - start


def _per_call_samples(loop, finish, inner):
    """Each of `inner` calls timed on its own."""
    out = []
    for _ in range(inner):
        start = time.perf_counter()
        finish(loop(1))
        out.append(time.perf_counter() - start)
    return out


def interleave(ready, rounds, inner, gap_s=0.0, per_call=False):
    """Times ready = [(impl, loop)] in `rounds` interleaved rounds of `inner`
    calls each; returns {impl name: Samples} in seconds per call.

    per_call: every call is a sample of its own (best and median per call),
    still in blocks of `inner` per impl and round: switching frameworks on
    every call would charge one framework for the threads another one just
    woke (TensorFlow's pool spinning next to Ember's executor thread).

    gap_s sleeps between samples so that another framework's spinning worker
    threads (OpenMP, Eigen) go idle before the next one starts.

    Note [Gaps between frameworks]
    The gap is for impls of several frameworks in one process (the
    interleaved mode). In an isolated process, which holds one framework,
    runner.measure passes no gap: there a 5 ms pause before every sample
    only times each call as the first after an idle spell, when a
    framework's worker threads have gone to sleep and must be woken (on
    the 2-core VM a 2-thread Ember convolution took 1.25-1.6 ms after a
    5 ms pause against 0.73-0.79 ms back to back; PyTorch's 0.85-0.99
    against 0.76-0.79 ms, its OpenMP threads spinning longer; stop 44).
    Back to back is how a model's layers run.
    """
    out = {impl.name: Samples() for impl, _ in ready}
    # Collection during a sample would be charged to whoever allocated last.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for impl, loop in ready:
                with (impl.mode() if impl.mode else nullcontext()):
                    if per_call:
                        out[impl.name].seconds.extend(_per_call_samples(loop, impl.finish, inner))
                    else:
                        out[impl.name].seconds.append(_sample(loop, impl.finish, inner) / inner)
                if gap_s:
                    time.sleep(gap_s)
    finally:
        if was_enabled:
            gc.enable()
        gc.collect()
    return out


def repeat(fn, *args):
    """loop(n) calling fn(*args) n times: the tightest loop Python offers,
    the same for every framework."""
    def loop(n):
        y = None
        for _ in range(n):
            y = fn(*args)
        return y
    return loop

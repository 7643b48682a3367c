"""The fuzzing child process: draws calls with Hypothesis and makes them, reporting each one.

Run by api_fuzzer.py, never by hand. The schedule is fixed by the seed: in
round r, the targets are taken in a seeded order, and target t gets a
Hypothesis run of --batch examples from its own seed. A position
(round, target, example) names one call, so after a crash the parent starts
a new worker at the next position and the same seed gives the same calls.

Before each call the worker writes a ``begin`` event (with the call's code)
to the report pipe, and an ``end`` event after it, with the finding if the
outcome was not acceptable. A crash or hang leaves a ``begin`` without its
``end``: the parent knows which call did it.
"""

import argparse
import dataclasses
import json
import os
import random
import resource
import signal
import time
import traceback
import warnings
import zlib

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

import calls
import outcome

MEMORY_LIMIT = 4 << 30  # bytes of address space: a huge allocation must fail, not take the machine
# One call in this many is interrupted (a KeyboardInterrupt after INTERRUPT_AFTER seconds), as Ctrl-C would.
INTERRUPT_EVERY = 16
INTERRUPT_AFTER = 0.002


class _Interrupted(BaseException):
    """The fuzzer's own interrupt, told apart from a KeyboardInterrupt meant to stop the worker."""


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _report(fd, event):
    os.write(fd, (json.dumps(event) + "\n").encode())


def _graph_texts(ember):
    """Texts of a few traced functions, which function_from_text fuzzing mutates."""
    texts = []
    sources = [(lambda a: ember.nn.relu(a * 2.0 + 1.0), ember.constant([1.0, -2.0])),
               (lambda a: ember.reduce_sum(ember.reshape(a, [-1]), axis=[0]), ember.constant([[1, 2], [3, 4]])),
               (lambda a: ember.concat([a, a], axis=0)[1:], ember.constant([1.0, 2.0]))]
    for fn, arg in sources:
        try:
            texts.append(ember.function(fn).get_concrete_function(arg).graph.to_text())
        except Exception:  # noqa: BLE001 - the API changed: fuzz without seeds
            pass
    return tuple(texts)


class Worker:
    def __init__(self, mode, seed, batch, fd, skip=()):
        import ember

        from targets import all_targets

        self.ember, self.mode, self.seed, self.batch, self.fd = ember, mode, seed, batch, fd
        self.targets = sorted(all_targets(), key=lambda t: t.name)
        self.skip = set(skip)  # targets that crashed often: their restarts would eat the run
        self.texts = _graph_texts(ember)
        self.namespace = {}
        exec(compile(calls.PRELUDE, "<prelude>", "exec"), self.namespace)
        self.cache_capacity = ember.config.kernel_cache_stats().get("capacity")

    def order(self, round_):
        order = list(range(len(self.targets)))
        random.Random(f"{self.seed}/{round_}").shuffle(order)
        return order

    def run(self, start, deadline):
        round_, index, skip = start
        while time.monotonic() < deadline:
            order = self.order(round_)
            while index < len(order) and time.monotonic() < deadline:
                if self.targets[order[index]].name not in self.skip:
                    self.run_batch((round_, index), self.targets[order[index]], skip, deadline)
                index, skip = index + 1, 0
            round_, index = round_ + 1, 0
        _report(self.fd, {"ev": "done"})

    def run_batch(self, where, target, skip, deadline):
        """One Hypothesis run over `target`; its first `skip` examples are drawn but not called."""
        counter = [0]
        strategy = calls.draw_call(target, self.texts)

        @settings(max_examples=self.batch, database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, report_multiple_bugs=False)
        @hypothesis_seed(zlib.crc32(f"{self.seed}/{self.mode}/{where[0]}/{target.name}".encode()))
        @given(st.data())
        def batch(data):
            call = data.draw(strategy)
            i = counter[0]
            counter[0] += 1
            if i >= skip and time.monotonic() < deadline:
                self.call(call, (*where, i))

        batch()

    def call(self, call, position):
        code = call.code(self.mode)
        _report(self.fd, {"ev": "begin", "pos": position, "target": call.target, "code": code,
                          "call": dataclasses.asdict(call)})
        ns = dict(self.namespace)
        finding, returned, failed = None, False, False
        interrupt = zlib.crc32(repr(position).encode()) % INTERRUPT_EVERY == 0
        try:
            try:
                if interrupt:
                    signal.signal(signal.SIGALRM, _interrupt)
                    signal.setitimer(signal.ITIMER_REAL, INTERRUPT_AFTER)
                exec(compile(code, "<fuzz>", "exec"), ns)
                returned = True
                problem = outcome.check_result(ns.get("out"))
                if problem:
                    finding = {"kind": "bad-result", "exception": None, "message": problem, "where": None}
            finally:
                if interrupt:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, signal.SIG_DFL)
        except KeyboardInterrupt:
            if not interrupt:
                raise
            failed = True  # our own interrupt: a fine outcome, if the runtime survives it
        except BaseException as e:  # noqa: BLE001 - classifying every outcome is the point
            failed = True
            kind = outcome.classify(e)
            if kind:
                frame = traceback.extract_tb(e.__traceback__)[-1]
                finding = {"kind": kind, "exception": type(e).__name__, "message": str(e)[:500],
                           "where": f"{os.path.basename(frame.filename)}:{frame.lineno}"}
        finally:
            self.restore()
        if failed and finding is None:
            finding = self.check_usable()
        _report(self.fd, {"ev": "end", "finding": finding, "returned": returned})

    def check_usable(self):
        """The invariant after a failed or interrupted call: the runtime still computes. None, or a finding."""
        ember = self.ember
        try:
            value = ember.add(ember.constant([1.0, 2.0]), 2.0).numpy().tolist()
            ok = value == [3.0, 4.0]
        except Exception as e:  # noqa: BLE001 - any failure here is the finding
            return {"kind": "unusable", "exception": type(e).__name__,
                    "message": f"the runtime failed a canary op after this call: {str(e)[:400]}", "where": None}
        if not ok:
            return {"kind": "unusable", "exception": None,
                    "message": f"the runtime computed 1+2, 2+2 as {value} after this call", "where": None}
        return None

    def restore(self):
        """Drops an unread async error and undoes settings a call may have changed."""
        ember = self.ember
        try:
            ember.sync()
        except Exception:  # noqa: BLE001 - a kernel error the call's own reads did not see
            pass
        ember.config.set_async(self.mode == "async")
        if self.cache_capacity is not None:
            ember.config.set_kernel_cache_capacity(self.cache_capacity)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=calls.MODES, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--start", required=True, help="round,target,example")
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--skip", default="", help="comma-separated target names not to call")
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    warnings.simplefilter("ignore")
    deadline = time.monotonic() + args.seconds
    worker = Worker(args.mode, args.seed, args.batch, args.fd, filter(None, args.skip.split(",")))
    _report(args.fd, {"ev": "ready", "targets": len(worker.targets)})
    worker.run(tuple(int(x) for x in args.start.split(",")), deadline)


if __name__ == "__main__":
    main()

"""One framework's timed cases in a process of its own (isolated.py starts
it): python -m benchmarks.suite.isolated_child FRAMEWORK CASES EVENTS
[--quick]. CASES is a JSON list of case keys; EVENTS a file this process
appends JSON lines to, one per event, so a crash loses only the case it
was in (Note [Isolated timing] in isolated.py).

Events: {"event": "peer", ...} once the framework is imported (or skipped),
{"event": "start", "key": ...} before each case, {"event": "case", "key":
..., "record": ...} after it, {"event": "end", ...} at the end.
"""
import argparse
import hashlib
import json
import sys
import time
from contextlib import nullcontext
from pathlib import Path

from benchmarks.suite import groups, machine, runner
from benchmarks.suite.context import Context
from benchmarks.suite.peers import Peers


def _one_blas_thread():
    """The reference on one BLAS thread: no OpenBLAS thread left spinning
    next to the framework timed after it, and the same sums in the same
    order in every process."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    return threadpool_limits(1)


def _reference(case, record):
    with _one_blas_thread():
        reference = runner.reference_of(case, record)
    if reference is not None:
        record["reference_sha256"] = hashlib.sha256(reference.tobytes()).hexdigest()
        record["reference_shape"] = list(reference.shape)
    return reference


def _peer_event(peers, name, module):
    if module is None:
        return {"event": "peer", "name": name, "used": False, "skipped": peers.skipped[name]}
    described = peers.describe()[name]
    return dict(described, event="peer", name=name)


def run(name, keys, quick, emit):
    peers = Peers([name], alone=True)
    ctx = Context(peers, quick=quick)
    module = peers.get(name)
    emit(_peer_event(peers, name, module))
    if module is not None:
        specs = {s.key: s for s in groups.specs(ctx)}
        for key in keys:
            emit({"event": "start", "key": key})
            begin = time.perf_counter()
            record, case = runner.start(specs[key])
            if case is not None:
                # The builders only see this framework; the filter makes sure.
                case.impls = [impl for impl in case.impls if impl.framework == name]
                if case.impls:
                    record["entries"], record["samples"] = runner.measure(case, _reference(case, record), record)
            record["load_after"] = machine.load()
            record["wall_s"] = round(time.perf_counter() - begin, 2)
            emit({"event": "case", "key": key, "record": record})
    emit({"event": "end", "thread_pools": machine.blas()})


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.suite.isolated_child",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("framework")
    p.add_argument("cases", help="a JSON file with the list of case keys to run, in order")
    p.add_argument("events", help="the file to append the events to")
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    keys = json.loads(Path(args.cases).read_text(encoding="utf-8"))
    with open(args.events, "a", encoding="utf-8") as out:
        def emit(event):
            out.write(json.dumps(event, default=str) + "\n")
            out.flush()
        run(args.framework, keys, args.quick, emit)
    return 0


if __name__ == "__main__":
    sys.exit(main())

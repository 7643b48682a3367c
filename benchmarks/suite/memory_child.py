"""One peak-memory measurement in a process of its own (cases_memory.py
starts it): python -m benchmarks.suite.memory_child FRAMEWORK WORKLOAD
[--quick]. Prints one JSON object on its last line of output.

Peak resident set is per process, so each (framework, workload) gets a
fresh one: import the framework, build the weights and inputs, take the
baseline, reset the kernel's high-water mark, run the workload, read the
high-water mark again. See Note [Peak memory] in cases_memory.py.
"""
import argparse
import ctypes
import gc
import json
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.suite.models import mlp, resnet50
from benchmarks.suite.peers import Peers

CALLS = {False: 3, True: 2}  # workload runs after the baseline, by --quick


def _status_bytes(field):
    """A `VmRSS:    1234 kB` line of /proc/self/status, in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _trim_heap():
    """Gives the C heap's free pages back to the system (glibc's malloc_trim),
    so the baseline does not count the NumPy weights a framework copied and
    freed: glibc keeps freed blocks once its mmap threshold has grown."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        return False
    return True


def _compiled_at_import(package):
    """How many of `package`'s modules the import compiled from source: their
    cached bytecode was missing or older than the source (a tree copied over
    an install, PYTHONDONTWRITEBYTECODE). The compiler's memory then counts
    in the import's resident set, ~3 MiB for Ember's 85 modules; pip
    installs write the bytecode, so a user's import does not pay it."""
    count = 0
    for name, module in list(sys.modules.items()):
        if name != package and not name.startswith(package + "."):
            continue
        # Some packages' module objects answer any attribute (torch.ops).
        source, cached = getattr(module, "__file__", None), getattr(module, "__cached__", None)
        if not isinstance(source, str) or not isinstance(cached, str) or not source.endswith(".py"):
            continue
        try:
            if Path(cached).stat().st_mtime < Path(source).stat().st_mtime:
                count += 1
        except OSError:
            count += 1
    return count


def _reset_high_water_mark():
    """Sets VmHWM to the current VmRSS (Linux 4.0+, `echo 5 > clear_refs`);
    False where the kernel (EINVAL before 4.0) or a sandbox refuses it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def _resnet(F, quick):
    rng = np.random.default_rng(50)
    size = 64 if quick else 224
    p, x = F.params(resnet50.init(rng)), F.image(resnet50.example_input(rng, 1, size))

    def run():
        return [F.to_numpy(F.finish(resnet50.forward(F, p, x))).ravel()]
    return run


def _mlp_train(F, quick):
    rng = np.random.default_rng(784)
    state = {"p": F.params(mlp.init(rng))}
    x, neg_target = F.tensor(mlp.example_input(rng, 64)), F.tensor(mlp.example_target(rng, 64))

    def run():
        value, state["p"] = mlp.train_step(F, state["p"], x, neg_target)
        F.finish(state["p"])
        return [F.to_numpy(value).ravel()]
    return run


WORKLOADS = {"resnet50": _resnet, "mlp-train": _mlp_train}


def measure(framework, workload, quick):
    peers = Peers([framework])
    F = peers.get(framework)
    if F is None:
        return {"skipped": peers.skipped[framework]}
    out = {"version": F.version(), "import_rss": _status_bytes("VmRSS"),
           "compiled_at_import": _compiled_at_import(F.NAME)}
    run = WORKLOADS[workload](F, quick)
    gc.collect()
    out["heap_trimmed"] = _trim_heap()
    out["baseline_rss"] = _status_bytes("VmRSS")  # after import and build
    allocator = getattr(F, "memory_stats", lambda: None)()
    resettable = hasattr(F, "reset_memory_peak")
    if allocator is not None and resettable:
        F.reset_memory_peak()
    out["build_peak_rss"] = _status_bytes("VmHWM")  # import and build
    out["hwm_reset"] = _reset_high_water_mark()
    start = time.perf_counter()
    outputs = []
    for _ in range(CALLS[quick]):
        outputs += run()
    out["workload_s"] = round(time.perf_counter() - start, 3)
    out["calls"] = CALLS[quick]
    out["peak_rss"] = _status_bytes("VmHWM")
    out["peak_increase"] = out["peak_rss"] - out["baseline_rss"]
    if allocator is not None:
        after = F.memory_stats()
        out["allocator"] = {"baseline_in_use": allocator["in_use"], "peak": after["peak"],
                            "peak_since": "baseline" if resettable else "process start"}
    # The last call's output (logits, or the losses of every step) for the parent's check.
    out["output"] = np.concatenate(outputs if workload == "mlp-train" else outputs[-1:]).astype(float).tolist()
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.suite.memory_child", description=__doc__.split("\n\n")[0])
    p.add_argument("framework")
    p.add_argument("workload", choices=sorted(WORKLOADS))
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    try:
        out = measure(args.framework, args.workload, args.quick)
    except Exception as e:
        out = {"error": f"{type(e).__name__}: {e}"[:600]}
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

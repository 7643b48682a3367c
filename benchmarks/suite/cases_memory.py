"""Peak memory: ResNet-50 inference and an MLP training step, each
framework in a fresh process of its own, Ember's peak against the lowest
peer's.

Note [Peak memory]
A process's peak resident set (VmHWM) never goes down and counts everything
the process ever touched, so two frameworks measured in one process would
mix. memory_child.py runs each (framework, workload) alone: it imports the
framework, builds the weights and inputs, records the resident set then
(the baseline), resets the kernel's high-water mark to it (`echo 5 >
/proc/self/clear_refs`), runs the workload a few times and reads VmHWM.
Two numbers come back: the peak resident set (the framework's import, the
weights and the workload) and the peak increase over the baseline (what
running the workload added). Where the reset is refused, VmHWM is the
whole process's peak, build included; the entry says so (hwm_reset false)
and the increase is then an upper bound. The allocator's own peak
(ember.config.memory_stats, reset at the baseline) is reported beside it
for Ember, and for TensorFlow and JAX where their CPU device counts (most
builds do not); PyTorch's CPU allocator keeps no counters.

The target (performance issue, item 5) is Ember's peak at or below the
lowest peer's, both for the peak resident set and for the increase. Memory
never fails the run; Ember raising or computing a different output than
NumPy does.
"""
import functools
import json
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np

from benchmarks.suite import machine, runner
from benchmarks.suite.case import Spec
from benchmarks.suite.peers import ALL

GROUP = "memory"
PAGE = 4096  # a ratio's denominator is at least one page: a peer may add nothing


def _child(framework, workload, quick):
    """memory_child.py's JSON for one framework, or {"error": ...}."""
    cmd = [sys.executable, "-m", "benchmarks.suite.memory_child", framework, workload] + (["--quick"] if quick else [])
    try:
        done = subprocess.run(cmd, cwd=machine.REPO, capture_output=True, text=True, timeout=300 if quick else 900)
    except subprocess.TimeoutExpired as e:
        return {"error": f"timed out after {e.timeout} s"}
    lines = done.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        tail = (done.stdout + done.stderr).strip()[-600:]
        return {"error": f"exit status {done.returncode}, no result: {tail}"}


def _ratio(ember, peer):
    return ember / max(peer, PAGE)


def _compare(entries):
    """Ember's peak resident set and peak increase over the lowest peer's."""
    measured = [e for e in entries if "peak_rss" in e]
    peers = [e for e in measured if not e["ember"]]
    out = []
    for e in measured:
        if not e["ember"] or not peers:
            continue
        lowest = min(peers, key=lambda p: p["peak_rss"])
        lowest_increase = min(peers, key=lambda p: p["peak_increase"])
        rss, increase = _ratio(e["peak_rss"], lowest["peak_rss"]), _ratio(e["peak_increase"],
                                                                           lowest_increase["peak_increase"])
        out.append({"impl": e["impl"], "lowest_peer": lowest["impl"], "ratio_peak_rss": rss,
                    "lowest_peer_by_increase": lowest_increase["impl"], "ratio_peak_increase": increase,
                    "target_met": rss <= 1.0, "target_met_increase": increase <= 1.0})
    return out


def run(ctx, name, workload, description, tolerance):
    """Measures every wanted framework in its own process; returns the case's
    record for results.json (kind "memory": report.py renders it apart)."""
    record = {"group": GROUP, "name": name, "kind": "memory", "description": description, "unit": "bytes",
              "load_before": machine.load(),
              "notes": ["Each framework in a fresh process; peak RSS is VmHWM after the workload, reset to the "
                        "resident set after import and build (Note [Peak memory], cases_memory.py)."]}
    start = time.perf_counter()
    entries = []
    for framework in (f for f in ALL if f in ctx.peers.wanted):
        entry = {"impl": framework, "framework": framework, "ember": framework == "ember", "compiled": False}
        # Loaded here too, only to skip it with the suite's reason and list its version in the header.
        if ctx.peers.get(framework) is None:
            entry["skipped"] = ctx.peers.skipped[framework]
        else:
            entry.update(_child(framework, workload, ctx.quick))
        entries.append(entry)
    reference = next((e["output"] for e in entries if e["framework"] == "numpy" and "output" in e), None)
    check = SimpleNamespace(rtol=tolerance, atol_rel=tolerance)
    for e in entries:
        output = e.pop("output", None)
        if e["framework"] == "numpy":
            e["reference"] = output is not None
        elif reference is not None and output is not None:
            e["check"] = runner.check_output(check, np.asarray(reference, dtype=np.float64), output)
    if reference is None:
        record["notes"].append("NumPy gave no output: the others are not checked.")
    for e in entries:
        if e.get("compiled_at_import"):
            record["notes"].append(f"{e['impl']}: the import compiled {e['compiled_at_import']} modules from source "
                                   "(stale or missing bytecode); its import and peak RSS include the compiler's "
                                   "memory, which an installed package does not pay.")
    record["results"] = entries
    record["ember_vs_peers"] = _compare(entries)
    record["failures"] = [f"{e['impl']}: {e['error']}" for e in entries if "error" in e]
    record["mismatches"] = [f"{e['impl']}: max abs diff {e['check'].get('max_abs_diff')}" if "max_abs_diff" in
                            e["check"] else f"{e['impl']}: {e['check'].get('error')}"
                            for e in entries if "check" in e and not e["check"]["ok"]]
    record["load_after"] = machine.load()
    record["wall_s"] = round(time.perf_counter() - start, 2)
    return record


def specs(ctx):
    size = ctx.pick(224, 64)
    cases = [
        ("resnet50 batch 1 inference", "resnet50",
         f"ResNet-50 v1.5 forward, batch 1, {size}x{size}x3 NHWC, inference batch norm (models/resnet50.py), "
         "eager; output checked against NumPy's.", 1e-3),
        ("mlp batch 64 training step", "mlp-train",
         "MLP 784-512-512-10, batch 64: forward, half squared error, gradients (each framework's autodiff, "
         "NumPy's by hand), SGD update (models/mlp.py train_step), eager; the losses checked against NumPy's.",
         1e-4),
    ]
    return [Spec(GROUP, name, build=None, run=functools.partial(run, ctx, name, workload, description, tolerance))
            for name, workload, description, tolerance in cases]

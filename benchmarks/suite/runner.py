"""Runs one case: builds and warms up each implementation, checks its output
against the reference, times them interleaved and compares Ember with the
fastest peer."""
from __future__ import annotations

import statistics
import time
import traceback
from contextlib import nullcontext

import numpy as np

from benchmarks.suite import machine
from benchmarks.suite.timing import interleave


def _error_text(e):
    text = f"{type(e).__name__}: {e}".strip()
    return text if len(text) < 600 else text[:600] + " ..."


def check_output(case, reference, out):
    """out against the float64 reference, within case.rtol and case.atol_rel."""
    out = np.asarray(out)
    if out.shape != reference.shape:
        return {"ok": False, "error": f"shape {out.shape}, expected {reference.shape}"}
    diff = np.abs(out.astype(np.float64) - reference)
    scale = float(np.max(np.abs(reference))) if reference.size else 0.0
    atol = case.atol_rel * scale
    ok = bool(np.all(np.isfinite(out)) and np.all(diff <= atol + case.rtol * np.abs(reference)))
    return {"ok": ok, "max_abs_diff": float(diff.max()) if diff.size else 0.0, "reference_max_abs": scale,
            "rtol": case.rtol, "atol": atol}


def _prepare(case, impl, reference):
    """Builds, warms up and checks one impl; returns (entry, loop or None)."""
    entry = {"impl": impl.name, "framework": impl.framework, "ember": impl.is_ember, "compiled": impl.compiled}
    if impl.note:
        entry["note"] = impl.note
    try:
        start = time.perf_counter()
        with (impl.mode() if impl.mode else nullcontext()):
            loop = impl.build()
            for _ in range(case.warmup):  # the first call compiles / traces / fills caches
                y = impl.finish(loop(1 if case.per_call else case.inner))
            entry["setup_s"] = round(time.perf_counter() - start, 3)
            if reference is not None:
                entry["check"] = check_output(case, reference, impl.to_numpy(y))
    except Exception as e:
        text = _error_text(e)
        if text.startswith("RuntimeError: skipped:"):
            entry["skipped"] = text[len("RuntimeError: skipped:"):].strip()
        else:
            entry["error"] = text
            entry["traceback"] = traceback.format_exc(limit=4)
        return entry, None
    return entry, loop


def _fastest(entries, key):
    return min(entries, key=lambda e: e[key], default=None)


def _compare(entries):
    """Each Ember impl's time over the fastest peer's (best over best, median
    over median), over the fastest peer of its own kind (eager or compiled)
    and over NumPy's."""
    timed = [e for e in entries if "best_s" in e]
    peers = [e for e in timed if not e["ember"]]
    numpy_best = _fastest([e for e in peers if e["framework"] == "numpy"], "best_s")
    out = []
    for e in timed:
        if not e["ember"]:
            continue
        row = {"impl": e["impl"]}
        best, median = _fastest(peers, "best_s"), _fastest(peers, "median_s")
        if best:
            row.update(best_peer=best["impl"], ratio_vs_best_peer=e["best_s"] / best["best_s"],
                       best_peer_by_median=median["impl"], ratio_vs_best_peer_median=e["median_s"] / median["median_s"])
        same = _fastest([p for p in peers if p["compiled"] == e["compiled"]], "best_s")
        if same:
            row.update(best_same_kind_peer=same["impl"], ratio_vs_same_kind=e["best_s"] / same["best_s"])
        if numpy_best:
            row["ratio_vs_numpy"] = e["best_s"] / numpy_best["best_s"]
        out.append(row)
    return out


def start(spec):
    """Builds the case: returns (record so far, case), or (record with the
    error, None) when building failed."""
    record = {"group": spec.group, "name": spec.name, "load_before": machine.load()}
    try:
        case = spec.build()
    except Exception as e:
        record.update(error=f"building the case failed: {_error_text(e)}", traceback=traceback.format_exc(limit=4))
        return record, None
    record.update(description=case.description, unit=case.unit, per=case.per, rounds=case.rounds,
                  inner=case.inner, notes=list(case.notes))
    if case.work:
        label, amount = case.work  # bytes or FLOPs per call; reported in G per second
        record["work"] = {"unit": label, "amount": amount}
    return record, case


def reference_of(case, record):
    """The float64 reference output, or None (a note in the record says why)."""
    try:
        return None if case.reference is None else np.asarray(case.reference(), dtype=np.float64)
    except Exception as e:
        record["notes"].append(f"reference failed, outputs not checked: {_error_text(e)}")
        return None


def measure(case, reference, record):
    """Prepares and times every impl; returns (entries, {impl name: [seconds
    per call]}). A failure of the timing loop is the record's error."""
    entries, ready = [], []
    for impl in case.impls:
        entry, loop = _prepare(case, impl, reference)
        entries.append(entry)
        if loop is not None:
            ready.append((impl, loop))
    # The gap keeps one framework's spinning threads off the next one's
    # samples; among one framework's impls (an isolated process) it would
    # only make every sample a call after an idle pause (Note [Gaps between
    # frameworks], timing.py).
    gap_s = case.gap_s if len({impl.framework for impl, _ in ready}) > 1 else 0.0
    record["gap_s"] = gap_s
    try:
        samples = interleave(ready, case.rounds, case.inner, gap_s, case.per_call)
    except Exception as e:
        record.update(error=f"timing failed: {_error_text(e)}", traceback=traceback.format_exc(limit=4))
        samples = {}
    return entries, {name: s.seconds for name, s in samples.items()}


def finish(record, entries, samples):
    """Fills in the record's results from the entries and their samples
    (seconds per call, from one process or pooled from several)."""
    per, work = record.get("per", 1), record.get("work")
    for entry in entries:
        seconds = samples.get(entry["impl"])
        if not seconds:
            continue
        best, median = min(seconds), statistics.median(seconds)
        entry["best_s"] = best / per
        entry["median_s"] = median / per
        entry["samples"] = len(seconds)
        if work:
            entry["throughput"] = {"unit": work["unit"], "best": work["amount"] / best / 1e9,
                                   "median": work["amount"] / median / 1e9}
    record["results"] = entries
    record["ember_vs_peers"] = _compare(entries)
    record["failures"] = [f"{e['impl']}: {e['error']}" for e in entries if "error" in e]
    record["mismatches"] = [f"{e['impl']}: max abs diff {e['check'].get('max_abs_diff')}"
                            f" (tolerance {e['check'].get('atol')} + {e['check'].get('rtol')}*|ref|)"
                            if "max_abs_diff" in e["check"] else f"{e['impl']}: {e['check'].get('error')}"
                            for e in entries if "check" in e and not e["check"]["ok"]]
    return record


def run(spec):
    """Returns the case's record for results.json, every impl in this process."""
    begin = time.perf_counter()
    record, case = start(spec)
    if case is None:
        return record
    entries, samples = measure(case, reference_of(case, record), record)
    finish(record, entries, samples)
    record["load_after"] = machine.load()
    record["wall_s"] = round(time.perf_counter() - begin, 2)
    return record

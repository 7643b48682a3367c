"""Isolated mode: each framework's timings in a child process of its own
(isolated_child.py), in passes of alternating order, merged into the same
case records the interleaved mode writes.

Note [Isolated timing]
In one process the frameworks disturb each other: NumPy's OpenBLAS threads
and PyTorch's OpenMP threads spin for a while after a call and take a core
from whoever runs next, each heavy call starts with caches another
framework evicted, and torch.compile cannot run once TensorFlow is loaded
(both register LLVM's options). So each framework runs every selected case
in a process with only that framework imported (Peers(alone=True)); Ember
is not loaded in PyTorch's process, nor NumPy's BLAS used there except for
the reference.

Interleaving used to spread a burst of machine noise over every framework.
Here that is done coarsely: the processes run in several passes, the first
in ORDER, the next reversed, and so on, and each impl's best and median are
taken over all its samples from all passes. The load average is recorded
before and after each process.

Each process computes the float64 reference itself, from the same seeds,
with NumPy's BLAS on one thread; it reports the reference's SHA-256, and a
case whose processes disagree lists it as a mismatch.

A process is a new session; one that writes no event for --timeout
seconds (one case, or the import, taking that long) is killed with its
whole process group (torch.compile's workers too). A process that crashes,
hangs or raises keeps what it finished: the events file has one line per
finished case. The case it was in gets the failure as that framework's
error, and a new process of the same framework runs the cases after it
(none when it failed before its first case: then they are "not run").
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.suite import machine, runner
from benchmarks.suite.peers import ALL

# Pass 1's order; NumPy first, Ember next to it, the heavy peers after.
ORDER = ("numpy", "ember", "torch", "tensorflow", "jax")


def orders(frameworks, passes):
    """The framework order of each pass: ORDER, then reversed, alternating."""
    first = [f for f in ORDER if f in frameworks]
    return [first if i % 2 == 0 else first[::-1] for i in range(passes)]


def _tail(path, limit=800):
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    return text[-limit:]


def _events(path):
    out = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut short by a crash
            break
    return out


def _size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return -1


def launch(cmd, events_path, log_path, timeout):
    """Runs one child, killed once it has written no event for `timeout`
    seconds (a case, or the import, taking that long); returns (events,
    failure text or None, return code)."""
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, cwd=machine.REPO, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        size, since, failure = _size(events_path), time.monotonic(), None
        try:
            while True:
                try:
                    code = proc.wait(timeout=min(1.0, timeout))
                    break
                except subprocess.TimeoutExpired:
                    now = time.monotonic()
                    if _size(events_path) != size:
                        size, since = _size(events_path), now
                    elif now - since > timeout:
                        _kill(proc)
                        code = proc.wait()
                        failure = f"timed out: {timeout:g} s without finishing a case (--timeout), killed"
                        break
        except BaseException:  # Ctrl-C: a child in its own session does not get the terminal's SIGINT
            _kill(proc)
            proc.wait()
            raise
    events = _events(events_path)
    if failure is None and (code != 0 or not events or events[-1].get("event") != "end"):
        failure = f"ended ({_how(code)}) before finishing: {_tail(log_path)}"
    return events, failure, code


def _kill(proc):
    """The child and whatever it started (torch.compile's workers): its own session's process group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _how(code):
    if code >= 0:
        return f"exit status {code}"
    try:
        return f"killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"killed by signal {-code}"


def _run_process(framework, pass_index, keys, quick, timeout, tmp, attempt):
    stem = Path(tmp) / f"pass{pass_index + 1}-{framework}-{attempt}"
    Path(f"{stem}.cases.json").write_text(json.dumps(keys), encoding="utf-8")
    cmd = [sys.executable, "-m", "benchmarks.suite.isolated_child", framework, f"{stem}.cases.json",
           f"{stem}.jsonl"] + (["--quick"] if quick else [])
    load_before, begin = machine.load(), time.perf_counter()
    events, failure, code = launch(cmd, f"{stem}.jsonl", f"{stem}.log", timeout)
    return {"framework": framework, "pass": pass_index + 1, "attempt": attempt, "returncode": code,
            "wall_s": round(time.perf_counter() - begin, 2), "load_before": load_before,
            "load_after": machine.load(), "failure": failure, "keys": keys, "events": events}


def run_processes(keys, frameworks, passes, quick, timeout, progress=print):
    """Every (pass, framework) process in turn; returns their results. A
    process that fails in a case is followed by a new one for the cases
    after it."""
    processes = []
    with tempfile.TemporaryDirectory(prefix="ember-benchmarks-") as tmp:
        for pass_index, order in enumerate(orders(frameworks, passes)):
            for framework in order:
                remaining, attempt = list(keys), 0
                while remaining:
                    attempt += 1
                    p = _run_process(framework, pass_index, remaining, quick, timeout, tmp, attempt)
                    processes.append(p)
                    started = [e["key"] for e in p["events"] if e.get("event") == "start"]
                    done = sum(1 for e in p["events"] if e.get("event") == "case")
                    progress(f"pass {p['pass']}/{passes} {framework}"
                             f"{f' (process {attempt})' if attempt > 1 else ''}: {done} of {len(remaining)} "
                             f"cases, {p['wall_s']} s, load {p['load_before']} -> {p['load_after']}"
                             + (f"; FAILED: {p['failure']}" if p["failure"] else ""))
                    if not p["failure"] or not started:  # done, or failed before its first case: no retry
                        break
                    remaining = remaining[remaining.index(started[-1]) + 1:]
                    p["continued"] = bool(remaining)
    return processes


def _framework_failure(process, key):
    """Why `process` has no record of case `key`, or None when it has one
    or ended normally without it."""
    if not process["failure"] or key not in process.get("keys", [key]):
        return None
    started = [e["key"] for e in process["events"] if e.get("event") == "start"]
    finished = {e["key"] for e in process["events"] if e.get("event") == "case"}
    if key in finished:
        return None
    again = f" (process {process['attempt']})" if process.get("attempt", 1) > 1 else ""
    where = f"the {process['framework']} process of pass {process['pass']}{again}"
    if started and started[-1] == key:
        return f"{where} failed during this case: {process['failure']}"
    if process.get("continued"):  # the next process ran it
        return None
    at = f" at case {started[-1]!r}" if started else " before its first case"
    return f"not run: {where} failed{at}: {process['failure']}"


def _merge_entry(entry, other):
    """Folds another pass's entry for the same impl into `entry`."""
    if "error" in other and "error" not in entry:
        entry["error"] = other["error"]
        if "traceback" in other:
            entry["traceback"] = other["traceback"]
    if "check" in other and ("check" not in entry or (entry["check"]["ok"] and not other["check"]["ok"])):
        entry["check"] = other["check"]
    if "setup_s" in other:
        entry.setdefault("setup_s_by_pass", []).append(other["setup_s"])


def merge_case(group, name, processes):
    """One case's record from every process's events."""
    key = f"{group}/{name}"
    found = [(p, e["record"]) for p in processes for e in p["events"]
             if e.get("event") == "case" and e["key"] == key]
    record = {"group": group, "name": name}
    built = [r for _, r in found if "description" in r]
    if built:
        record.update({k: built[0][k] for k in ("description", "unit", "per", "rounds", "inner", "work")
                       if k in built[0]})
        record["notes"] = list(built[0]["notes"])
    else:
        record["notes"] = []
        if found:  # every process failed to build it
            record["error"] = found[0][1].get("error", "building the case failed")
    if found:
        record["load_before"], record["load_after"] = found[0][1]["load_before"], found[-1][1]["load_after"]
        record["wall_s"] = round(sum(r["wall_s"] for _, r in found), 2)
    record["passes"] = len({p["pass"] for p in processes})

    entries, samples, timed_in = {}, {}, {}
    for p, r in found:
        for entry in r.get("entries", []):
            impl = entry["impl"]
            if impl in entries:
                _merge_entry(entries[impl], entry)
            else:
                entries[impl] = dict(entry, setup_s_by_pass=[entry["setup_s"]] if "setup_s" in entry else [])
            if impl in r.get("samples", {}):
                samples.setdefault(impl, []).extend(r["samples"][impl])
                timed_in.setdefault(impl, []).append(p["pass"])
        if "error" in r:  # the case failed to build or to time in this framework's process
            text = f"in the {p['framework']} process of pass {p['pass']}: {r['error']}"
            mine = [e for e in entries.values() if e["framework"] == p["framework"]]
            for e in mine:
                e.setdefault("error", text)
            if not mine:
                entries[p["framework"]] = _failed_entry(p["framework"], text)
    for p in processes:
        text = _framework_failure(p, key)
        if text is None:
            continue
        mine = [e for e in entries.values() if e["framework"] == p["framework"]]
        for e in mine:
            e.setdefault("error", text)
        if not mine:
            entries[p["framework"]] = _failed_entry(p["framework"], text)

    # Every pass's samples, unless a pass failed: a failed impl has no time, as in the interleaved mode.
    pooled = {}
    for e in entries.values():
        if "error" not in e and e["impl"] in samples:
            pooled[e["impl"]] = samples[e["impl"]]
            e["timed_in_passes"] = timed_in[e["impl"]]
        if not e.get("setup_s_by_pass"):
            e.pop("setup_s_by_pass", None)
    rank = {f: i for i, f in enumerate(ALL)}
    ordered = sorted(entries.values(), key=lambda e: rank.get(e["framework"], len(rank)))  # stable: build order
    runner.finish(record, ordered, pooled)

    digests = {r["reference_sha256"] for _, r in found if "reference_sha256" in r}
    if len(digests) > 1:
        record["mismatches"].append(f"the float64 reference differs between processes ({len(digests)} digests)")
    elif digests:
        record["reference_sha256"] = digests.pop()
    if not found:
        record["error"] = "no process ran this case" + "".join(
            f"; {p['framework']} pass {p['pass']}: {p['failure']}" for p in processes if p["failure"])
    return record


def _failed_entry(framework, text):
    return {"impl": framework, "framework": framework, "ember": framework == "ember", "compiled": False,
            "error": text}


def peers(processes):
    """{framework: describe() entry} from the processes' "peer" events; a
    framework whose every process failed before saying is not used."""
    out = {}
    for p in processes:
        said = next((e for e in p["events"] if e.get("event") == "peer"), None)
        if said is not None:
            info = {k: v for k, v in said.items() if k not in ("event", "name")}
            if info.get("used") or p["framework"] not in out:
                out[p["framework"]] = info
        elif p["framework"] not in out:
            out[p["framework"]] = {"used": False, "skipped": f"its process failed: {p['failure']}"}
    return out


def thread_pools(processes):
    """Each framework's thread pools at the end of its last process."""
    out = {}
    for p in processes:
        end = next((e for e in p["events"] if e.get("event") == "end"), None)
        if end is not None:
            out[p["framework"]] = end["thread_pools"]
    return out


def describe(processes, frameworks, passes, timeout):
    """The mode's entry in results.json."""
    return {"name": "isolated", "passes": passes, "orders": orders(frameworks, passes), "timeout_s": timeout,
            "processes": [dict({k: v for k, v in p.items() if k not in ("events", "keys")},
                               cases=sum(1 for e in p["events"] if e.get("event") == "case"))
                          for p in processes]}

"""Fuzzes Ember's public API in child processes and reports crashes, hangs and wrong exceptions.

    python tests/fuzz/api_fuzzer.py --mode all --seconds 120 --seed 0 --out findings.json

Calls are drawn from the op definitions and a walk of the public namespaces
(targets.py, calls.py, values.py) and made by a worker process (worker.py).
This process watches it: a worker that dies on a signal crashed on the call
it announced last, and one that announces a call and says nothing for
--timeout seconds hangs on it. Either way the worker is replaced by a new
one that starts at the next call. Disallowed exceptions (outcome.py) are
reported by the worker itself.

Findings are grouped into classes (target, kind, exception or signal,
message pattern); each class keeps its first reproducer. A crash or hang
class's reproducer is then run alone in a fresh process to confirm it.
Exits 1 if any crash, hang or unusable runtime (a canary op failing after a failed or
interrupted call) was found.
"""

import argparse
import collections
import dataclasses
import json
import os
import pathlib
import select
import signal
import subprocess
import sys
import tempfile
import time

import minimize
from calls import MODES, PRELUDE
from outcome import message_pattern

HERE = pathlib.Path(__file__).resolve().parent
STARTUP_TIMEOUT = 120  # seconds for a worker to import ember and list its targets (2 busy cores)
# Crashes after which a target is left out for the rest of a mode's run (a hang counts 3): each
# costs a worker restart (about a second; a hang, the timeout too), which would crowd out the rest.
TARGET_CRASH_BUDGET = 5


@dataclasses.dataclass
class ModeReport:
    mode: str
    seconds: float = 0.0
    calls: int = 0
    returned: int = 0  # calls that returned a result (the rest raised): how much valid input the run made
    workers: int = 0
    findings: list = dataclasses.field(default_factory=list)
    crashes_by_target: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def skipped(self):
        return sorted(t for t, n in self.crashes_by_target.items() if n >= TARGET_CRASH_BUDGET)

    def count(self, kind):
        return sum(1 for f in self.findings if f["kind"] == kind)


def _next(pos):
    return (pos[0], pos[1], pos[2] + 1)


def _stderr_tail(path, offset=0, lines=4):
    """The last lines the worker wrote to stderr since `offset` (where the crashing call began)."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    tail = [line for line in text.splitlines() if line.strip()][-lines:]
    return "\n".join(tail)


def fuzz_mode(mode, seconds, seed, timeout=10.0, batch=8, log=print):
    """Fuzzes one mode for `seconds`; returns its ModeReport."""
    report = ModeReport(mode)
    start_time = time.monotonic()
    deadline = start_time + seconds
    pos = (0, 0, 0)
    failures = 0
    while time.monotonic() < deadline and failures < 5:
        pos, ok = _run_worker(mode, seed, pos, deadline, timeout, batch, report, log)
        failures = 0 if ok else failures + 1
        if not ok:
            time.sleep(2)  # an import failure while ember is being reinstalled: try again
    report.seconds = round(time.monotonic() - start_time, 1)
    return report


def _run_worker(mode, seed, pos, deadline, timeout, batch, report, log):
    """Runs one worker from `pos` until it finishes, crashes or hangs; returns (next position, started)."""
    read_fd, write_fd = os.pipe()
    with tempfile.NamedTemporaryFile("w+", prefix="ember-fuzz-", suffix=".stderr", delete=False) as err:
        err_path = err.name
    cmd = [sys.executable, str(HERE / "worker.py"), "--mode", mode, "--seed", str(seed), "--start",
           ",".join(map(str, pos)), "--seconds", str(max(deadline - time.monotonic(), 0.0)), "--batch", str(batch),
           "--fd", str(write_fd), "--skip", ",".join(report.skipped())]
    with open(err_path, "w") as err_file:
        proc = subprocess.Popen(cmd, pass_fds=(write_fd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err_file, cwd=tempfile.gettempdir(), start_new_session=True)
    os.close(write_fd)
    report.workers += 1
    pending, started, buffer, err_offset = None, False, b"", 0
    last_event = time.monotonic()
    try:
        while True:
            wait = (timeout if pending else STARTUP_TIMEOUT if not started else timeout * 3)
            ready, _, _ = select.select([read_fd], [], [], 1.0)
            if not ready:
                if time.monotonic() - last_event > wait:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    if pending:
                        _record(report, pending, mode, "hang", None, f"no answer in {timeout:g} s", None, log)
                        return _next(pending["pos"]), True
                    return pos, started
                continue
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:  # the worker exited
                rc = proc.wait()
                if pending:
                    name = signal.Signals(-rc).name if rc < 0 else f"exit {rc}"
                    _record(report, pending, mode, "crash", name, _stderr_tail(err_path, err_offset), None, log)
                    return _next(pending["pos"]), True
                if rc != 0 and not started:
                    log(f"[{mode}] worker failed to start (exit {rc}): {_stderr_tail(err_path)}")
                return pos, started
            last_event = time.monotonic()
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                event = json.loads(line)
                if event["ev"] == "ready":
                    started = True
                elif event["ev"] == "begin":
                    pending, err_offset = event, os.path.getsize(err_path)
                    pos = tuple(event["pos"])
                elif event["ev"] == "end":
                    report.calls += 1
                    report.returned += event["returned"]
                    f = event["finding"]
                    if f:
                        _record(report, pending, mode, f["kind"], f["exception"], f["message"], f["where"], log)
                    pos, pending = _next(pos), None
                elif event["ev"] == "done":
                    proc.wait()
                    return pos, True
    finally:
        os.close(read_fd)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.unlink(err_path)


def _record(report, call, mode, kind, exception, message, where, log):
    finding = {"target": call["target"], "mode": mode, "kind": kind, "exception": exception,
               "message": message or "", "where": where, "code": call["code"], "pos": list(call["pos"]),
               "call": call["call"]}
    report.findings.append(finding)
    if kind in ("crash", "hang"):
        report.crashes_by_target[call["target"]] += 1 if kind == "crash" else 3  # a hang costs a timeout
        log(f"[{mode}] {kind.upper()} {exception or ''} in {call['target']}")


# --- Classes of findings ----------------------------------------------------------


def class_key(f):
    """Findings with the same key are taken to be one bug."""
    text = f["message"].splitlines()[-1] if f["kind"] == "crash" and f["message"] else f["message"]
    return (f["target"], f["kind"], f["exception"] or "", f["where"] or "", message_pattern(text))


def group(findings):
    classes = collections.OrderedDict()
    for f in findings:
        key = class_key(f)
        entry = classes.setdefault(key, {"target": f["target"], "kind": f["kind"], "exception": f["exception"],
                                         "pattern": key[4], "where": f["where"], "count": 0, "modes": [],
                                         "message": f["message"], "mode": f["mode"], "code": f["code"],
                                         "call": f["call"]})
        entry["count"] += 1
        if f["mode"] not in entry["modes"]:
            entry["modes"].append(f["mode"])
    return list(classes.values())


def confirm(entry, timeout):
    """Runs a crash or hang class's reproducer alone; records what it did there."""
    try:
        proc = subprocess.run([sys.executable, "-c", PRELUDE + entry["code"]], capture_output=True, text=True,
                              timeout=timeout * 2, cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        entry["alone"] = "hang"
        return
    if proc.returncode < 0:
        entry["alone"] = f"crash {signal.Signals(-proc.returncode).name}"
    elif proc.returncode:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        entry["alone"] = f"exit {proc.returncode}: {last[:200]}"
    else:
        entry["alone"] = "no error"


# --- The command line ---------------------------------------------------------------


def run(modes, seconds, seed, timeout=10.0, batch=8, log=print, minimize_seconds=0.0):
    """Fuzzes each mode for `seconds`; returns the summary that --out writes.

    Crash and hang classes are then confirmed alone, and crash reproducers
    minimized for up to `minimize_seconds` in all."""
    reports = [fuzz_mode(m, seconds, seed, timeout, batch, log) for m in modes]
    findings = [f for r in reports for f in r.findings]
    classes = group(findings)
    stop = time.monotonic() + minimize_seconds
    for entry in classes:
        if entry["kind"] in ("crash", "hang"):
            confirm(entry, timeout)
        if entry.get("alone", "").startswith("crash") and time.monotonic() < stop:
            small, _ = minimize.minimize(minimize.from_dict(entry["call"]), entry["mode"], entry["alone"], timeout)
            entry["original_code"], entry["code"] = entry["code"], small.code(entry["mode"])
    return {
        "seed": seed,
        "modes": [{"mode": r.mode, "seconds": r.seconds, "calls": r.calls, "returned": r.returned,
                   "workers": r.workers,
                   "skipped": r.skipped(),
                   "crashes": r.count("crash"), "hangs": r.count("hang"),
                   "other": len(r.findings) - r.count("crash") - r.count("hang")} for r in reports],
        "classes": classes,
        "findings": findings,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=MODES + ("all",), default="all")
    parser.add_argument("--seconds", type=float, default=60, help="fuzzing time per mode")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10, help="seconds one call may take")
    parser.add_argument("--batch", type=int, default=8, help="calls per target before moving on")
    parser.add_argument("--minimize-seconds", type=float, default=120,
                        help="time to spend shrinking crash reproducers after the run")
    parser.add_argument("--out", help="write the findings here (JSON)")
    args = parser.parse_args(argv)
    modes = MODES if args.mode == "all" else (args.mode,)
    summary = run(modes, args.seconds, args.seed, args.timeout, args.batch, minimize_seconds=args.minimize_seconds)
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(summary, indent=1))
    for m in summary["modes"]:
        print(f"{m['mode']:8} {m['calls']:7} calls ({m['returned']} returned) in {m['seconds']:6.1f} s: "
              f"{m['crashes']} crashes, "
              f"{m['hangs']} hangs, {m['other']} wrong exceptions or messages")
    kinds = collections.Counter(c["kind"] for c in summary["classes"])
    print(f"{len(summary['classes'])} classes: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    return 1 if kinds["crash"] or kinds["hang"] or kinds["unusable"] else 0


if __name__ == "__main__":
    sys.exit(main())

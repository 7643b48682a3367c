"""Writes the finding classes of one or more api_fuzzer.py runs as Markdown.

    python tests/fuzz/report.py [--status] findings.json [more.json ...] > classes.md

Classes from several runs are merged by the same key the fuzzer groups by.
Crashes and hangs come first, then wrong exceptions and messages; each
class shows its count, the modes it appeared in, the message and the
reproducer (the statements after calls.PRELUDE). With --status, each
reproducer is run again alone against the installed Ember, and the class is
marked open or fixed.
"""

import json
import pathlib
import signal
import subprocess
import sys
import tempfile
import textwrap

HERE = pathlib.Path(__file__).resolve().parent

ORDER = {"crash": 0, "hang": 1, "unusable": 2, "wrong-exception": 2, "raw-cpp-message": 3, "wrong-message": 4, "bad-result": 5}


def merge(paths):
    classes, runs = {}, []
    for path in paths:
        with open(path) as f:
            summary = json.load(f)
        runs += summary["modes"]
        for c in summary["classes"]:
            key = (c["target"], c["kind"], c["exception"] or "", c["where"] or "", c["pattern"])
            if key in classes:
                classes[key]["count"] += c["count"]
                classes[key]["modes"] = sorted(set(classes[key]["modes"]) | set(c["modes"]))
            else:
                classes[key] = dict(c)
    return runs, sorted(classes.values(), key=lambda c: (ORDER.get(c["kind"], 9), c["target"], c["pattern"]))


def status(code, timeout=30):
    """'fixed: ...' or 'open: ...' for one reproducer run alone now."""
    sys.path.insert(0, str(HERE))
    from calls import PRELUDE

    script = (f"import sys\nsys.path.insert(0, {str(HERE)!r})\nimport outcome\n" + PRELUDE + "try:\n"
              + textwrap.indent(code, "    ") + "except BaseException as e:\n"
              "    print('STATUS', outcome.classify(e) or 'allowed', type(e).__name__)\n"
              "else:\n    print('STATUS', outcome.check_result(out) and 'bad-result' or 'returned')\n")
    try:
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout,
                              cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return "open: hangs"
    if proc.returncode < 0:
        return f"open: crashes ({signal.Signals(-proc.returncode).name})"
    line = next((x for x in proc.stdout.splitlines() if x.startswith("STATUS ")), "STATUS ? exit")
    words = line.split()[1:]
    if words[0] in ("allowed", "returned"):
        return "fixed: " + ("returns a result" if words[0] == "returned" else f"raises {words[1]}")
    return f"open: {' '.join(words)}"


def markdown(runs, classes):
    out = ["| mode | calls | seconds | crashes | hangs | other |", "|---|---|---|---|---|---|"]
    out += [f"| {r['mode']} | {r['calls']} | {r['seconds']} | {r['crashes']} | {r['hangs']} | {r['other']} |"
            for r in runs]
    for i, c in enumerate(classes, 1):
        what = c["exception"] or ""
        out += ["", f"### {i}. {c['kind']} {what} in `{c['target']}` ({c['count']}x; {', '.join(c['modes'])})", ""]
        if c.get("status"):
            out.append(f"Status: {c['status']}.  ")
        if c.get("alone"):
            out.append(f"Run alone right after the run: {c['alone']}.  ")
        if c["where"]:
            out.append(f"Raised at `{c['where']}`.  ")
        message = c["message"].strip().replace("\n", " / ")[:300]
        if message:
            out.append(f"Message: `{message}`")
        out += ["", "```python", c["code"].rstrip(), "```"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    paths = [a for a in sys.argv[1:] if a != "--status"]
    runs, classes = merge(paths)
    if "--status" in sys.argv:
        for c in classes:
            c["status"] = status(c["code"])
    sys.stdout.write(markdown(runs, classes))

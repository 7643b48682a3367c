"""Writes the finding classes of one or more api_fuzzer.py runs as Markdown.

    python tests/fuzz/report.py findings.json [more.json ...] > classes.md

Classes from several runs are merged by the same key the fuzzer groups by.
Crashes and hangs come first, then wrong exceptions and messages; each
class shows its count, the modes it appeared in, the message and the
reproducer (the statements after calls.PRELUDE).
"""

import json
import sys

ORDER = {"crash": 0, "hang": 1, "wrong-exception": 2, "raw-cpp-message": 3, "wrong-message": 4, "bad-result": 5}


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


def markdown(runs, classes):
    out = ["| mode | calls | seconds | crashes | hangs | other |", "|---|---|---|---|---|---|"]
    out += [f"| {r['mode']} | {r['calls']} | {r['seconds']} | {r['crashes']} | {r['hangs']} | {r['other']} |"
            for r in runs]
    for i, c in enumerate(classes, 1):
        what = c["exception"] or ""
        out += ["", f"### {i}. {c['kind']} {what} in `{c['target']}` ({c['count']}x; {', '.join(c['modes'])})", ""]
        if c.get("alone"):
            out.append(f"Run alone: {c['alone']}.  ")
        if c["where"]:
            out.append(f"Raised at `{c['where']}`.  ")
        message = c["message"].strip().replace("\n", " / ")[:300]
        if message:
            out.append(f"Message: `{message}`")
        out += ["", "```python", c["code"].rstrip(), "```"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown(*merge(sys.argv[1:])))

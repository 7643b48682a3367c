"""Times every sample of the op database (tests/python/op_db.py) as eager
calls on the CPU: each op, dtype and sample is called with tensor inputs
made beforehand, `--repeats` rounds of `--inner` calls each, in sync mode
(so each call includes its kernel), and the best round is kept. Prints the
total over all samples and the per-family totals; `--json` writes every
sample's time, so two builds can be compared sample by sample.

Usage:  python benchmarks/op_database.py [--repeats 5] [--inner 20] [--json out.json]

To compare two builds in one sitting, run it once per build, alternating,
and compare the totals (PYTHONPATH selects the build).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "python"))

import ember  # noqa: E402
from op_db import OP_DB, samples_for  # noqa: E402


def to_ember(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return ember.constant(np.asarray(value))
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        return [to_ember(v) for v in value]
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--inner", type=int, default=20)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    ember.config.set_async(False)
    times = {}
    families = defaultdict(float)
    for name, info in OP_DB.items():
        if "print" in name:  # writes to the terminal: timing it would time the terminal
            continue
        for dtype in info.dtypes:
            for sample in samples_for(info, dtype):
                inputs = [to_ember(a) for a in sample.args]
                try:
                    info.op(*inputs, **sample.kwargs)
                except Exception:  # noqa: BLE001 - a sample that raises is timed by the error tests
                    continue
                best = float("inf")
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    for _ in range(args.inner):
                        info.op(*inputs, **sample.kwargs)
                    best = min(best, (time.perf_counter() - t0) / args.inner)
                key = f"{name}/{dtype}/{sample.name}"
                times[key] = best
                families[name] += best
    total = sum(times.values())
    print(f"{len(times)} samples, total of best per-call times {total * 1e3:.2f} ms (ember {ember.__file__})")
    for name, t in sorted(families.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {name:32s} {t * 1e3:8.3f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps({"total": total, "samples": times}, indent=0))


if __name__ == "__main__":
    main()

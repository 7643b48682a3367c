"""python -m benchmarks: runs the suite (Ember next to NumPy, PyTorch,
TensorFlow and JAX where they import) and writes results.json, results.md
and PNG charts; see docs/benchmarks.md."""
import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.suite import (cases_dispatch, cases_elementwise, cases_kernels, cases_memory, cases_models, machine,
                              publish, report, runner)
from benchmarks.suite.context import Context
from benchmarks.suite.peers import ALL, Peers

GROUPS = (cases_dispatch, cases_elementwise, cases_kernels, cases_models, cases_memory)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="smoke test: small inputs and few rounds, seconds not minutes; not for comparison")
    p.add_argument("--only", metavar="PATTERN",
                   help="run the cases whose 'group/name' matches this regular expression (case-insensitive), "
                        "e.g. 'dispatch', 'conv', 'models/resnet'")
    p.add_argument("--out", metavar="DIR",
                   help=f"where to write results.json, results.md and the charts (default: "
                        f"{publish.DEFAULT_OUT.relative_to(machine.REPO)}/, or a temporary folder with --quick)")
    p.add_argument("--peers", default=",".join(ALL),
                   help="comma-separated frameworks to load (ember and numpy always are); default: all")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--render", action="store_true",
                   help="rewrite results.md and the charts from the results.json in --out, without running")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    out_dir = Path(args.out) if args.out else (
        Path(tempfile.gettempdir()) / "ember-benchmarks-quick" if args.quick else publish.DEFAULT_OUT)
    if args.render:
        results = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
        for path in publish.write(results, out_dir):
            print("wrote", path)
        return 0

    try:
        peers = Peers([n.strip() for n in args.peers.split(",") if n.strip()])
    except ValueError as e:
        print(f"python -m benchmarks: --peers: {e}", file=sys.stderr)
        return 2
    ctx = Context(peers, quick=args.quick)
    specs = [s for group in GROUPS for s in group.specs(ctx)]
    if args.only:
        pattern = re.compile(args.only, re.IGNORECASE)
        specs = [s for s in specs if pattern.search(s.key)]
    if args.list or not specs:
        for s in specs:
            print(s.key)
        if not specs:
            print(f"no case matches --only {args.only!r}", file=sys.stderr)
        return 0 if specs else 2

    started = time.strftime("%Y-%m-%d %H:%M:%S %z")
    load_before = machine.load()
    start = time.perf_counter()
    info = machine.describe()
    print(f"{info['cpu']}, {info['cpu_count']} CPUs, load {load_before}; {len(specs)} cases"
          f"{' (--quick)' if args.quick else ''}", flush=True)
    records = []
    for spec in specs:
        record = spec.run() if spec.run else runner.run(spec)
        records.append(record)
        print("\n".join(report.case_lines(record, report.memcpy_gbps(records))), flush=True)

    # The installed ember may be replaced while the suite runs (a rebuild);
    # the process keeps the old one loaded, but say so.
    installed_after = machine.ember_info()["installed_at"]
    if installed_after != info["ember"]["installed_at"]:
        info["ember"]["reinstalled_during_run_at"] = installed_after
    results = {
        "suite": "python -m benchmarks",
        "started": started,
        "duration_s": time.perf_counter() - start,
        "options": {"quick": args.quick, "only": args.only, "peers": args.peers, "argv": sys.argv[1:]},
        "load_before": load_before,
        "load_after": machine.load(),
        "machine": dict(info, thread_pools_after_run=machine.blas()),  # with every framework loaded
        "peers": ctx.peers.describe(),
        "cases": records,
    }
    print("\nskipped frameworks: " + (", ".join(f"{n} ({p['skipped']})" for n, p in results["peers"].items()
                                         if not p["used"]) or "none"))
    print("failures and mismatches:\n" + report.problems(results))
    for path in publish.write(results, out_dir):
        print("wrote", path)
    print(f"total {results['duration_s']:.0f} s, load {load_before} -> {results['load_after']}")
    # Times never fail the run; Ember raising or computing a wrong output does.
    broken = [f"{r['group']}/{r['name']}: {e['impl']}" for r in records for e in r.get("results", [])
              if e["ember"] and ("error" in e or not e.get("check", {}).get("ok", True))]
    broken += [f"{r['group']}/{r['name']}" for r in records if "error" in r]
    if broken:
        print("exit status 1: Ember failed or mismatched in " + "; ".join(broken), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

from benchmarks.suite import groups, isolated, machine, publish, report, runner, targets
from benchmarks.suite.context import Context
from benchmarks.suite.peers import ALL, Peers


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
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--isolated", dest="mode", action="store_const", const="isolated",
                      help="the default: each framework in a process of its own, in passes of alternating order "
                           "(Note [Isolated timing], benchmarks/suite/isolated.py)")
    mode.add_argument("--interleaved", dest="mode", action="store_const", const="interleaved",
                      help="every framework in this process, the implementations of a case timed in "
                           "interleaved rounds (the suite's first mode)")
    p.set_defaults(mode="isolated")
    p.add_argument("--passes", type=int, default=2, metavar="N",
                   help="isolated mode: run every framework's process N times, alternating the order (default 2)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="isolated mode: kill a framework's process that spends this long on one case, report "
                        "the case as that framework's failure and run the rest in a new process (default 600, "
                        "or 300 with --quick)")
    p.add_argument("--busy", type=int, default=0, metavar="N",
                   help="run N competing busy processes for the whole run, to measure a loaded machine "
                        "(Note [Busy processes], benchmarks/suite/machine.py); default 0")
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
    if args.busy < 0:
        print("python -m benchmarks: --busy must be 0 or more", file=sys.stderr)
        return 2
    if args.passes < 1:
        print("python -m benchmarks: --passes must be at least 1", file=sys.stderr)
        return 2
    ctx = Context(peers, quick=args.quick)
    specs = groups.specs(ctx)
    if args.only:
        pattern = re.compile(args.only, re.IGNORECASE)
        specs = [s for s in specs if pattern.search(s.key)]
    if args.list or not specs:
        for s in specs:
            print(s.key)
        if not specs:
            print(f"no case matches --only {args.only!r}", file=sys.stderr)
        return 0 if specs else 2

    with machine.busy_processes(args.busy):
        return _run(args, ctx, peers, specs, out_dir)


def _run(args, ctx, peers, specs, out_dir):
    started = time.strftime("%Y-%m-%d %H:%M:%S %z")
    load_before = machine.load()
    start = time.perf_counter()
    info = machine.describe()
    print(f"{info['cpu']}, {info['cpu_count']} CPUs, load {load_before}; {len(specs)} cases"
          f"{' (--quick)' if args.quick else ''}, {args.mode} mode", flush=True)
    merged, mode = {}, {"name": "interleaved"}
    if args.mode == "isolated":
        timed = [s for s in specs if s.run is None]  # the memory cases start processes of their own
        frameworks = [n for n in ALL if n in peers.wanted]
        timeout = args.timeout or (300 if args.quick else 600)
        processes = isolated.run_processes([s.key for s in timed], frameworks, args.passes, args.quick,
                                           timeout) if timed else []
        merged = {s.key: isolated.merge_case(s.group, s.name, processes) for s in timed}
        mode = isolated.describe(processes, frameworks, args.passes, timeout)
    records = []
    for spec in specs:
        if spec.key in merged:
            record = merged[spec.key]
        else:
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
        "options": {"quick": args.quick, "only": args.only, "peers": args.peers, "mode": args.mode,
                    "busy": args.busy, "argv": sys.argv[1:]},
        "mode": mode,
        "load_before": load_before,
        "load_after": machine.load(),
        # Interleaved: this process's, with every framework loaded; isolated: each framework's process's.
        "machine": dict(info, thread_pools_after_run=machine.blas() if args.mode == "interleaved"
                        else isolated.thread_pools(processes)),
        "peers": ctx.peers.describe(),
        "cases": records,
    }
    if args.mode == "isolated":
        for name, entry in isolated.peers(processes).items():  # the parent loads peers only for the memory cases
            if entry.get("used") or not results["peers"][name].get("used"):
                results["peers"][name] = entry
    print("\nskipped frameworks: " + (", ".join(f"{n} ({p['skipped']})" for n, p in results["peers"].items()
                                         if not p["used"]) or "none"))
    print("failures and mismatches:\n" + report.problems(results))
    print("\n".join(targets.console_lines(results)))
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

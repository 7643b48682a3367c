"""GPU benchmark cases of tests/gpu/run.sh: the suite's models (MLP,
ResNet-50, Transformer block; benchmarks/suite/models) with Ember on gpu:0
against PyTorch on the same GPU, eager and compiled (@ember.function,
torch.compile), in one process, median of interleaved rounds. Each round
ends when the result is ready (ember.sync(), torch.cuda.synchronize()), so
the time is what a program waiting for the result sees; each case's
outputs are compared across the two frameworks before it is timed. Each
case runs in its own process (a device fault in one leaves the others).
On a GPU each function is timed again replayed as a CUDA graph
(ember_graph_ms; Note [Graph replay]), its results compared with eager
mode's.

    python tests/gpu/bench_gpu.py [--json FILE] [--smoke] [--no-compile] [--rounds N] [--case NAME]
    python tests/gpu/bench_gpu.py --check-only --case "resnet50 b1"   # once, no timing (for compute-sanitizer)
    python tests/gpu/bench_gpu.py --device cpu:0 --torch-device cpu --smoke   # a dry run without a GPU
    python tests/gpu/bench_gpu.py --profile --case "resnet50 b1"   # where one eager step's host time goes

GPU-busy fraction is not measured yet (it needs a profiler pass)."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import ember  # noqa: E402
from benchmarks.suite.frameworks import ember_ops  # noqa: E402
from benchmarks.suite.models import mlp, resnet50, transformer  # noqa: E402

# (name, model, batch, dtype, tolerance against PyTorch, time torch.compile too). torch.compile
# takes about a minute per model to compile, so only the batch-1 cases the CUDA issue's targets
# name compare against it; the run fits the device tool's 10 minutes per command.
CASES = [("mlp b1", mlp, 1, "float32", 2e-2, True), ("mlp b64", mlp, 64, "float32", 2e-2, False),
         ("resnet50 b1", resnet50, 1, "float32", 5e-2, True), ("resnet50 b32", resnet50, 32, "float32", 5e-2, False),
         ("resnet50 b1 f16", resnet50, 1, "float16", 1.5e-1, False),
         ("resnet50 b32 f16", resnet50, 32, "float16", 1.5e-1, False),
         ("transformer b1", transformer, 1, "float32", 5e-2, True)]
SMOKE = [("mlp b1", mlp, 1, "float32", 2e-2, False)]


def median_ms(fn, rounds, inner):
    fn()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - start) / inner * 1e3)
    return statistics.median(times)


def tree_map(fn, tree):
    if isinstance(tree, dict):
        return {k: tree_map(fn, v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [tree_map(fn, v) for v in tree]
    return fn(tree)


def ember_runners(model, params, x, dtype, device):
    dt = getattr(ember, dtype)
    with ember.device(device):
        p = tree_map(lambda a: ember.cast(ember.identity(ember.constant(np.asarray(a))), dt), params)
        xs = ember.cast(ember.identity(ember.constant(x)), dt)

    def eager():
        with ember.device(device):
            y = model.forward(ember_ops, p, xs)
        ember.sync()
        return y

    compiled = ember.function(lambda v: model.forward(ember_ops, p, v))

    def function():
        with ember.device(device):
            y = compiled(xs)
        ember.sync()
        return y

    return eager, function, lambda y: ember.cast(y, ember.float32).numpy()


def torch_runners(torch, model, params, x, dtype, device):
    from benchmarks.suite.frameworks import torch_ops

    dt = getattr(torch, dtype)
    p = tree_map(lambda t: t.to(device=device, dtype=dt), torch_ops.params(params))
    xs = (torch_ops.image(x) if model.IMAGE_INPUT else torch_ops.tensor(x)).to(device=device, dtype=dt)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)

    def eager():
        with torch.no_grad():
            y = model.forward(torch_ops, p, xs)
        sync()
        return y

    compiled_fn = None

    def compiled():
        nonlocal compiled_fn
        if compiled_fn is None:
            compiled_fn = torch.compile(lambda v: model.forward(torch_ops, p, v))
        with torch.no_grad():
            y = compiled_fn(xs)
        sync()
        return y

    def read(y):
        y = y.float().cpu()
        return (y.permute(0, 2, 3, 1) if y.dim() == 4 else y).numpy()

    return eager, compiled, read


def parse_args(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="gpu:0")
    parser.add_argument("--torch-device", default="cuda")
    parser.add_argument("--json", default=None)
    parser.add_argument("--smoke", action="store_true", help="MLP only, few rounds")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (about a minute per model)")
    parser.add_argument("--case", default=None, help="only the case of this name, in this process")
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds per runner (median reported)")
    parser.add_argument("--profile", action="store_true",
                        help="profile 3 eager steps of each case with ember.profiler: ops per step, host "
                             "dispatch time per step and the top ops by dispatch and kernel time; no timing")
    parser.add_argument("--check-only", action="store_true",
                        help="run each case eagerly and as a function once and compare; no timing, no PyTorch "
                             "(what tests/gpu/run.sh runs under compute-sanitizer)")
    return parser.parse_args(argv)


def measure_graph(args, row, function, read, want, tol, rounds, inner):
    """The function again with CUDA graphs on (Note [Graph replay]): the
    first call warms, the second captures, the rest replay; whether its
    results match eager mode, how many calls replayed, and (unless
    --check-only) the median time per call."""
    from ember import _C

    ember.config.experimental.enable_cuda_graphs(True)
    try:
        before = _C._graph_replay_count()
        matches = all(np.allclose(read(function()), want, rtol=tol, atol=tol) for _ in range(3))
        row["graph_matches_eager"] = bool(matches)
        if not args.check_only:
            row["ember_graph_ms"] = median_ms(function, rounds, inner)
        row["graph_replays"] = _C._graph_replay_count() - before
    finally:
        ember.config.experimental.enable_cuda_graphs(False)


def run_case(args, case, torch):
    """One case's row: its timings and comparisons, or the error it met."""
    name, model, batch, dtype, tol, compare_compiled = case
    rounds, inner = (3, 2) if args.smoke else (args.rounds, 10)
    rng = np.random.default_rng(0)
    params = model.init(rng)
    x = model.example_input(rng, batch=batch)
    row = {"case": name, "device": args.device}
    try:
        eager, function, read = ember_runners(model, params, x, dtype, args.device)
        want = read(eager())
        if not args.check_only:
            row["ember_eager_ms"] = median_ms(eager, rounds, inner)
            row["ember_function_ms"] = median_ms(function, rounds, inner)
        row["function_matches_eager"] = bool(np.allclose(read(function()), want, rtol=tol, atol=tol))
        if args.device.startswith("gpu"):
            measure_graph(args, row, function, read, want, tol, rounds, inner)
    except Exception as e:  # reported in the row
        row["ember_error"] = f"{type(e).__name__}: {e}"
        return row
    if torch is None or args.check_only:
        return row
    t_eager, t_compiled, t_read = torch_runners(torch, model, params, x, dtype, args.torch_device)
    got = t_read(t_eager())
    row["matches_torch"] = bool(np.allclose(want, got, rtol=tol, atol=tol))
    row["max_abs_difference"] = float(np.max(np.abs(want - got))) if want.size else 0.0
    row["torch_eager_ms"] = median_ms(t_eager, rounds, inner)
    row["eager_ratio"] = row["ember_eager_ms"] / row["torch_eager_ms"]
    if compare_compiled and not args.no_compile:
        try:
            row["torch_compile_ms"] = median_ms(t_compiled, rounds, inner)
            row["function_ratio"] = row["ember_function_ms"] / row["torch_compile_ms"]
            if "ember_graph_ms" in row:
                row["graph_ratio"] = row["ember_graph_ms"] / row["torch_compile_ms"]
        except Exception as e:
            row["torch_compile_error"] = f"{type(e).__name__}: {e}"[:300]
    return row


def profile_case(args, case):
    """Where an eager step's host time goes: with the GPU's kernels queued
    behind the host, the step's time is its dispatch time when the host is
    the bottleneck (the CUDA issue's ResNet-50 batch 1 case)."""
    name, model, batch, dtype, _, _ = case
    rng = np.random.default_rng(0)
    eager, _, _ = ember_runners(model, model.init(rng), model.example_input(rng, batch=batch), dtype, args.device)
    eager()
    steps = 3
    ember.profiler.start()
    start = time.perf_counter()
    for _ in range(steps):
        eager()
    wall_ms = (time.perf_counter() - start) / steps * 1e3
    result = ember.profiler.stop(save=False)
    stats = result.op_stats()
    calls = sum(s["calls"] for s in stats.values()) / steps
    dispatch_ms = sum(s["dispatch_ns"] for s in stats.values()) / steps / 1e6
    print(f"## {name} on {args.device}: {calls:.0f} ops per eager step, host dispatch {dispatch_ms:.2f} ms of "
          f"{wall_ms:.2f} ms per step (profiler on)")
    print(result.summary(sort_by="dispatch_total", top=15))
    print(result.summary(sort_by="kernel_total", top=10))
    return {"case": name, "ops_per_step": calls, "dispatch_ms": dispatch_ms, "step_ms_profiled": wall_ms}


def run_isolated(case_name):
    """Runs one case in a child process, so that a device fault in it (a
    sticky CUDA error fails every later GPU call of its process) leaves the
    other cases' numbers intact."""
    argv = [a for a in sys.argv[1:]]
    if "--json" in argv:
        i = argv.index("--json")
        del argv[i:i + 2]
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), *argv, "--case", case_name],
                          capture_output=True, text=True)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if rows:
        return rows[0]
    tail = (proc.stderr or proc.stdout)[-300:]
    return {"case": case_name, "ember_error": f"the case's process exited with {proc.returncode}: {tail}"}


def main():
    args = parse_args()
    # "ember_function_ms" is node by node; measure_graph turns CUDA graphs
    # on for "ember_graph_ms" (they are on by default).
    ember.config.experimental.enable_cuda_graphs(False)
    torch = None
    if not args.check_only and not args.profile:
        try:
            import torch
            if args.torch_device.startswith("cuda") and not torch.cuda.is_available():
                torch = None
        except ImportError:
            torch = None
    cases = SMOKE if args.smoke else CASES
    rows = []
    for case in cases:
        if args.case is not None and args.case != case[0]:
            continue
        if args.profile:
            rows.append(profile_case(args, case))
            continue
        row = run_case(args, case, torch) if args.case is not None or args.smoke else run_isolated(case[0])
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"build_info": ember.config.build_info(), "rows": rows}, f, indent=1, default=str)
    ok = all("ember_error" not in r and r.get("matches_torch", True) and r.get("function_matches_eager", True)
             and r.get("graph_matches_eager", True) for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

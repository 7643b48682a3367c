"""Measures Ember's per-op dispatch cost and a mid-size matmul, next to NumPy.

Dispatch: `add` of two 1-element float32 tensors, so the kernel is trivial
and the time is almost all Python -> C++ -> executor overhead. Ember is timed
in sync mode (the kernel runs inside the call) and in async mode (calls only
enqueue; reported both as the enqueue rate and including the final
`ember.sync()`). NumPy on the same arrays is the baseline; PyTorch,
TensorFlow and JAX are added when they are importable.

Matmul: 256x256 float32 @ 256x256 float32, Ember (sync and async) vs NumPy.

Usage:  python benchmarks/dispatch.py [--calls N] [--repeats K] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import numpy as np

import ember


# --- timing helpers -----------------------------------------------------------


def best_per_call(loop, calls, repeats, warmup):
    """Runs loop(calls) `repeats` times after a warm-up; returns the best
    seconds per call."""
    loop(warmup)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        loop(calls)
        best = min(best, time.perf_counter() - t0)
    return best / calls


def best_async(fn, args, calls, repeats, warmup, wait):
    """Times `calls` calls of fn(*args), then wait(). Returns the best
    (enqueue seconds per call, total seconds per call) over `repeats`."""
    for _ in range(warmup):
        fn(*args)
    wait()
    best_enqueue = best_total = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        t1 = time.perf_counter()
        wait()
        t2 = time.perf_counter()
        best_enqueue = min(best_enqueue, t1 - t0)
        best_total = min(best_total, t2 - t0)
    return best_enqueue / calls, best_total / calls


def repeat_call(fn, *args):
    """A tight loop calling fn(*args) n times (locals only, no attribute lookups)."""
    def loop(n):
        for _ in range(n):
            fn(*args)
    return loop


# --- the measurements ----------------------------------------------------------


def ember_results(calls, repeats, size, mm_calls):
    out = []
    was_async = ember.config.is_async()
    a = ember.constant(np.ones(1, np.float32))
    b = ember.constant(np.ones(1, np.float32))
    ma = ember.constant(np.random.default_rng(0).standard_normal((size, size), dtype=np.float32))
    mb = ember.constant(np.random.default_rng(1).standard_normal((size, size), dtype=np.float32))
    add, matmul = ember.add, ember.matmul
    try:
        ember.config.set_async(False)
        out.append(("add", "ember sync", best_per_call(repeat_call(add, a, b), calls, repeats, calls // 10)))
        out.append(("matmul", "ember sync",
                    best_per_call(repeat_call(matmul, ma, mb), mm_calls, repeats, 3)))

        ember.config.set_async(True)
        enqueue, total = best_async(add, (a, b), calls, repeats, calls // 10, ember.sync)
        out.append(("add", "ember async (enqueue only)", enqueue))
        out.append(("add", "ember async (incl. sync)", total))
        _, total = best_async(matmul, (ma, mb), mm_calls, repeats, 3, ember.sync)
        out.append(("matmul", "ember async (incl. sync)", total))
    finally:
        ember.config.set_async(was_async)
    return out


def numpy_results(calls, repeats, size, mm_calls):
    a = np.ones(1, np.float32)
    b = np.ones(1, np.float32)
    rng = np.random.default_rng(0)
    ma = rng.standard_normal((size, size), dtype=np.float32)
    mb = rng.standard_normal((size, size), dtype=np.float32)
    return [
        ("add", "numpy", best_per_call(repeat_call(np.add, a, b), calls, repeats, calls // 10)),
        ("matmul", "numpy", best_per_call(repeat_call(np.matmul, ma, mb), mm_calls, repeats, 3)),
    ]


def other_framework_results(calls, repeats):
    """1-element float32 add in whichever of PyTorch, TensorFlow and JAX import."""
    out, skipped = [], []
    try:
        import torch
        a, b = torch.ones(1), torch.ones(1)
        out.append(("add", f"torch {torch.__version__}",
                    best_per_call(repeat_call(torch.add, a, b), calls, repeats, calls // 10)))
    except ImportError:
        skipped.append("torch")
    try:
        import tensorflow as tf
        a, b = tf.ones([1]), tf.ones([1])
        out.append(("add", f"tensorflow {tf.__version__}",
                    best_per_call(repeat_call(tf.add, a, b), calls, repeats, calls // 10)))
    except ImportError:
        skipped.append("tensorflow")
    try:
        import jax
        import jax.numpy as jnp
        a, b = jnp.ones(1, jnp.float32), jnp.ones(1, jnp.float32)
        last = [None]

        def jax_add(x, y):
            last[0] = jnp.add(x, y)

        def jax_wait():
            if last[0] is not None:
                last[0].block_until_ready()

        _, total = best_async(jax_add, (a, b), calls, repeats, calls // 10, jax_wait)
        out.append(("add", f"jax {jax.__version__} (incl. block)", total))
    except ImportError:
        skipped.append("jax")
    return out, skipped


# --- reporting -----------------------------------------------------------------


def environment_lines():
    lines = [f"python {platform.python_version()}, numpy {np.__version__}, ember {ember.__version__}, "
             f"{platform.machine()}, {os.cpu_count()} CPUs"]
    if os.environ.get("OPENBLAS_CORETYPE"):
        lines.append(f"note: OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} is set; NumPy's matmul "
                     "may be slower than on a default install (see benchmarks/README.md)")
    try:
        from threadpoolctl import threadpool_info
        for pool in threadpool_info():
            lines.append(f"threadpool: {pool.get('internal_api')} {pool.get('version')} "
                         f"threads={pool.get('num_threads')} arch={pool.get('architecture')}")
    except ImportError:
        lines.append("threadpoolctl not installed: BLAS thread/arch info not shown")
    return lines


def print_table(results, baseline):
    print(f"{'op':<8} {'implementation':<34} {'us/op':>10} {'vs numpy':>9}")
    print("-" * 64)
    for op, impl, seconds in results:
        ratio = seconds / baseline[op] if baseline.get(op) else float("nan")
        print(f"{op:<8} {impl:<34} {seconds * 1e6:>10.2f} {ratio:>8.2f}x")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000, help="add calls per timed repeat")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats; the best is reported")
    parser.add_argument("--matmul-size", type=int, default=256)
    parser.add_argument("--matmul-calls", type=int, default=50, help="matmul calls per timed repeat")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)

    env = environment_lines()
    for line in env:
        print(line)
    print(f"add: 1-element float32, {args.calls} calls x {args.repeats} repeats (best); "
          f"matmul: {args.matmul_size}x{args.matmul_size} float32, {args.matmul_calls} calls x "
          f"{args.repeats} repeats\n")

    results = numpy_results(args.calls, args.repeats, args.matmul_size, args.matmul_calls)
    results += ember_results(args.calls, args.repeats, args.matmul_size, args.matmul_calls)
    others, skipped = other_framework_results(args.calls, args.repeats)
    results += others
    results.sort(key=lambda r: (r[0] != "add", r[1] != "numpy"))  # add first, numpy first
    baseline = {op: s for op, impl, s in results if impl == "numpy"}
    print_table(results, baseline)
    if skipped:
        print(f"\nnot installed, skipped: {', '.join(skipped)}")

    if args.json:
        payload = {
            "environment": env,
            "config": vars(args),
            "results": [{"op": op, "impl": impl, "us_per_op": s * 1e6,
                         "ratio_vs_numpy": s / baseline[op] if baseline.get(op) else None}
                        for op, impl, s in results],
            "skipped": skipped,
        }
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=2)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

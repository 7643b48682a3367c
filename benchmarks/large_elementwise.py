"""Times element-wise ops on 16M float32 elements (sync, best of N) next to
NumPy: the cost of a large op's kernel and of its output buffer (Note [Host
allocator]: a fresh 64 MiB output takes 16,384 page faults).

Usage:  python benchmarks/large_elementwise.py [--elements N] [--repeats K]
"""
import argparse
import time

import numpy as np

import ember


def best_seconds(fn, repeats):
    fn()  # warm-up: kernel cache, allocator
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=16 * 1024 * 1024)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    n = args.elements
    rng = np.random.default_rng(0)
    a_np, b_np = rng.random(n, np.float32), rng.random(n, np.float32)
    previous = ember.config.is_async()
    ember.config.set_async(False)
    try:
        a, b = ember.constant(a_np), ember.constant(b_np)
        # (name, call, bytes read and written)
        cases = [("ember add", lambda: ember.add(a, b), 3 * 4 * n),
                 ("ember multiply", lambda: ember.multiply(a, b), 3 * 4 * n),
                 ("ember exp", lambda: ember.exp(a), 2 * 4 * n),
                 ("ember tanh", lambda: ember.tanh(a), 2 * 4 * n),
                 ("numpy add", lambda: np.add(a_np, b_np), 3 * 4 * n),
                 ("numpy exp", lambda: np.exp(a_np), 2 * 4 * n)]
        print(f"{n} float32 elements, sync, best of {args.repeats}")
        for name, fn, nbytes in cases:
            t = best_seconds(fn, args.repeats)
            print(f"{name:16s} {t * 1e3:8.2f} ms  {nbytes / t / 1e9:6.1f} GB/s")
    finally:
        ember.config.set_async(previous)


if __name__ == "__main__":
    main()

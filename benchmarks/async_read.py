"""Times reading a value right after the op that makes it, in async and in
sync mode, next to NumPy; and a chain of dependent adds per op in both
modes (issue 12: async must not cost more than sync for small work).

Usage:  python benchmarks/async_read.py [--calls N] [--chain N] [--repeats K]
"""
import argparse
import statistics
import time

import numpy as np

import ember


def per_call_ns(fn, calls):
    """Each call timed on its own: (best, median) in microseconds."""
    times = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - start)
    return min(times) / 1e3, statistics.median(times) / 1e3


def chain_per_op(x, length, repeats):
    """Best time per op of `length` dependent adds, then one read."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        y = x
        for _ in range(length):
            y = y + x
        y.numpy()
        best = min(best, time.perf_counter() - start)
    return best / length * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--chain", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)

    a_np = np.ones(1, np.float32)
    a = ember.constant(a_np)
    rows = [("numpy: add then read", *per_call_ns(lambda: float(np.add(a_np, a_np)[0]), args.calls))]
    chains = {}
    previous = ember.config.is_async()
    try:
        for mode in ("sync", "async"):
            ember.config.set_async(mode == "async")
            for _ in range(3):  # warm-up: kernel cache, allocator, threads
                per_call_ns(lambda: ember.add(a, a).numpy(), 1000)
            rows.append((f"ember {mode}: add then read", *per_call_ns(lambda: ember.add(a, a).numpy(), args.calls)))
            chains[mode] = chain_per_op(a, args.chain, args.repeats)
    finally:
        ember.config.set_async(previous)
    chain_np = float("inf")
    for _ in range(args.repeats):
        start = time.perf_counter()
        y = a_np
        for _ in range(args.chain):
            y = y + a_np
        chain_np = min(chain_np, time.perf_counter() - start)
    chain_np = chain_np / args.chain * 1e6

    print(f"1-element float32 add, read at once: {args.calls} calls, each timed")
    print(f"{'case':34s} {'best':>9s} {'median':>9s}")
    for name, best, median in rows:
        print(f"{name:34s} {best:8.2f}us {median:8.2f}us")
    print(f"\nchain of {args.chain} dependent adds, then one read (best of {args.repeats}, per op)")
    print(f"{'numpy':34s} {chain_np:8.3f}us")
    for mode, t in chains.items():
        print(f"{'ember ' + mode:34s} {t:8.3f}us")


if __name__ == "__main__":
    main()

"""Times host <-> device copies on the simulated accelerator (no latency
injected): a 4-byte and a 64 MiB tensor, host -> sim:0 (ember.identity
under ember.device) and sim:0 -> host (numpy()), next to NumPy's own copy
of the same bytes (np.copy) as the memory-bandwidth reference.

Usage:  EMBER_SIMULATED_DEVICES=1 python benchmarks/device_copies.py [--repeats K]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

os.environ.setdefault("EMBER_SIMULATED_DEVICES", "1")
os.environ["EMBER_SIMULATED_LATENCY_US"] = "0"
import ember  # noqa: E402


def best(fn, repeats, inner):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - t0) / inner)
    return min(times), sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    if "sim:0" not in ember.list_devices():
        sys.exit("needs EMBER_SIMULATED_DEVICES=1 before ember is imported")
    print(f"{'case':34s} {'best':>10s} {'median':>10s}  {'GB/s (best)':>11s}")
    for label, nbytes in (("4 B", 4), ("64 MiB", 64 << 20)):
        host = ember.constant(np.ones(nbytes // 4, np.float32))
        array = host.numpy()
        inner = 2000 if nbytes < 4096 else 3

        def to_sim_and_wait():
            with ember.device("sim:0"):
                t = ember.identity(host)
            ember.sync()
            return t

        with ember.device("sim:0"):
            dev = ember.identity(host)
        dev.numpy()

        def to_host():
            return dev.numpy()

        cases = [
            (f"host -> sim:0, {label}", to_sim_and_wait),
            (f"sim:0 -> host (numpy()), {label}", to_host),
            (f"np.copy, {label} (reference)", lambda: np.copy(array)),
        ]
        for name, fn in cases:
            b, m = best(fn, args.repeats, inner)
            rate = nbytes / b / 1e9
            print(f"{name:34s} {b * 1e6:9.1f}us {m * 1e6:9.1f}us  {rate:11.3f}")


if __name__ == "__main__":
    main()

"""The stream-ordered runtime on the simulated accelerator (docs/devices.md):

1. a chain of 200 matmuls inside @ember.function on sim:0: wall time per
   call against the compute stream's own busy time, and host round trips
   (synchronizations plus callbacks) per node;
2. the same chain issued eagerly, op by op;
3. copies and kernels on separate streams: 16 uploads of 4 MiB on the
   host-to-device stream next to 16 independent kernels on 4 MiB on the
   compute stream; overlapped, the wall time is about the longer of the two
   streams' busy times, not their sum.

Every kernel and copy takes EMBER_SIMULATED_LATENCY_US on its stream
(default here 50 us) and every post EMBER_SIMULATED_LAUNCH_US of the
posting thread (default 2 us), as a GPU's kernels and launches would.

Usage:  python benchmarks/streams.py [--latency-us 50] [--launch-us 2] [--repeats 7]
"""
from __future__ import annotations

import argparse
import os
import sys
import time


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency-us", type=int, default=50)
    parser.add_argument("--launch-us", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--nodes", type=int, default=200)
    return parser.parse_args()


ARGS = parse_args()
os.environ["EMBER_SIMULATED_DEVICES"] = "1"
os.environ["EMBER_SIMULATED_LATENCY_US"] = str(ARGS.latency_us)
os.environ["EMBER_SIMULATED_LAUNCH_US"] = str(ARGS.launch_us)
import numpy as np  # noqa: E402

import ember  # noqa: E402


def stats():
    return ember.config.runtime_stats("sim:0")


def diff(after, before, stream=None):
    a = after["streams"][stream] if stream else after
    b = before["streams"][stream] if stream else before
    return {k: a[k] - b[k] for k in a if k != "streams"}


def measure(run, repeats):
    """Best wall time of `run`, with the stats before and after that round."""
    run()
    best = None
    for _ in range(repeats):
        ember.sync()
        before = stats()
        t0 = time.perf_counter()
        run()
        wall = time.perf_counter() - t0
        after = stats()
        if best is None or wall < best[0]:
            best = (wall, before, after)
    return best


def report_chain(label, n, run, repeats, unit):
    wall, before, after = measure(run, repeats)
    d = diff(after, before)
    trips = d["host_synchronizations"] + d["host_callbacks"]
    print(f"{label:26s} wall {wall * 1e3:8.2f} ms, compute stream busy {d['busy_seconds'] * 1e3:8.2f} ms,"
          f" wall/busy {wall / d['busy_seconds']:.3f}; kernels {d['kernels_enqueued']}, host round trips {trips}"
          f" ({trips / n:.3f} per {unit})")


def matmul_operands():
    with ember.device("sim:0"):
        return ember.identity(np.ones((1, 16), np.float32)), ember.identity(np.eye(16, dtype=np.float32))


def chain_in_function(n, repeats):
    @ember.function
    def chain(x, w):
        for _ in range(n):
            x = ember.matmul(x, w)
        return x

    x, w = matmul_operands()

    def run():
        with ember.device("sim:0"):
            y = chain(x, w)
        ember.sync()
        return y

    report_chain(f"function, {n}-node chain:", n, run, repeats, "node")


def chain_eager(n, repeats):
    x, w = matmul_operands()

    def run():
        y = x
        with ember.device("sim:0"):
            for _ in range(n):
                y = ember.matmul(y, w)
        ember.sync()
        return y

    report_chain(f"eager, {n}-op chain:", n, run, repeats, "op")


def copy_compute_overlap(count, repeats):
    host = [ember.constant(np.full(1 << 20, i, np.float32)) for i in range(count)]
    with ember.device("sim:0"):
        resident = ember.identity(np.ones(1 << 20, np.float32))
    ember.sync()

    def run():
        outs = []
        with ember.device("sim:0"):
            for i in range(count):
                outs.append(ember.identity(host[i]))  # upload on the host-to-device stream
                outs.append(resident * float(i))      # an independent kernel on the compute stream
        ember.sync()
        return outs

    wall, before, after = measure(run, repeats)
    copy_busy = diff(after, before, "host_to_device")["busy_seconds"]
    compute_busy = diff(after, before, "compute")["busy_seconds"]
    longer, total = max(copy_busy, compute_busy), copy_busy + compute_busy
    print(f"{count} uploads of 4 MiB + {count} kernels on 4 MiB: wall {wall * 1e3:7.2f} ms, copy stream busy {copy_busy * 1e3:7.2f} ms,"
          f" compute stream busy {compute_busy * 1e3:7.2f} ms; wall/longer {wall / longer:.2f}, wall/sum {wall / total:.2f}")


def main():
    if "sim:0" not in ember.list_devices():
        sys.exit("sim:0 missing: EMBER_SIMULATED_DEVICES must be set before ember is imported")
    print(f"sim:0 with {ARGS.latency_us} us per kernel or copy, {ARGS.launch_us} us per launch; best of {ARGS.repeats}")
    chain_in_function(ARGS.nodes, ARGS.repeats)
    chain_eager(ARGS.nodes, ARGS.repeats)
    copy_compute_overlap(16, ARGS.repeats)


if __name__ == "__main__":
    main()

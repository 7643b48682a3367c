"""All-reduce between processes: Ember's MpiCollectives next to mpi4py's own Allreduce on the same
buffers in the same run, over loopback on this machine.

Usage:  python benchmarks/allreduce.py [--workers 2,4] [--rounds R]

Started plainly, it reruns itself under mpiexec once per worker count. Every
worker then times, size by size and in alternating rounds, (a) ``comm.Allreduce``
on preallocated NumPy float32 buffers (MPI's own speed, the reference) and
(b) ``MpiCollectives.all_reduce([tensor], SUM)`` on an ember tensor of the same
size, which returns a new tensor (Note [Collectives across workers]), with its
metadata check (Note [Checked collectives]) and (c) without it (``check=False``),
(d) the same call inside an ``ember.function`` (a graph's collective op, run on the
executor) with its result read, and (e) the Python path over mpi4py that
MpiCollectives falls back to without MPI_THREAD_MULTIPLE (Note [Collective ops]).
A round's time is the slowest worker's; the median round is reported.

- small buffers (4 B to 4 KiB): the latency of one call, and Ember's over MPI's
  (the target: at most 2x);
- large buffers (1 to 64 MiB): bus bandwidth, bytes * 2 * (n - 1) / n / time (the
  convention of NCCL's tests, comparable across worker counts), and Ember's
  over MPI's (the target: at least 80%).
"""

import argparse
import os
import subprocess
import sys
import time

SMALL = [4, 256, 4096]
LARGE = [1 << 20, 4 << 20, 16 << 20, 64 << 20]


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="2,4", help="comma-separated worker counts (default 2,4)")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds per size and path (default 7)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # set on the mpiexec run
    return parser.parse_args(argv)


def _launch(options):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if not os.access(mpiexec, os.X_OK):
        mpiexec = "mpiexec"
    for n in options.workers.split(","):
        command = [mpiexec, "-n", n, sys.executable, os.path.abspath(__file__), "--worker",
                   "--rounds", str(options.rounds)]
        result = subprocess.run(command, timeout=900)
        if result.returncode:
            sys.exit(result.returncode)


def _timed(comm, calls, run):
    """The slowest worker's seconds per call over ``calls`` calls."""
    comm.Barrier()
    start = time.perf_counter()
    for _ in range(calls):
        run()
    mine = (time.perf_counter() - start) / calls
    return comm.allreduce(mine, op=_max())


def _max():
    from mpi4py import MPI
    return MPI.MAX


def _measure(options):
    import numpy as np
    from mpi4py import MPI

    import ember
    from ember.distribute import MpiCollectives

    comm = MPI.COMM_WORLD.Dup()
    collectives = MpiCollectives()
    unchecked = MpiCollectives(check=False)
    # The Python path over mpi4py, which MpiCollectives takes only where MPI lacks
    # MPI_THREAD_MULTIPLE (Note [Collective ops]): the earlier implementation, for comparison.
    python_path = MpiCollectives()
    python_path._native = None
    n, rank = comm.Get_size(), comm.Get_rank()
    rows = []
    for nbytes in SMALL + LARGE:
        count = nbytes // 4
        send = np.full(count, rank + 1, np.float32)
        receive = np.empty_like(send)
        tensor = ember.constant(send)
        # At least 4 calls a timing for large buffers: with 2, one call that found its buffers
        # out of cache (the paths alternate) swung a 16 MiB median by 20%.
        calls = 200 if nbytes in SMALL else max(4, (16 << 20) // nbytes)

        def raw():
            comm.Allreduce([send, MPI.FLOAT], [receive, MPI.FLOAT], MPI.SUM)

        def ours():
            collectives.all_reduce([tensor], "sum")

        def ours_unchecked():
            unchecked.all_reduce([tensor], "sum")

        def in_a_function():
            graph_step(tensor).numpy()

        def python_reference():
            python_path.all_reduce([tensor], "sum")

        graph_step = ember.function(lambda x: collectives.all_reduce([x], "sum")[0])
        for path in (raw, ours, ours_unchecked, in_a_function, python_reference):
            path()
        check = collectives.all_reduce([tensor], "sum")[0].numpy()
        assert check[0] == n * (n + 1) / 2 and receive[0] == n * (n + 1) / 2
        assert graph_step(tensor).numpy()[0] == n * (n + 1) / 2
        paths = {"mpi": raw, "ember": ours, "unchecked": ours_unchecked, "function": in_a_function,
                 "python": python_reference}
        times = {name: [] for name in paths}
        for _ in range(options.rounds):  # alternating, so every path sees the same machine load
            for name, path in paths.items():
                times[name].append(_timed(comm, calls, path))
        rows.append((nbytes, *(float(np.median(times[name])) for name in paths)))
    if rank == 0:
        _report(n, rows)


def _size(nbytes):
    return f"{nbytes >> 20} MiB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KiB" if nbytes >= 1024 else f"{nbytes} B"


def _report(n, rows):
    print(f"\n{n} workers over loopback (median of rounds, slowest worker per round; bandwidth is bus bandwidth)")
    print(f"{'size':>8} | {'MPI us':>8} | {'Ember us':>8} | {'x MPI':>6} | {'unchecked us':>12} | {'x MPI':>6} | "
          f"{'MPI GB/s':>8} | {'Ember GB/s':>10} | {'of MPI':>6} | {'unchecked':>9} | {'function us':>11} | "
          f"{'x MPI':>6} | {'Python path us':>14} | {'x MPI':>6}")
    for nbytes, mpi_s, ember_s, unchecked_s, function_s, python_s in rows:
        factor = 2 * (n - 1) / n

        def bandwidth(seconds):
            return nbytes * factor / seconds / 1e9

        print(f"{_size(nbytes):>8} | {mpi_s * 1e6:8.1f} | {ember_s * 1e6:8.1f} | {ember_s / mpi_s:6.2f} | "
              f"{unchecked_s * 1e6:12.1f} | {unchecked_s / mpi_s:6.2f} | {bandwidth(mpi_s):8.2f} | "
              f"{bandwidth(ember_s):10.2f} | {mpi_s / ember_s:6.0%} | {mpi_s / unchecked_s:9.0%} | "
              f"{function_s * 1e6:11.1f} | {function_s / mpi_s:6.2f} | {python_s * 1e6:14.1f} | "
              f"{python_s / mpi_s:6.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    options = _parse(sys.argv[1:])
    if options.worker:
        _measure(options)
    else:
        _launch(options)

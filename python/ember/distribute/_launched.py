"""Runs one worker's script for ember.distribute.run and records its process id and how it ended.

Started as a file (``python .../_launched.py script.py args``), not with -m,
so that nothing of Ember is imported before the script itself imports it.
The launcher reads the records to name the first worker that failed and
to end any worker left running (Note [Launcher] in run.py).
"""

import os
import runpy
import signal
import socket
import sys
import time
import traceback


def _rank():
    for name in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"):
        if name in os.environ:
            return os.environ[name]
    return "0"


def _record(kind, text):
    directory = os.environ.get("EMBER_LAUNCH_STATUS")
    if not directory or not os.path.isdir(directory):  # another host: the launcher cannot read it anyway
        return
    path = os.path.join(directory, f"{kind}-{_rank()}")
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)  # the launcher never reads half a record


def _exit_code(code):
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def main():
    # Under `mpiexec -disable-auto-cleanup` hydra tells the other workers of a death with SIGUSR1,
    # whose default action ends them; Ember's MPI layer handles it once loaded (Note [Lost workers]).
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    _record("pid", f"{os.getpid()} {socket.gethostname()}")
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))  # as if the script had been started itself
    report = None
    try:
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = _exit_code(stop.code)
    except BaseException as error:  # noqa: B036 - reported like an uncaught exception, then recorded
        code = 130 if isinstance(error, KeyboardInterrupt) else 1
        report = traceback.format_exc()
        _record("error", report)
    _record("exit", f"{code} {time.time()}")
    if report is not None:
        # Recorded first: after a worker died, hydra may stop reading the others' output, and the
        # write blocks until the worker is killed. The launcher prints the record (Note [Launcher]).
        try:
            sys.stderr.write(report)
            sys.stderr.flush()
        except OSError:
            pass
    if code:
        # MPI_Finalize would wait for workers that may be gone (Note [Lost workers] in _lost_workers.py).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


if __name__ == "__main__":
    main()

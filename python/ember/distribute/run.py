"""Starts the workers of a multi-worker job: ``python -m ember.distribute.run -n 4 train.py args...``.

Note [Launcher]: the launcher runs MPI's own mpiexec (the `mpich` wheel's,
found next to this Python or on PATH), one process per worker, each
running the script through _launched.py, which records the worker's
process id, its exit code, and the traceback of an uncaught exception in
a temporary directory. To mpiexec it adds:
- faults: with MPICH's hydra it passes -disable-auto-cleanup, so the other
  workers learn of a death by a signal and raise an error naming the lost
  rank (Note [Lost workers] in _lost_workers.py) instead of being killed
  at once, and the first failure stands out in time. Hydra may still end
  some of them, and its own report names one of the workers it killed,
  not the first. So the launcher watches the moment each local worker
  ends (_worker_ends.py): the first to end with a nonzero code, or
  without a record (killed, or crashed), is named, with the last line of
  what each worker raised (after a death hydra may stop passing the
  others' output on, so the recorded tracebacks are the reliable copy).
- its exit code: that worker's (mpiexec's, if it left no record).
- Ctrl-C: forwarded to mpiexec, which passes SIGINT on to the workers
  (KeyboardInterrupt in each); a second Ctrl-C, or 10 s without an end,
  kills them. The exit code is then 130.
- workers always end: hydra starts each in a session of its own, so after
  mpiexec has ended, or once a worker failed and the others have had the
  collective timeout plus a margin to end, the launcher kills those on
  this host that recorded a process id but no exit (hydra ends the
  remote ones with mpiexec).
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from ember.distribute._worker_ends import WorkerEnds, alive

_INTERRUPT_GRACE_S = 10.0
_FAILURE_MARGIN_S = 10.0


def find_mpiexec(explicit=None):
    """The mpiexec to use: ``explicit``, else the one installed next to this Python, else PATH's."""
    if explicit:
        return explicit
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.access(beside, os.X_OK):
        return beside
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise FileNotFoundError("ember.distribute.run: no mpiexec found next to Python or on PATH; install MPI with "
                                "`pip install mpi4py mpich` (or a system MPI)")
    return found


def _is_hydra(mpiexec):
    try:
        text = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "HYDRA" in text


def _parse(argv):
    parser = argparse.ArgumentParser(
        prog="python -m ember.distribute.run",
        description="Start N workers of a MultiWorkerMirroredStrategy program on this host (or on --hosts).")
    parser.add_argument("-n", "--num-workers", type=int, required=True, help="how many worker processes")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds a collective waits for the other workers (EMBER_COLLECTIVE_TIMEOUT, default 60)")
    parser.add_argument("--hosts", default=None, help="comma-separated hosts, e.g. node1:4,node2:4 (mpiexec -hosts)")
    parser.add_argument("--hostfile", default=None, help="a host file, one host[:count] a line (mpiexec -f)")
    parser.add_argument("--mpiexec", default=None, help="the mpiexec to run (default: next to Python, else PATH)")
    parser.add_argument("script", help="the Python program every worker runs")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    options = parser.parse_args(argv)
    if options.num_workers < 1:
        parser.error("-n must be at least 1")
    return options


def _read_records(directory, kind):
    out = {}
    for name in os.listdir(directory):
        if name.startswith(kind + "-") and not name.endswith(".tmp"):
            with open(os.path.join(directory, name)) as f:
                out[int(name.split("-", 1)[1])] = f.read().split()
    return out


class _Job:
    """One mpiexec and its workers."""

    def __init__(self, command, env, status_dir, failure_grace):
        self._status_dir = status_dir
        self._failure_grace = failure_grace
        self._interrupts = 0
        self.killed = False
        self.process = subprocess.Popen(command, env=env, start_new_session=True)
        self.ends = WorkerEnds(self._local_pids)

    def _local_pids(self):
        here = socket.gethostname()
        return {rank: int(pid) for rank, (pid, host) in _read_records(self._status_dir, "pid").items()
                if host == here}

    def interrupt(self, signum, frame):
        del signum, frame
        self._interrupts += 1
        self._signal_mpiexec(signal.SIGINT)

    def wait(self):
        interrupted_at = failed_at = None
        while self.process.poll() is None:
            time.sleep(0.05)
            now = time.monotonic()
            if self._interrupts and interrupted_at is None:
                interrupted_at = now
            if failed_at is None and self._failures():
                failed_at = now
            if (self._interrupts > 1 or (interrupted_at is not None and now - interrupted_at > _INTERRUPT_GRACE_S)
                    or (failed_at is not None and now - failed_at > self._failure_grace)):
                self.kill()
        time.sleep(0.05)  # the last ends reach the watcher
        self.ends.stop()
        self.kill_leftovers()
        return self.process.returncode

    def _failures(self):
        """[(time, rank, exit code)] of the workers that failed: a nonzero recorded exit, or an end
        without a record (killed, or crashed; the code is then None)."""
        exits = _read_records(self._status_dir, "exit")
        out = [(float(t), rank, int(code)) for rank, (code, t) in exits.items() if int(code)]
        out += [(t, rank, None) for rank, t in dict(self.ends.ended).items() if rank not in exits]
        return sorted(out)

    def kill(self):
        self.killed = True
        self.kill_leftovers()
        self._signal_mpiexec(signal.SIGKILL)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def kill_leftovers(self):
        """Kills the workers on this host that recorded a process id but no exit."""
        ended = _read_records(self._status_dir, "exit")
        for rank, pid in self._local_pids().items():
            if rank not in ended and alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def _signal_mpiexec(self, signum):
        try:
            self.process.send_signal(signum)
        except ProcessLookupError:
            pass

    def exit_code(self):
        """The first failing worker's exit code (Note [Launcher]); prints which worker that was and
        the last line of what each failed worker raised."""
        if self._interrupts:
            return 130
        for rank in sorted(_read_records(self._status_dir, "error")):
            print(f"ember.distribute.run: worker {rank} raised: {_last_line(self._status_dir, rank)}", file=sys.stderr)
        mpiexec_code = self.process.returncode
        failures = self._failures()
        if not failures:
            return mpiexec_code if mpiexec_code >= 0 else 1
        _, rank, code = failures[0]
        if code is None:
            code = mpiexec_code if mpiexec_code > 0 else 1
            how = f"ended without finishing (killed, or it crashed); mpiexec's exit code {code}"
        else:
            how = f"failed first, exit code {code}"
        print(f"ember.distribute.run: worker rank {rank} {how}", file=sys.stderr)
        return code


def _last_line(directory, rank):
    with open(os.path.join(directory, f"error-{rank}")) as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


def main(argv=None):
    options = _parse(sys.argv[1:] if argv is None else argv)
    mpiexec = find_mpiexec(options.mpiexec)
    env = dict(os.environ)
    if options.timeout is not None:
        env["EMBER_COLLECTIVE_TIMEOUT"] = str(options.timeout)
    timeout = float(env.get("EMBER_COLLECTIVE_TIMEOUT", "60"))
    command = [mpiexec, "-n", str(options.num_workers)]
    if _is_hydra(mpiexec):
        command.append("-disable-auto-cleanup")  # Note [Launcher]: the first failure stands out
    if options.hosts:
        command += ["-hosts", options.hosts]
    if options.hostfile:
        command += ["-f", options.hostfile]
    worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_launched.py")
    command += [sys.executable, worker, options.script, *options.args]
    status_dir = tempfile.mkdtemp(prefix="ember-run-")
    env["EMBER_LAUNCH_STATUS"] = status_dir
    try:
        job = _Job(command, env, status_dir, failure_grace=timeout + _FAILURE_MARGIN_S)
        signal.signal(signal.SIGINT, job.interrupt)
        signal.signal(signal.SIGTERM, job.interrupt)
        try:
            job.wait()
        finally:
            if job.process.poll() is None:
                job.kill()
            job.kill_leftovers()
        return job.exit_code()
    finally:
        shutil.rmtree(status_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

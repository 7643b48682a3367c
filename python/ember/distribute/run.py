"""Starts the workers of a multi-worker job: ``python -m ember.distribute.run -n 4 train.py args...``.

Note [Launcher]: the launcher runs MPI's own mpiexec (the `mpich` wheel's,
found next to this Python or on PATH), one process per worker, each
running the script through _launched.py, which records its process id and
its exit code in a temporary directory. Around mpiexec it adds three things:
- faults: with MPICH's hydra it passes -disable-auto-cleanup, so a worker's
  death reaches the others as a signal and they raise an error naming the
  lost rank (Note [Lost workers] in _lost_workers.py) instead of being
  killed silently. Once a worker has failed, the others get the collective
  timeout plus a margin to end; then every worker still running is killed.
- Ctrl-C: forwarded to mpiexec, which passes SIGINT on to the workers
  (KeyboardInterrupt in each); a second Ctrl-C, or 10 s without an end,
  kills them.
- the exit code: that of the first worker to fail. A worker that ended
  without a record was killed before it could fail on its own, so it is
  the first; the launcher then returns mpiexec's code.
Workers always end: hydra starts each in a session of its own, so the
launcher kills leftovers by the process ids they recorded (those on this
host; hydra ends remote ones when mpiexec ends).
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
        self.vanished = []  # (time, rank) of workers that ended without a record
        self.process = subprocess.Popen(command, env=env, start_new_session=True)

    def interrupt(self, signum, frame):
        del signum, frame
        self._interrupts += 1
        self._signal_mpiexec(signal.SIGINT)

    def wait(self):
        interrupted_at = failed_at = None
        while self.process.poll() is None:
            time.sleep(0.1)
            now = time.monotonic()
            if self._interrupts and interrupted_at is None:
                interrupted_at = now
            self._watch_processes()
            if failed_at is None and (self.vanished or any(
                    int(r[0]) for r in _read_records(self._status_dir, "exit").values())):
                failed_at = now
            if (self._interrupts > 1 or (interrupted_at is not None and now - interrupted_at > _INTERRUPT_GRACE_S)
                    or (failed_at is not None and now - failed_at > self._failure_grace)):
                self.kill()
        self.kill_leftovers()
        return self.process.returncode

    def _watch_processes(self):
        """Notes the workers on this host that ended without a record (killed, or crashed)."""
        ended = _read_records(self._status_dir, "exit")
        here = socket.gethostname()
        for rank, (pid, host) in sorted(_read_records(self._status_dir, "pid").items()):
            if rank in ended or host != here or any(rank == r for _, r in self.vanished):
                continue
            if not _alive(int(pid)) and rank not in _read_records(self._status_dir, "exit"):
                if not self.vanished and not self.killed:
                    print(f"ember.distribute.run: worker rank {rank} (pid {pid}) ended without finishing: killed, "
                          "or it crashed", file=sys.stderr, flush=True)
                self.vanished.append((time.time(), rank))

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
        here = socket.gethostname()
        for rank, (pid, host) in _read_records(self._status_dir, "pid").items():
            if rank not in ended and host == here:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def _signal_mpiexec(self, signum):
        try:
            self.process.send_signal(signum)
        except ProcessLookupError:
            pass

    def exit_code(self):
        """The first failing worker's exit code (Note [Launcher]); prints what each failed worker raised."""
        if self._interrupts:
            return 130
        mpiexec_code = self.process.returncode
        errors = _read_records(self._status_dir, "error")
        for rank in sorted(errors):
            print(f"ember.distribute.run: worker {rank} raised: {_last_line(self._status_dir, rank)}", file=sys.stderr)
        events = [(t, rank, mpiexec_code if mpiexec_code > 0 else 1) for t, rank in self.vanished]
        events += [(float(t), rank, int(code)) for rank, (code, t) in _read_records(self._status_dir, "exit").items()
                   if int(code)]
        if events:
            _, rank, code = min(events)
            print(f"ember.distribute.run: worker {rank} failed first (exit code {code})", file=sys.stderr)
            return code
        return mpiexec_code if mpiexec_code >= 0 else 1


def _last_line(directory, rank):
    with open(os.path.join(directory, f"error-{rank}")) as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    return lines[-1] if lines else "(no message)"


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def main(argv=None):
    options = _parse(sys.argv[1:] if argv is None else argv)
    mpiexec = find_mpiexec(options.mpiexec)
    env = dict(os.environ)
    if options.timeout is not None:
        env["EMBER_COLLECTIVE_TIMEOUT"] = str(options.timeout)
    timeout = float(env.get("EMBER_COLLECTIVE_TIMEOUT", "60"))
    command = [mpiexec]
    if _is_hydra(mpiexec):
        command.append("-disable-auto-cleanup")  # Note [Lost workers]: survivors name the lost rank
    command += ["-n", str(options.num_workers)]
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

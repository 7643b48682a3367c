"""Notes the moment each local worker process ends, for the launcher (Note [Launcher] in run.py).

The workers are not the launcher's children (hydra's proxy starts them), so
their exit status cannot be waited for. A pidfd (Linux 5.3+) becomes
readable the moment its process ends; one thread waits on all of them, so
the order of ends is known to well under a millisecond when the thread
gets a core in time. That order matters: hydra may end other workers soon
after the first failure, and its own report names one of those instead of
the first (the lowest rank, in our runs). Without pidfds the thread polls
/proc every 10 ms.
"""

import os
import select
import threading
import time


def alive(pid):
    """Whether process ``pid`` is running (a zombie has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


class WorkerEnds:
    """``ended`` maps rank -> time.time() of its end, for workers whose ids ``pids()`` returns
    ({rank: pid} of this host's workers, read again as workers start)."""

    def __init__(self, pids):
        self._pids = pids
        self.ended = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="ember-worker-ends", daemon=True)
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)

    def _watch(self):
        fds = {}  # fd -> rank
        watched = set()
        while not self._stop.is_set():
            for rank, pid in self._pids().items():
                if rank in watched:
                    continue
                watched.add(rank)
                fd = _pidfd(pid)
                if fd is None:
                    if not alive(pid):
                        self.ended[rank] = time.time()
                else:
                    fds[fd] = rank
            if fds:
                ready, _, _ = select.select(list(fds), [], [], 0.01)
                now = time.time()
                for fd in ready:
                    self.ended.setdefault(fds.pop(fd), now)
                    os.close(fd)
            else:
                time.sleep(0.01)
            for rank in watched - set(self.ended) - set(fds.values()):
                pid = self._pids().get(rank)
                if pid is not None and not alive(pid):
                    self.ended[rank] = time.time()
        for fd in fds:
            os.close(fd)


def _pidfd(pid):
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return opener(pid)
    except OSError:
        return None

"""Waits for MPI requests with a deadline, and names the workers that are gone (Note [Lost workers])."""

import atexit
import os
import signal
import sys
import threading
import time

import numpy as np

from ember.distribute._mpi import mpi
from ember.errors import DeadlineExceededError, UnavailableError

# Note [Lost workers]: a blocking MPI call whose peer died waits forever
# (MPICH's shared-memory and network paths do not notice a dead peer), so
# every collective here is a non-blocking request polled against a
# deadline, EMBER_COLLECTIVE_TIMEOUT seconds (default 60). What happens
# when a worker dies depends on the process manager. MPICH's hydra (the
# `mpich` wheel's mpiexec, 5.0), found by killing one of 4 ranks mid-step:
#
# - By default it kills every other rank with SIGKILL within milliseconds
#   and prints "BAD TERMINATION ... PID <pid> ... EXIT CODE: 9" for one
#   of the ranks it killed, not the first to fail. Nothing hangs, but the
#   survivors never get to say which rank was lost. A worker that exits
#   without MPI_Finalize, even with code 0, counts as a failure.
# - With `mpiexec -disable-auto-cleanup` (what ember.distribute.run passes)
#   it sends the survivors SIGUSR1, whose default action ends a process
#   without a word. Ember handles SIGUSR1, and the next poll starts a roll
#   call (below): within about the grace period every survivor raises an
#   error naming the lost rank. Hydra may still end some survivors
#   silently, 0.3 to 3 seconds later in our runs, and may stop passing
#   their output on; ember.distribute.run names the first failure from
#   the moments the workers ended (Note [Launcher] in run.py).
#
# The roll call also covers a worker that is alive but never joins
# (stuck), and process managers that leave the survivors running without
# a signal (the deadline finds the loss). A worker whose deadline passed,
# or that got SIGUSR1, sends its
# rank to every other worker on a communicator of its own and listens for
# theirs for a grace period; a worker that sees a roll call while it polls
# joins it. The ranks never heard from are lost: the error
# (ember.errors.UnavailableError, with ``lost_ranks``) names them, and
# every later collective raises it again. If everyone answers, the workers
# disagree about which collective comes next, a program error, reported as
# DeadlineExceededError. A worker busy outside collectives for longer than
# the grace period would be named too; that is why the deadline is long.
#
# After such an error the process must not call MPI_Finalize, which waits
# for the lost peers; the same holds for a worker that exits with an
# uncaught exception while others still wait for it. An atexit hook
# (which runs before mpi4py's own finalization) ends those processes with
# os._exit(1) after flushing their output.

_ROLL_CALL_TAG = 0x3E3B
# Note [Polling collectives]: MPI makes progress only inside MPI calls, so a
# waiting worker polls. For the first _SPIN_S it polls without pause, as a
# blocking MPI call would, and every _CLOCK_EVERY polls it reads the clock,
# looks for roll calls and yields the core (sched_yield, as MPICH's own
# progress loop does): with more workers than cores, the worker everybody
# waits for may be waiting for this one's core. Yielding at every poll
# instead costs 10x in small-buffer latency. After _SPIN_S the worker
# sleeps between polls (0.1 ms, and 1 ms after a second).
_SPIN_S = 0.1
_CLOCK_EVERY = 64  # polls between clock readings (and yields) while spinning
_yield = getattr(os, "sched_yield", lambda: time.sleep(0))

_peer_exit_signalled = threading.Event()


def collective_timeout():
    """EMBER_COLLECTIVE_TIMEOUT in seconds (default 60)."""
    raw = os.environ.get("EMBER_COLLECTIVE_TIMEOUT", "60")
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ValueError(f"EMBER_COLLECTIVE_TIMEOUT must be a positive number of seconds, got {raw!r}")
    return value


def _on_peer_exit(signum, frame):
    del signum, frame
    _peer_exit_signalled.set()


def _install_signal_handler():
    # Only where nobody else handles SIGUSR1 (ember.distribute.run's workers ignore it until
    # here), and only from the main thread (Python's rule).
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGUSR1) in (signal.SIG_DFL, signal.SIG_IGN, None):
        signal.signal(signal.SIGUSR1, _on_peer_exit)


def _at_exit(watch):
    # Python puts the default action back for signals it handled when it shuts down, and
    # SIGUSR1's ends the process: a worker that ends a moment later than another would then
    # die of the signal hydra sends about the first one. Ignored from here on.
    if signal.getsignal(signal.SIGUSR1) is _on_peer_exit:
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    if watch.failed is None and getattr(sys, "last_value", None) is None:
        return  # a clean exit: mpi4py finalizes MPI as usual
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1)


class WorkerWatch:
    """Polls requests on ``comm``'s collectives until done, the deadline, or a lost worker."""

    def __init__(self, comm, timeout=None):
        self._comm = comm.Dup()  # roll-call messages never mix with the collectives' traffic
        self._comm.Set_errhandler(mpi().ERRORS_RETURN)
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.timeout = collective_timeout() if timeout is None else float(timeout)
        self.grace = min(max(1.0, self.timeout / 4), 5.0)
        self.failed = None  # the error once a worker is known lost; later collectives raise it again
        self._roll_call_lock = threading.Lock()
        _install_signal_handler()
        atexit.register(_at_exit, self)

    def wait(self, requests, what):
        """Returns when every request is complete; raises UnavailableError naming lost workers, or
        DeadlineExceededError when all workers are alive but some never joined ``what``."""
        MPI = mpi()
        if self.failed is not None:
            raise self.failed
        testall = MPI.Request.Testall
        start = time.monotonic()
        deadline = start + self.timeout
        polls = 0
        while not testall(requests):  # Note [Polling collectives]
            polls += 1
            if polls % _CLOCK_EVERY:
                continue
            now = time.monotonic()
            self._check(what, now > deadline)
            if now - start > _SPIN_S:
                polls = _CLOCK_EVERY - 1  # from now on the checks run at every poll, between sleeps
                time.sleep(0.0001 if now - start < 1.0 else 0.001)
            else:
                _yield()  # a worker sharing this core may be the one everybody waits for

    def check_for_kernel(self, what, deadline_passed):
        """The collective ops' C++ wait asks this while it waits (Note [Collective ops] in
        csrc/collectives/communicator.h): None, or (kind, message) for the error to fail with."""
        try:
            self._check(what, deadline_passed)
        except UnavailableError as error:
            return ("unavailable", str(error))
        except DeadlineExceededError as error:
            return ("deadline", str(error))
        return None

    def _check(self, what, deadline_passed):
        """Raises once a worker is known lost, or at the deadline (a roll call decides which)."""
        if self.failed is not None:
            raise self.failed
        if _peer_exit_signalled.is_set():
            self._check_roll_call(what, "mpiexec reported that a worker process ended")
        elif self._roll_call_pending():
            self._check_roll_call(what, "another worker called a roll call: a collective timed out or a "
                                        "worker process ended")
        elif deadline_passed:
            self._check_roll_call(what, f"it did not join within EMBER_COLLECTIVE_TIMEOUT={self.timeout:g}s")
            self.failed = DeadlineExceededError(
                f"{what}: not every worker joined within EMBER_COLLECTIVE_TIMEOUT={self.timeout:g}s, although "
                f"all {self.size} answered a roll call: the workers make different collective calls "
                "(every worker must make the same collectives, in the same order)")
            raise self.failed

    def _roll_call_pending(self):
        return self._comm.Iprobe(source=mpi().ANY_SOURCE, tag=_ROLL_CALL_TAG)

    def _check_roll_call(self, what, reason):
        with self._roll_call_lock:  # a graph's collective (another thread) may call one too
            if self.failed is not None:
                raise self.failed
            _peer_exit_signalled.clear()
            self._raise_if_lost(what, reason)

    def _raise_if_lost(self, what, reason):
        lost = self._roll_call()
        if lost:
            names = ", ".join(str(r) for r in lost)
            self.failed = UnavailableError(
                f"{what}: lost worker rank{'s' if len(lost) > 1 else ''} {names} of {self.size} ({reason}; no "
                f"answer to a roll call within {self.grace:g}s). This is worker {self.rank}. The job cannot "
                "go on: restart it, from a checkpoint if one was saved")
            self.failed.lost_ranks = tuple(lost)
            raise self.failed

    def _roll_call(self):
        """The ranks that do not answer within the grace period."""
        MPI = mpi()
        mine = np.array([self.rank], np.int64)
        sends = []
        for other in range(self.size):
            if other != self.rank:
                try:
                    sends.append(self._comm.Isend([mine, MPI.INT64_T], dest=other, tag=_ROLL_CALL_TAG))
                except MPI.Exception:
                    pass  # a peer MPI already knows is gone; it will not answer
        heard = {self.rank}
        end = time.monotonic() + self.grace
        status = MPI.Status()
        while len(heard) < self.size and time.monotonic() < end:
            if self._comm.Iprobe(source=MPI.ANY_SOURCE, tag=_ROLL_CALL_TAG, status=status):
                answer = np.empty(1, np.int64)
                self._comm.Recv([answer, MPI.INT64_T], source=status.Get_source(), tag=_ROLL_CALL_TAG)
                heard.add(int(answer[0]))
            else:
                time.sleep(0.001)
        self._pending_sends = sends  # kept alive: MPI still owns their buffers
        return sorted(set(range(self.size)) - heard)

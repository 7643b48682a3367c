"""Runs a function once per replica, one thread per replica, taking turns (Note [Replicas in lockstep])."""

import threading

from ember import _C
from ember._context import current_trace
from ember.function import joined_trace

# Note [Replicas in lockstep]: strategy.run calls the function once per
# replica. A replica may stop in the middle, in a collective
# (ReplicaContext.all_reduce, which the optimizer's apply_gradients uses),
# until every replica has brought its value, so the calls cannot simply
# run one after another. Each replica runs on its own thread, as in
# TensorFlow's MirroredStrategy, but only one thread runs at a time: the
# replicas take turns in order 0, 1, ..., N-1. A replica gives up its turn
# when it finishes or enters a collective; the last one to enter a
# collective combines the values and the turns start again at replica 0.
# Python code is serialized anyway by the GIL; taking turns also keeps the
# order of ops (and so the results) deterministic. The devices still work
# in parallel: ops are enqueued asynchronously, so replica 1's ops are
# issued while replica 0's kernels run.
#
# Asynchronous kernel errors are reported to the thread that issued the
# op, so each replica thread waits for the devices (ember.sync) after it
# has handed over its turn, and a failure there fails the run; otherwise a
# failed update would be lost with the thread. run() therefore returns once
# the step's kernels have run: replicas overlap each other, not the next step.
#
# Per-thread state (device scope, tapes, the distribution context) is set
# up on each replica thread.
#
# Note [Replicas join the caller's trace]
# strategy.run inside an ember.function (TensorFlow's usual
# `distributed_train_step`) runs the replicas on their threads as above,
# and each thread joins the caller's trace (function.joined_trace): the
# replicas' ops, and the collectives the last replica combines, become
# nodes of the one graph being traced, each placed on its replica's
# device, as TensorFlow's MirroredStrategy builds one graph from its
# replica threads. A tracer is not safe for threads that record at the
# same time; the turns guarantee they never do, and the caller's thread
# waits in run() meanwhile. A replica leaves the trace before it gives up
# its last turn. A collective that cannot be a graph node (MPI between
# workers) raises function.HostCallbackInTrace, which reaches the caller
# like any replica error, and the function then runs eagerly.


class _Aborted(BaseException):
    """Unwinds the other replicas after one of them raised."""


class Lockstep:
    """Turn-taking among ``n`` replica threads, and the rendezvous of their collectives.
    ``replica_scope(i, rendezvous)`` is the context manager replica i runs in (its device, its
    replica context); ``collectives`` combines the values of a rendezvous."""

    def __init__(self, n, replica_scope, collectives):
        self._replica_scope = replica_scope
        self._collectives = collectives
        self._n = n
        self._cond = threading.Condition()
        self._turn = 0
        self._state = ["running"] * n  # "running", "waiting" (in a collective) or "done"
        self._deposits = [None] * n
        self._results = [None] * n
        self._error = None  # (replica id, exception) of the first failure

    def run(self, fn, args_per_replica, kwargs_per_replica):
        outputs = [None] * self._n
        trace = current_trace()  # Note [Replicas join the caller's trace]
        threads = [threading.Thread(target=self._replica, name=f"ember-replica-{i}", daemon=True,
                                    args=(i, fn, args_per_replica[i], kwargs_per_replica[i], outputs, trace))
                   for i in range(self._n)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                t.join()
        except BaseException as error:  # noqa: B036 - Ctrl-C: stop the replicas at their next turn
            self._fail(-1, error)
            raise
        if self._error is not None:
            raise self._error[1]
        return outputs

    def _replica(self, i, fn, args, kwargs, outputs, trace):
        try:
            self._wait_for_turn(i)
            with joined_trace(trace), self._replica_scope(i, self._rendezvous):
                outputs[i] = fn(*args, **kwargs)
            self._finish(i)
            _C.sync()  # this thread's asynchronous kernel errors
        except _Aborted:
            pass
        except BaseException as error:  # noqa: B036 - handed to the caller's thread
            self._fail(i, error)

    def _wait_for_turn(self, i):
        with self._cond:
            self._cond.wait_for(lambda: self._turn == i or self._error is not None)
            if self._error is not None:
                raise _Aborted()

    def _pass_turn(self, i):  # called with the lock held
        self._turn = (i + 1) % self._n
        self._cond.notify_all()

    def _finish(self, i):
        with self._cond:
            self._state[i] = "done"
            if "waiting" in self._state:
                self._fail_locked(i, RuntimeError(
                    f"replica {i} returned while other replicas wait in a collective: every replica must make "
                    "the same collective calls (all_reduce, apply_gradients, ...) in the same order"))
                return
            self._pass_turn(i)

    def _fail(self, i, error):
        with self._cond:
            self._fail_locked(i, error)

    def _fail_locked(self, i, error):
        if self._error is None:
            self._error = (i, error)
        self._cond.notify_all()

    def _rendezvous(self, i, flat, combine):
        """Replica i's part of a collective: hands over its values, returns its results."""
        with self._cond:
            self._deposits[i] = flat
            self._state[i] = "waiting"
            if i == self._n - 1:
                self._combine(combine)
            self._pass_turn(i)
        self._wait_for_turn(i)
        with self._cond:
            results, self._results[i] = self._results[i], None
        return results

    def _combine(self, combine):  # the last replica, with the lock held
        if "done" in self._state:
            done = [j for j, s in enumerate(self._state) if s == "done"]
            raise RuntimeError(f"replicas {done} returned without entering this collective: every replica must "
                               "make the same collective calls in the same order")
        sizes = {len(d) for d in self._deposits}
        if len(sizes) != 1:
            raise ValueError(f"a collective got structures of different sizes from the replicas: "
                             f"{[len(d) for d in self._deposits]} values")
        per_leaf = [combine(self._collectives, [d[k] for d in self._deposits]) for k in range(sizes.pop())]
        for j in range(self._n):
            self._results[j] = [leaf[j] for leaf in per_leaf]
        self._deposits = [None] * self._n
        self._state = ["running"] * self._n  # everyone has its results and goes on

"""Which strategy is current on this thread, and in which context: cross-replica or one replica's.

Note [Distribution contexts]: as in TensorFlow, code runs in one of three
contexts. Outside any strategy it runs in the default strategy's only
replica. Inside ``strategy.scope()`` it is in the cross-replica context:
variables made there are mirrored and ``strategy.reduce`` combines
replicas' values. Inside ``strategy.run`` each replica's call is in a
replica context: ``get_replica_context()`` says which replica, and
collectives on it combine the values of all replicas. The contexts form a
per-thread stack; each replica runs on its own thread (Note [Replicas in
lockstep] in _lockstep.py), which pushes its replica context.
"""

import threading

from ember import _context, nest
from ember._creation import constant
from ember.device import device
from ember.distribute._reduce_op import ReduceOp
from ember.distribute._values import regroup, select_replica

_state = threading.local()


def _stack():
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    return stack


class _Entry:
    """One level of the stack: a strategy, and the replica context when inside its run."""

    __slots__ = ("strategy", "replica_context")

    def __init__(self, strategy, replica_context):
        self.strategy = strategy
        self.replica_context = replica_context


def push(strategy, replica_context=None):
    _stack().append(_Entry(strategy, replica_context))


def pop():
    _stack().pop()


def _top():
    stack = _stack()
    return stack[-1] if stack else None


def get_strategy():
    """The current strategy: the one whose scope or run encloses the call, else the default strategy."""
    top = _top()
    return top.strategy if top is not None else _default_strategy()


def has_strategy():
    """Whether a strategy other than the default one is current."""
    top = _top()
    return top is not None and top.strategy is not _default_strategy()


def in_cross_replica_context():
    """True inside ``strategy.scope()`` but outside ``strategy.run``."""
    top = _top()
    return top is not None and top.replica_context is None


def get_replica_context():
    """The current ReplicaContext: the replica's inside ``strategy.run``, the default strategy's
    only replica outside any strategy, and None in the cross-replica context."""
    top = _top()
    if top is None:
        return _default_strategy()._default_replica_context()
    return top.replica_context


def get_cross_replica_context():
    """The current strategy in the cross-replica context, else None."""
    top = _top()
    return top.strategy if top is not None and top.replica_context is None else None


def current_replica():
    """(strategy, replica id) inside a strategy's run on this thread, else None."""
    top = _top()
    if top is None or top.replica_context is None:
        return None
    return top.strategy, top.replica_context._replica_id


# Note [Traces per replica]: an ember.function binds, when it traces, the
# variables it reads and the devices its ops run on. A MirroredVariable read
# in replica i binds replica i's component, under replica i's device scope.
# So each replica of a multi-replica run needs a trace of its own: this
# key, added to the function's trace cache key (Note [Layer hooks] in
# ember/_context.py), keeps them apart. Outside such a run it is None and
# the key is unchanged.
def _trace_key_extra():
    replica = current_replica()
    if replica is None or replica[0].num_replicas_in_sync == 1:
        return None
    strategy, replica_id = replica
    return ("replica", replica_id, strategy.extended.worker_devices[replica_id])


_context.trace_key_extra = _trace_key_extra


def _replicas_in_sync():
    return None if in_cross_replica_context() else get_replica_context().num_replicas_in_sync


_context.replicas_in_sync = _replicas_in_sync  # for ember.nn.compute_average_loss

_default = []


def _default_strategy():
    if not _default:
        from ember.distribute._strategy import DefaultStrategy  # the strategy layer sits above this one
        _default.append(DefaultStrategy())
    return _default[0]


class ReplicaContext:
    """One replica's view inside ``strategy.run`` (``tf.distribute.ReplicaContext``)."""

    def __init__(self, strategy, replica_id, rendezvous=None):
        self._strategy = strategy
        self._replica_id = replica_id
        # Combines this replica's value with the other replicas' (Note [Replicas in lockstep]).
        self._rendezvous = rendezvous

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's index among all replicas (of all workers), an int32 scalar tensor as in TensorFlow."""
        return constant(self._strategy._global_replica_id(self._replica_id), "int32")

    @property
    def devices(self):
        return (self._strategy.extended.worker_devices[self._replica_id],)

    def all_reduce(self, reduce_op, value):
        """Every replica gets the reduction of all replicas' ``value`` (a nested structure of
        tensors); each replica must make the same calls in the same order."""
        op = ReduceOp.from_value(reduce_op)
        return self._collective(value, lambda c, xs: c.all_reduce(xs, op))

    def all_gather(self, value, axis):
        """Every replica gets all replicas' ``value`` concatenated along ``axis``."""
        return self._collective(value, lambda c, xs: c.all_gather(xs, axis))

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Calls ``merge_fn(strategy, *args, **kwargs)`` once for all replicas, in the cross-replica
        context, and returns its result to every replica (Note [Merge calls])."""
        kwargs = dict(kwargs or {})
        if self._rendezvous is None:  # the only replica: its arguments as they are
            return _merged(self._strategy, merge_fn, tuple(args), kwargs, keep_device=True)
        payload = [(tuple(args), kwargs)]
        merge = lambda _, parts: _merge_parts(self._strategy, merge_fn, parts)  # noqa: E731
        return self._rendezvous(self._replica_id, payload, merge)[0]

    def _collective(self, value, run):
        flat = nest.flatten(value)
        if self._rendezvous is None:  # one replica: every collective of one value is that value
            results = flat
        else:
            results = self._rendezvous(self._replica_id, flat, run)
        return nest.pack_sequence_as(value, results)

    def __repr__(self):
        return f"ReplicaContext(replica {self._replica_id} of {self.num_replicas_in_sync})"


# Note [Merge calls]: ``merge_call`` is a collective like all_reduce
# (Note [Replicas in lockstep] in _lockstep.py): every replica hands over
# its arguments at the rendezvous, and the last one to arrive calls
# merge_fn once, on its thread, after pushing the cross-replica context
# (and no device scope) there; the other replicas wait, as at any collective. Each argument leaf is regrouped over the
# replicas as strategy.run's outputs are: a PerReplica of the replicas'
# values, or the value itself when every replica passed the same object (a
# MirroredVariable, a Python constant). Each replica then gets the result
# with PerReplica leaves replaced by its own element, as TensorFlow's
# select_replica does; distributed variables stay as they are. In a trace
# (Note [Replicas join the caller's trace]) merge_fn's ops join the graph.
# With one replica in the strategy (the default strategy too), merge_fn
# gets the arguments unchanged, under the replica's device scope. Under
# MultiWorkerMirroredStrategy merge_fn runs once per worker, with this
# worker's replicas' values, as in TensorFlow.
def _merged(strategy, merge_fn, args, kwargs, keep_device=False):
    push(strategy)
    try:
        if keep_device:  # the only replica's own call: its device scope is the caller's
            return merge_fn(strategy, *args, **kwargs)
        with device(None):
            return merge_fn(strategy, *args, **kwargs)
    finally:
        pop()


def _merge_parts(strategy, merge_fn, parts):
    """The merge of the replicas' (args, kwargs) ``parts``: one result per replica."""
    args = regroup([a for a, _ in parts])
    kwargs = regroup([k for _, k in parts])
    result = _merged(strategy, merge_fn, args, kwargs)
    return [select_replica(i, result) for i in range(len(parts))]

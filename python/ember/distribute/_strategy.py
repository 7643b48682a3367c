"""Strategy: the API every distribution strategy shares, and the default strategy."""

import contextlib

from ember import _C, nest
from ember._generated import ops
from ember._variables import plain_variable, variable_creator_scope
from ember.device import device
from ember.distribute import _distribution_context as _dc
from ember.distribute._collectives import LocalCollectives
from ember.distribute._input import DistributedDataset, DistributedDatasetFromFunction
from ember.distribute._lockstep import Lockstep
from ember.distribute._mirrored_variable import MirroredVariable
from ember.distribute._reduce_op import ReduceOp
from ember.distribute._values import PerReplica, local_results, regroup, select_replica


class StrategyExtended:
    """The few details of ``strategy.extended`` that Ember has: the devices."""

    def __init__(self, devices):
        self.worker_devices = tuple(devices)
        self.parameter_devices = tuple(devices)


class Strategy:
    """Runs a computation on several replicas, one per device (``tf.distribute.Strategy``).

    ``collectives`` combines values across the devices (Note [Collectives
    interface] in _collectives.py); by default it is LocalCollectives.
    """

    def __init__(self, devices, collectives=None):
        devices = tuple(_C._canonical_device(d) for d in devices)
        if not devices:
            raise ValueError(f"{type(self).__name__}: no devices given")
        if len(set(devices)) != len(devices):
            raise ValueError(f"{type(self).__name__}: a device is listed twice in {list(devices)}")
        if collectives is not None and tuple(collectives.devices) != devices:
            raise ValueError(f"{type(self).__name__}: the collectives' devices {list(collectives.devices)} are not "
                             f"the strategy's {list(devices)}")
        self._devices = devices
        self._collectives = collectives or LocalCollectives(devices)
        self.extended = StrategyExtended(devices)

    @property
    def num_replicas_in_sync(self):
        return len(self._devices)

    def __repr__(self):
        return f"{type(self).__name__}(devices={list(self._devices)})"

    # --- Variables -----------------------------------------------------------
    @contextlib.contextmanager
    def scope(self):
        """Inside the block this strategy is current (cross-replica context), and every
        ``ember.Variable`` made is a MirroredVariable over the strategy's devices."""
        current = _dc.get_strategy()
        if _dc.has_strategy() and current is not self:
            raise ValueError(f"cannot enter {self!r}'s scope inside {current!r}'s: mixing strategies is not supported")
        _dc.push(self)
        try:
            with variable_creator_scope(self._create_variable):
                yield self
        finally:
            _dc.pop()

    def _create_variable(self, next_creator, **kwargs):
        del next_creator  # the components are made by plain_variable; creators below see none of them
        if _dc.current_replica() is not None and self.num_replicas_in_sync > 1:
            raise RuntimeError(f"{type(self).__name__}: a variable was created inside strategy.run; create "
                               "variables in strategy.scope() before running the replicas")
        return self._mirrored_variable(**kwargs)

    def _mirrored_variable(self, initial_value, name=None, trainable=None, **kwargs):
        """One component per device, all starting from the same value (made once, then copied)."""
        if callable(initial_value):
            initial_value = initial_value()
        with device(self._devices[0]):
            first = plain_variable(initial_value=initial_value, name=name, trainable=trainable, **kwargs)
        components = [first]
        for i, name_i in enumerate(self._devices[1:], start=1):
            with device(name_i):
                component = plain_variable(initial_value=first.read_value(), trainable=first.trainable)
            component._name = f"{first.name}/replica_{i}"  # TensorFlow's naming of the copies
            components.append(component)
        return MirroredVariable(self, components, first.name, first.trainable)

    # --- Running -------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """Calls ``fn`` once per replica, on its device and in its replica context. PerReplica
        arguments give each replica its own element. Returns the outputs as PerReplica values
        (a plain value with one replica). Note [Replicas in lockstep] in _lockstep.py."""
        del options
        kwargs = kwargs or {}
        n = len(self._devices)  # the replicas of this process
        args_per_replica = [select_replica(i, tuple(args)) for i in range(n)]
        kwargs_per_replica = [select_replica(i, dict(kwargs)) for i in range(n)]
        if n == 1:
            # One replica here; other workers may still hold more (MultiWorkerMirroredStrategy).
            rendezvous = None if self.num_replicas_in_sync == 1 else self._only_replica_rendezvous
            with self._replica_scope(0, rendezvous):
                return fn(*args_per_replica[0], **kwargs_per_replica[0])
        outputs = Lockstep(n, self._replica_scope, self._collectives).run(fn, args_per_replica, kwargs_per_replica)
        return regroup(outputs)

    def _only_replica_rendezvous(self, replica_id, flat, combine):
        """A collective of this process's only replica: straight to the collectives (no threads)."""
        del replica_id
        return [combine(self._collectives, [value])[0] for value in flat]

    def _global_replica_id(self, local_id):
        """The index among all replicas of the replica with index ``local_id`` in this process."""
        return local_id

    def _input_workers(self):
        """(number of input pipelines, this process's index): each worker of a multi-worker job reads
        its own share of the input."""
        return 1, 0

    @contextlib.contextmanager
    def _replica_scope(self, replica_id, rendezvous):
        """What replica ``replica_id`` runs in: its device, its replica context, and the
        strategy's variable creator (which refuses new variables there, as TensorFlow does)."""
        _dc.push(self, _dc.ReplicaContext(self, replica_id, rendezvous))
        try:
            with device(self._devices[replica_id]), variable_creator_scope(self._create_variable):
                yield
        finally:
            _dc.pop()

    def reduce(self, reduce_op, value, axis=None):
        """Combines a per-replica ``value`` into one tensor (in the cross-replica context).
        With ``axis``, each replica's value is first reduced along that axis, and MEAN divides
        by the number of elements over all replicas, as in TensorFlow."""
        op = ReduceOp.from_value(reduce_op)
        return nest.map_structure(lambda v: self._reduce_one(op, v, axis), value)

    def _reduce_one(self, op, value, axis):
        parts = list(local_results(value))
        distributed = len(parts) > 1 or isinstance(value, PerReplica)
        if not distributed and self.num_replicas_in_sync > 1 and op is ReduceOp.SUM:
            # A plain value stands for the same value in every replica (TensorFlow's rule):
            # its MEAN, MAX and MIN are itself, and a SUM is refused.
            raise ValueError(f"{type(self).__name__}.reduce: a plain (not per-replica) value cannot be "
                             "summed across replicas; pass a PerReplica value")
        if distributed and len(parts) != self.num_replicas_in_sync:
            raise ValueError(f"{type(self).__name__}.reduce: a value with {len(parts)} parts for "
                             f"{self.num_replicas_in_sync} replicas")
        count = None
        if axis is not None:
            if op is ReduceOp.MEAN:
                count = sum(p.shape[axis] for p in parts)
            reducer = {ReduceOp.SUM: ops.reduce_sum, ReduceOp.MEAN: ops.reduce_sum,
                       ReduceOp.MAX: ops.reduce_max, ReduceOp.MIN: ops.reduce_min}[op]
            parts = [reducer(p, axis) for p in parts]
            op = ReduceOp.SUM if op is ReduceOp.MEAN else op
        if len(parts) == 1:
            out = parts[0]
        else:
            out = self._collectives.reduce(parts, op, _C._current_device_scope() or self._devices[0])
        return out if count is None else out / ops.cast(count, out.dtype)

    def gather(self, value, axis):
        """The replicas' values concatenated along ``axis``, on one device."""
        parts = list(local_results(value))
        if len(parts) == 1:
            return parts[0]
        return self._collectives.all_gather(parts, axis)[0]

    def experimental_local_results(self, value):
        """The per-replica parts of ``value`` as a tuple, one per replica (or ``(value,)``)."""
        if not nest.is_nested(value):
            return local_results(value)
        n = self.num_replicas_in_sync
        return tuple(nest.map_structure(lambda v: _part(v, i), value) for i in range(n))

    # --- Input ---------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """Each element's batch dimension is split evenly among the replicas."""
        del options
        return DistributedDataset(self, dataset)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(input_context)`` makes a dataset of per-replica batches; each replica
        gets one element in turn."""
        del options
        return DistributedDatasetFromFunction(self, dataset_fn)


def _part(value, i):
    parts = local_results(value)
    return parts[i] if len(parts) > 1 else parts[0]


class DefaultStrategy(Strategy):
    """The strategy in effect outside any scope: one replica, wherever ops would run anyway.
    ``run`` calls the function directly, as in TensorFlow."""

    def __init__(self):
        self._devices = ("cpu:0",)
        self._collectives = LocalCollectives(self._devices)
        self.extended = StrategyExtended(self._devices)
        self._replica_context = _dc.ReplicaContext(self, 0)

    @contextlib.contextmanager
    def scope(self):
        yield self

    def _default_replica_context(self):
        return self._replica_context

    def run(self, fn, args=(), kwargs=None, options=None):
        del options
        return fn(*args, **(kwargs or {}))

    def experimental_distribute_dataset(self, dataset, options=None):
        del options
        return dataset

    def __repr__(self):
        return "DefaultStrategy()"

"""Strategy: the API every distribution strategy shares, and the default strategy."""

import contextlib

from ember import _C, _variable_policy, nest
from ember._generated import ops
from ember._tensor import Tensor
from ember._variable_policy import VariableSynchronization
from ember._variables import plain_variable, variable_creator_scope
from ember.device import device
from ember.distribute import _distribution_context as _dc
from ember.distribute._collectives import LocalCollectives
from ember.distribute._input import DistributedDataset, DistributedDatasetFromFunction, ValueContext
from ember.distribute._lockstep import Lockstep
from ember.distribute._mirrored_variable import MirroredVariable, SyncOnReadVariable
from ember.distribute._reduce_op import ReduceOp
from ember.distribute._values import PerReplica, local_results, regroup, select_replica


class StrategyExtended:
    """``strategy.extended``: the lower-level operations of a strategy (``tf.distribute.StrategyExtended``).
    ``worker_devices`` are this process's replica devices; ``parameter_devices`` the devices
    variables are mirrored on (the same ones)."""

    def __init__(self, strategy, devices):
        self._strategy = strategy
        self.worker_devices = tuple(devices)
        self.parameter_devices = tuple(devices)

    def _require_cross_replica(self, what):
        if _dc.current_replica() is not None and self._strategy.num_replicas_in_sync > 1:
            raise RuntimeError(f"strategy.extended.{what} is for the cross-replica context; inside strategy.run, "
                               "call it from a merge_call (ReplicaContext.merge_call)")

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        """Runs ``fn`` in each replica's context, like ``strategy.run``."""
        self._require_cross_replica("call_for_each_replica")
        return self._strategy.run(fn, args, kwargs)

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """Calls ``fn(component, *args, **kwargs)`` for each component of ``var`` on its device, in
        the cross-replica context; PerReplica arguments give each component its replica's element.
        Inside ``strategy.run`` it is a merge_call (every replica must call it), as in TensorFlow.
        Returns the results regrouped (a PerReplica where TensorFlow has a Mirrored value; ``var``
        itself when each call returned its component), or a tuple of them if not ``group``."""
        kwargs = dict(kwargs or {})
        context = _dc.get_replica_context()
        if context is not None and context._rendezvous is not None:
            return context.merge_call(
                lambda strategy, *a, **k: strategy.extended.update(var, fn, a, k, group), args, kwargs)
        components = local_results(var)
        results = []
        entered = _dc.get_cross_replica_context() is not self._strategy
        if entered:  # called outside the scope: fn still runs in this strategy's cross-replica context
            _dc.push(self._strategy)
        try:
            for i, component in enumerate(components):
                with device(component.device):
                    results.append(fn(component, *select_replica(i, tuple(args)), **select_replica(i, kwargs)))
        finally:
            if entered:
                _dc.pop()
        if not group:
            return tuple(results)
        if len(results) > 1 and all(r is c for r, c in zip(results, components)):
            return var  # each call returned its component: the variable stands for them
        return regroup(results)

    def reduce_to(self, reduce_op, value, destinations, options=None):
        """``value`` (a PerReplica, or a plain value standing for every replica's) reduced across all
        replicas and placed on ``destinations``: a device name, a tensor or a variable (its device),
        or a distributed variable or PerReplica (each of its devices). One device gives a tensor,
        several a PerReplica of equal copies (TensorFlow: a Mirrored value)."""
        del options
        self._require_cross_replica("reduce_to")
        op = ReduceOp.from_value(reduce_op)
        targets = _destination_devices(destinations)
        with device(targets[0]):
            reduced = self._strategy._reduce_one(op, value, None)
        copies = [_on(d, reduced) for d in targets]
        return copies[0] if len(copies) == 1 else PerReplica(copies)

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        """``reduce_to`` for each (value, destinations) pair, in order."""
        return [self.reduce_to(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def broadcast_to(self, tensor, destinations):
        """``tensor`` copied to ``destinations`` (as in ``reduce_to``): a tensor for one device, a
        PerReplica of copies for several."""
        self._require_cross_replica("broadcast_to")
        copies = [_on(d, tensor) for d in _destination_devices(destinations)]
        return copies[0] if len(copies) == 1 else PerReplica(copies)

    def read_var(self, v):
        """The value of ``v`` as the cross-replica context reads it (a SyncOnReadVariable's is
        its replicas' values combined)."""
        self._require_cross_replica("read_var")
        return ops.identity(v)

    def value_container(self, value):
        """The distributed variable ``value`` is a component of, else ``value`` itself."""
        container = getattr(value, "_ember_container", None)
        found = container() if container is not None else None
        return found if found is not None else value

    @contextlib.contextmanager
    def colocate_vars_with(self, colocate_with_variable):
        """Variables made inside are placed like ``colocate_with_variable``. Every variable made in
        this strategy's scope already has a component on each of its devices, so this only checks
        that the variable is one of this strategy's."""
        strategy = getattr(self.value_container(colocate_with_variable), "_strategy", None)
        if strategy is not None and strategy is not self._strategy:
            raise ValueError(f"colocate_vars_with: {colocate_with_variable.name!r} belongs to another strategy")
        yield



def _destination_devices(destinations):
    if isinstance(destinations, str):
        return [_C._canonical_device(destinations)]
    parts = local_results(destinations)
    found = [getattr(p, "device", None) for p in parts]
    if not found or any(d is None for d in found):
        raise ValueError(f"reduce_to: destinations must be a device name, a tensor or a variable, or a distributed "
                         f"value; got {destinations!r}")
    return found


def _on(device_name, value):
    with device(device_name):
        return ops.identity(value)


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
        self.extended = StrategyExtended(self, devices)

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

    def _mirrored_variable(self, initial_value, name=None, trainable=None, synchronization=None, aggregation=None,
                           **kwargs):
        """One component per device, all starting from the same value (made once, then copied): a
        SyncOnReadVariable for synchronization ON_READ, else a MirroredVariable."""
        synchronization, aggregation, trainable = _variable_policy.validate(synchronization, aggregation,
                                                                            trainable, name)
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
        if synchronization is VariableSynchronization.ON_READ:
            return SyncOnReadVariable(self, components, first.name, first.trainable, aggregation)
        return MirroredVariable(self, components, first.name, first.trainable, aggregation)

    def _first_replica_value(self, value):
        """Replica 0's part of ``value`` (a variable's ONLY_FIRST_REPLICA aggregation)."""
        return local_results(value)[0]

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

    def experimental_distribute_values_from_function(self, value_fn):
        """A PerReplica whose replica i holds ``value_fn(ValueContext(i, num_replicas_in_sync))``,
        called under replica i's device scope, its tensors copied to that device; ``i`` counts the
        replicas of every worker. Each leaf of a nested result becomes a PerReplica. With one
        replica in this process the value itself is returned (TensorFlow wraps it), as
        ``strategy.run`` returns it."""
        n = len(self._devices)
        values = []
        for i, device_name in enumerate(self._devices):
            with device(device_name):
                value = value_fn(ValueContext(self._global_replica_id(i), self.num_replicas_in_sync))
            values.append(nest.map_structure(
                lambda leaf, d=device_name: _on(d, leaf) if isinstance(leaf, Tensor) else leaf, value))
        if n == 1:
            return values[0]
        return nest.map_structure(lambda *leaves: PerReplica(leaves), *values)

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
        self.extended = StrategyExtended(self, self._devices)
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

    def experimental_distribute_values_from_function(self, value_fn):
        return value_fn(ValueContext())

    def __repr__(self):
        return "DefaultStrategy()"

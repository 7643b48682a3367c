"""MultiWorkerMirroredStrategy: synchronous data parallelism over the processes (workers) of an MPI job."""

import socket

import numpy as np

from ember import nest
from ember._creation import constant, convert_to_tensor
from ember._generated import ops
from ember.distribute._mpi_collectives import MpiCollectives
from ember.distribute._reduce_op import ReduceOp
from ember.distribute._strategy import Strategy, StrategyExtended
from ember.distribute._two_level_collectives import TwoLevelCollectives
from ember.distribute._values import local_results


class CommunicationOptions:
    """``tf.distribute.experimental.CommunicationOptions``: ``timeout_seconds`` bounds every collective
    (default EMBER_COLLECTIVE_TIMEOUT, else 60); ``bytes_per_pack`` and ``implementation`` are
    accepted for TensorFlow code and ignored (MPI is the only implementation).
    ``check_collectives=False`` (an Ember addition) drops the per-call metadata check
    (Note [Checked collectives] in _mpi_collectives.py) for lower small-call latency."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None, implementation=None, check_collectives=True):
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation
        self.check_collectives = check_collectives


class MpiClusterResolver:
    """Who this worker is, from MPI (the part of ``tf.distribute.cluster_resolver`` that applies):
    ``task_type`` is always "worker", ``task_id`` the MPI rank, ``num_tasks`` the number of ranks."""

    task_type = "worker"
    rpc_layer = "mpi"

    def __init__(self, task_id, hosts):
        self.task_id = task_id
        self._hosts = tuple(hosts)

    @property
    def num_tasks(self):
        return len(self._hosts)

    def cluster_spec(self):
        """{"worker": [host of rank 0, host of rank 1, ...]} (TensorFlow returns a ClusterSpec of these)."""
        return {"worker": list(self._hosts)}

    def __repr__(self):
        return f"MpiClusterResolver(task_id={self.task_id}, num_tasks={self.num_tasks})"


class MultiWorkerExtended(StrategyExtended):
    """``strategy.extended`` of a multi-worker strategy: ``worker_devices`` are this worker's."""

    def __init__(self, strategy, devices, task_id):
        super().__init__(strategy, devices)
        self.should_checkpoint = task_id == 0  # Note [Checkpoints from one worker] in ember/train/_chief.py
        self.should_save_summary = task_id == 0

    def _in_multi_worker_mode(self):
        return True


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training on several processes, one or more devices each
    (``tf.distribute.MultiWorkerMirroredStrategy``). Start one process per worker with
    ``python -m ember.distribute.run -n N script.py`` or ``mpiexec -n N python script.py``.

    Every worker runs the same program. Variables made in ``scope()`` start from worker 0's
    values; ``run`` runs this worker's replicas (one per local device, the CPU by default), and
    collectives (the optimizer's gradient sum, ``reduce``) combine all replicas of all workers
    (Note [Two-level collectives]). ``num_replicas_in_sync`` counts them all.
    ``experimental_distribute_dataset`` gives each worker its share of every global batch.
    ``devices`` (an Ember addition) lists this worker's devices.
    """

    def __init__(self, cluster_resolver=None, communication_options=None, devices=None):
        if cluster_resolver is not None and not isinstance(cluster_resolver, MpiClusterResolver):
            raise NotImplementedError(
                f"MultiWorkerMirroredStrategy: Ember learns the cluster from MPI (the ranks mpiexec started), not "
                f"from a {type(cluster_resolver).__name__}; leave cluster_resolver out (docs/distributed.md)")
        options = communication_options or CommunicationOptions()
        devices = list(devices) if devices is not None else ["cpu:0"]
        self._workers = MpiCollectives(devices[0] if devices else "cpu:0", timeout=options.timeout_seconds,
                                       check=options.check_collectives)
        super().__init__(devices, TwoLevelCollectives(devices, self._workers))
        self._communication_options = options
        task_id = self._workers.rank
        self.extended = MultiWorkerExtended(self, self._devices, task_id)
        self.cluster_resolver = MpiClusterResolver(task_id, self._host_names())
        from ember.train import _chief  # the checkpoint layer sits above this one
        _chief.set_chief(task_id == 0)

    @property
    def num_replicas_in_sync(self):
        return len(self._devices) * self._workers.num_workers

    def __repr__(self):
        return (f"MultiWorkerMirroredStrategy(worker {self._workers.rank} of {self._workers.num_workers}, "
                f"devices={list(self._devices)})")

    def _global_replica_id(self, local_id):
        return self._workers.rank * len(self._devices) + local_id

    def _input_workers(self):
        return self._workers.num_workers, self._workers.rank

    def barrier(self):
        """Returns once every worker has called it (an Ember addition; TensorFlow has no public one)."""
        self._workers.barrier()

    def _create_variable(self, next_creator, **kwargs):
        """Every worker's variable starts from worker 0's initial value."""
        initial = kwargs.pop("initial_value")
        if callable(initial):
            initial = initial()
        initial = convert_to_tensor(initial, dtype=kwargs.get("dtype"))
        initial = self._workers.broadcast(initial)[0]
        return super()._create_variable(next_creator, initial_value=initial, **kwargs)

    def _first_replica_value(self, value):
        """Replica 0 is worker 0's first replica: its value, sent to every worker."""
        return self._workers.broadcast(convert_to_tensor(local_results(value)[0]))[0]

    def _reduce_one(self, op, value, axis):
        # This worker's replicas' parts; a plain value is the value of its only replica
        # (strategy.run with one local replica returns plain values, as TensorFlow's does).
        parts = list(local_results(value))
        if len(parts) != len(self._devices):
            raise ValueError(f"MultiWorkerMirroredStrategy.reduce: a value with {len(parts)} parts for "
                             f"{len(self._devices)} local replicas")
        count = None
        if axis is not None:
            if op is ReduceOp.MEAN:
                local_count = constant(np.int64(sum(p.shape[axis] for p in parts)))
                count = self._workers.all_reduce([local_count], ReduceOp.SUM)[0]
            reducer = {ReduceOp.SUM: ops.reduce_sum, ReduceOp.MEAN: ops.reduce_sum,
                       ReduceOp.MAX: ops.reduce_max, ReduceOp.MIN: ops.reduce_min}[op]
            parts = [reducer(p, axis) for p in parts]
            op = ReduceOp.SUM if op is ReduceOp.MEAN else op
        out = self._collectives.reduce(parts, op, self._devices[0])
        return out if count is None else out / ops.cast(count, out.dtype)

    def gather(self, value, axis):
        """All replicas' values of all workers concatenated along ``axis``."""
        return nest.map_structure(lambda v: self._collectives.all_gather(list(local_results(v)), axis)[0], value)

    def _host_names(self):
        name = socket.gethostname().encode("utf-8")[:64].ljust(64, b"\0")
        codes = constant(np.frombuffer(name, np.int32).reshape(1, 16))
        rows = self._workers.all_gather([codes], axis=0)[0].numpy()
        return [row.tobytes().rstrip(b"\0").decode("utf-8", "replace") for row in rows]

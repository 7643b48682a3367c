"""Distributed datasets: the batches of an ember.data pipeline handed out to the replicas."""

from ember import nest
from ember._generated import ops
from ember.device import device
from ember.distribute._values import regroup


class InputContext:
    """What ``dataset_fn`` learns in ``distribute_datasets_from_function`` (``tf.distribute.InputContext``).
    In one process there is one input pipeline; in a multi-worker job each worker has its own."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"the global batch size ({global_batch_size}) is not divisible by the number of "
                             f"replicas ({self.num_replicas_in_sync})")
        return global_batch_size // self.num_replicas_in_sync

    def __repr__(self):
        return (f"InputContext(num_input_pipelines={self.num_input_pipelines}, input_pipeline_id="
                f"{self.input_pipeline_id}, num_replicas_in_sync={self.num_replicas_in_sync})")


class ValueContext:
    """What ``value_fn`` learns in ``strategy.experimental_distribute_values_from_function``
    (``tf.distribute.experimental.ValueContext``): which replica the value is for, of how many."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self.replica_id_in_sync_group = replica_id_in_sync_group
        self.num_replicas_in_sync = num_replicas_in_sync

    def __repr__(self):
        return (f"ValueContext(replica_id_in_sync_group={self.replica_id_in_sync_group}, "
                f"num_replicas_in_sync={self.num_replicas_in_sync})")


class DistributedDataset:
    """``strategy.experimental_distribute_dataset(dataset)``: iterating yields each element of
    ``dataset`` (a global batch) split along its first dimension among the replicas of every
    worker, each slice on its replica's device; tensors become PerReplica values.

    Note [Uneven batches]: as TensorFlow's rebatching does, the first
    element's batch size B is the global batch size, and replica r of all N
    (worker-major) gets the r-th of N consecutive slices of sizes
    ceil(B/N) for the first B mod N replicas and floor(B/N) for the rest:
    equal slices when N divides B. A later, shorter batch (the final
    partial one) fills the same slices in order, so the last replicas may get
    fewer rows, or an empty batch. Every worker reads every batch and keeps
    its replicas' slices (AutoShardPolicy.DATA), so all workers take the
    same number of steps.
    """

    def __init__(self, strategy, dataset):
        self._strategy = strategy
        self._dataset = dataset

    def __iter__(self):
        layout = []  # the global batch size, learned from the first element

        def next_element(elements):
            return self._split(next(elements), layout)

        return _DistributedIterator(iter(self._dataset), next_element)

    def _split(self, element, layout):
        devices = self._strategy.extended.worker_devices
        n = len(devices)
        workers, index = self._strategy._input_workers()
        leaves = nest.flatten(element)
        for leaf in leaves:
            if not hasattr(leaf, "shape") or len(leaf.shape) == 0:
                raise ValueError(f"experimental_distribute_dataset: an element of shape {getattr(leaf, 'shape', ())} "
                                 "has no batch dimension to split among replicas; batch the dataset first")
        batch = max(leaf.shape[0] for leaf in leaves)
        if not layout:
            layout.append(batch)
        # A batch longer than the first (not TensorFlow's case) is split as a full one of its own size.
        bounds = replica_slices(max(layout[0], batch), workers * n)[index * n:(index + 1) * n]
        per_replica = [nest.pack_sequence_as(element, [_on(devices[i], _rows(leaf, *bounds[i])) for leaf in leaves])
                       for i in range(n)]
        return regroup(per_replica)


def replica_slices(global_batch, replicas):
    """(start, end) of each replica's rows in a global batch of ``global_batch`` rows (Note [Uneven batches]);
    a shorter batch clips them."""
    base, extra = divmod(global_batch, replicas)
    bounds, start = [], 0
    for r in range(replicas):
        end = start + base + (1 if r < extra else 0)
        bounds.append((start, end))
        start = end
    return bounds


def _worker_share(leaf, workers, index, local_replicas):
    """Worker ``index``'s contiguous share of a global batch, for Keras ``fit`` under
    MultiWorkerMirroredStrategy (which needs even shares; experimental_distribute_dataset
    splits uneven batches instead, Note [Uneven batches])."""
    if workers == 1:
        return leaf
    n = workers * local_replicas
    batch = leaf.shape[0] if hasattr(leaf, "shape") and len(leaf.shape) else None
    if batch is None or batch % n:
        raise ValueError(f"experimental_distribute_dataset: a global batch of {batch} does not split evenly among "
                         f"{n} replicas ({workers} workers x {local_replicas}); use a global batch size divisible "
                         "by num_replicas_in_sync, and batch(..., drop_remainder=True) if the last batch is short")
    share = batch // workers
    return leaf[index * share:(index + 1) * share]


def _rows(leaf, start, end):
    """Rows [start, end) of ``leaf``, clipped to its batch: an empty slice past its end."""
    batch = leaf.shape[0]
    start, end = min(start, batch), min(end, batch)
    if (start, end) == (0, batch):
        return leaf
    return leaf[start:end]


def _on(device_name, value):
    with device(device_name):
        return ops.identity(value)


class DistributedDatasetFromFunction:
    """``strategy.distribute_datasets_from_function(dataset_fn)``: ``dataset_fn`` runs once with
    an InputContext and returns a dataset of per-replica batches; replica i gets every
    (i mod num_replicas)-th element."""

    def __init__(self, strategy, dataset_fn):
        self._strategy = strategy
        workers, index = strategy._input_workers()
        self._dataset = dataset_fn(InputContext(workers, index, strategy.num_replicas_in_sync))

    def __iter__(self):
        return _DistributedIterator(iter(self._dataset), self._next_per_replica)

    def _next_per_replica(self, elements):
        devices = self._strategy.extended.worker_devices
        # A short tail (fewer elements than replicas) ends the iteration, so every replica gets a batch.
        batches = [next(elements) for _ in devices]
        return regroup([nest.map_structure(lambda v, d=d: _on(d, v), b) for d, b in zip(devices, batches)])


class _DistributedIterator:
    """Yields distributed elements until the dataset ends (``get_next`` is TensorFlow's spelling);
    ``next_element(iterator)`` makes one from the dataset's iterator."""

    def __init__(self, iterator, next_element):
        self._iterator = iterator
        self._next_element = next_element

    def __iter__(self):
        return self

    def __next__(self):
        return self._next_element(self._iterator)

    def get_next(self):
        return next(self)

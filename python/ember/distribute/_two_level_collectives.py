"""Collectives over every replica of a multi-worker job: first among this worker's devices, then between workers.

Note [Two-level collectives]: MultiWorkerMirroredStrategy has L local
replicas (devices) on each of W workers. A collective first combines the
L local values on the first local device (LocalCollectives), then
combines the W workers' partial results (MpiCollectives), then copies the
result back to the local devices. MEAN is a SUM at both levels followed
by one division by W * L, so it is the mean over all replicas even if a
later backend lets workers have different numbers of devices.
"""

from ember._generated import ops
from ember._movement import split
from ember.device import device
from ember.distribute._collectives import Collectives, LocalCollectives, _axis_back, _axis_first
from ember.distribute._reduce_op import ReduceOp


class TwoLevelCollectives(Collectives):
    """The Collectives interface over ``devices`` (this worker's) and ``workers`` (an MpiCollectives)."""

    def __init__(self, devices, workers):
        super().__init__(devices)
        self.local = LocalCollectives(devices)
        self.workers = workers
        self.num_replicas = len(self.devices) * workers.num_workers

    def all_reduce(self, values, op):
        return self.local.broadcast(self.reduce(values, op, self.devices[0]))

    def reduce(self, values, op, destination):
        op = ReduceOp.from_value(op)
        partial_op = ReduceOp.SUM if op is ReduceOp.MEAN else op
        partial = self.local.reduce(values, partial_op, self.devices[0])
        total = self.workers.all_reduce([partial], partial_op)[0]
        if op is ReduceOp.MEAN:
            total = _divide(total, self.num_replicas)
        with device(destination):
            return ops.identity(total)

    def all_gather(self, values, axis=0):
        here = self.local.all_gather(values, axis)[0]
        return self.local.broadcast(self.workers.all_gather([here], axis)[0])

    def broadcast(self, value):
        """Worker 0's ``value`` on every device of every worker."""
        return self.local.broadcast(self.workers.broadcast(value)[0])

    def reduce_scatter(self, values, op, axis=0):
        """Replica (worker w, local device i) gets piece w * L + i of the reduction: the workers
        reduce-scatter their local partial results (worker w gets pieces w * L to w * L + L - 1),
        then each worker splits its block among its devices."""
        op = ReduceOp.from_value(op)
        partial_op = ReduceOp.SUM if op is ReduceOp.MEAN else op
        L = len(self.devices)
        partial = self.local.reduce(values, partial_op, self.devices[0])
        if partial.shape.rank == 0 or partial.shape[axis] % self.num_replicas:
            raise ValueError(f"reduce_scatter: dimension {axis} of shape {tuple(partial.shape)} does not split "
                             f"into {self.num_replicas} equal pieces (one per replica)")
        block = self.workers.reduce_scatter([partial], partial_op, axis)[0]
        if op is ReduceOp.MEAN:
            block = _divide(block, self.num_replicas)
        with device(self.devices[0]):
            pieces = split(block, L, axis=axis) if L > 1 else [block]
        out = []
        for name, piece in zip(self.devices, pieces):
            with device(name):
                out.append(ops.identity(piece))
        return out

    def all_to_all(self, values, axis=0):
        """Replica r = w * L + i (worker w, local device i) gets piece r of every replica's value,
        in replica order: one exchange between workers carries every local pair's pieces."""
        values = self.local._checked(values, "all_to_all")
        L, W = len(self.devices), self.workers.num_workers
        with device(self.devices[0]):
            here = [_axis_first(ops.identity(v), axis, L * W, "all_to_all", "replica") for v in values]
            axis = here[0][1]
            rest = list(here[0][0].shape[1:])
            # [source i, destination worker, destination i, piece rows, ...], sent in the order
            # [destination worker, destination i, source i, ...].
            pieces = ops.stack([ops.reshape(v, [W, L, -1] + rest) for v, _ in here], 0)
            send = ops.transpose(pieces, [1, 2, 0] + list(range(3, pieces.shape.rank)))
            received = self.workers.all_to_all([ops.reshape(send, [-1] + rest)], 0)[0]
            # [source worker, destination i, source i, ...] -> [destination i, source worker, source i, ...]
            got = ops.reshape(received, [W, L, L, -1] + rest)
            got = ops.transpose(got, [1, 0, 2] + list(range(3, got.shape.rank)))
            parts = [ops.reshape(p, [-1] + rest) for p in ops.unstack(got, axis=0)]
        out = []
        for name, part in zip(self.devices, parts):
            with device(name):
                out.append(_axis_back(ops.identity(part), axis))
        return out

    def barrier(self):
        self.workers.barrier()


def _divide(total, count):
    if total.dtype.is_floating or total.dtype.is_complex:
        return total / count
    # Integers: divide in float64 and cast back, which truncates toward zero (as LocalCollectives does).
    return ops.cast(ops.cast(total, "float64") / float(count), total.dtype)

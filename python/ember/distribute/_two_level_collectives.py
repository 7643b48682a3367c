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
from ember.distribute._collectives import Collectives, LocalCollectives
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
        """Replica (worker w, local device i) gets piece w * L + i of the reduction."""
        total = self.reduce(values, op, self.devices[0])
        n = self.num_replicas
        if total.shape[axis] % n:
            raise ValueError(f"reduce_scatter: dimension {axis} has size {total.shape[axis]}, which does not "
                             f"split into {n} equal pieces (one per replica)")
        first = self.workers.rank * len(self.devices)
        with device(self.devices[0]):
            pieces = split(total, n, axis=axis)[first:first + len(self.devices)]
        out = []
        for name, piece in zip(self.devices, pieces):
            with device(name):
                out.append(ops.identity(piece))
        return out

    def barrier(self):
        self.workers.barrier()


def _divide(total, count):
    if total.dtype.is_floating or total.dtype.is_complex:
        return total / count
    # Integers: divide in float64 and cast back, which truncates toward zero (as LocalCollectives does).
    return ops.cast(ops.cast(total, "float64") / float(count), total.dtype)

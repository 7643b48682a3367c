"""The collectives interface strategies use, and its in-process implementation over local devices.

Note [Collectives interface]: a strategy never moves values between
replicas itself; it calls a Collectives object. Each method takes one
value per participating device, in the order of ``devices``, and returns
one result per device, placed on that device. LocalCollectives does this
with ordinary ops in one process. A later backend (MPI between processes,
NCCL between GPUs) implements the same methods; the strategies and the
optimizer do not change.
"""

from ember._creation import convert_to_tensor
from ember._generated import ops
from ember._movement import split
from ember.device import device
from ember.distribute._reduce_op import ReduceOp


class Collectives:
    """What a collectives backend provides. ``devices`` are canonical names ("cpu:0", "sim:1")."""

    def __init__(self, devices):
        if not devices:
            raise ValueError("Collectives: at least one device is needed")
        self.devices = tuple(devices)

    def all_reduce(self, values, op):
        """Every device gets the reduction (``op``, a ReduceOp) of all the values."""
        raise NotImplementedError

    def reduce(self, values, op, destination):
        """The reduction of all the values, on the one device ``destination``."""
        raise NotImplementedError

    def all_gather(self, values, axis=0):
        """Every device gets the values concatenated along ``axis`` in device order."""
        raise NotImplementedError

    def broadcast(self, value):
        """A copy of ``value`` on every device."""
        raise NotImplementedError

    def reduce_scatter(self, values, op, axis=0):
        """Device i gets the i-th of len(devices) equal pieces (along ``axis``) of the reduction."""
        raise NotImplementedError

    def all_to_all(self, values, axis=0):
        """Every value splits into len(devices) equal pieces along ``axis``; device i gets piece i
        of every value, concatenated along ``axis`` in device order."""
        raise NotImplementedError


class LocalCollectives(Collectives):
    """Collectives among devices of this process: values are copied to the first device with
    ``ember.identity``, combined there with ordinary ops, and copied back out. Copies and kernels
    are enqueued like any op, so in async mode nothing here waits for the devices."""

    def all_reduce(self, values, op):
        return self.broadcast(self.reduce(values, op, self.devices[0]))

    def reduce(self, values, op, destination):
        op = ReduceOp.from_value(op)
        values = self._checked(values, "reduce")
        with device(destination):
            here = [ops.identity(v) for v in values]
            if op is ReduceOp.SUM:
                return ops.add_n(here) if len(here) > 1 else here[0]
            if op is ReduceOp.MEAN:
                return _mean(here)
            combine = ops.maximum if op is ReduceOp.MAX else ops.minimum
            out = here[0]
            for v in here[1:]:
                out = combine(out, v)
            return out

    def all_gather(self, values, axis=0):
        values = self._checked(values, "all_gather", same_shape=False)
        with device(self.devices[0]):
            gathered = ops.concat([ops.identity(v) for v in values], axis)
        return self.broadcast(gathered)

    def broadcast(self, value):
        value = convert_to_tensor(value)
        out = []
        for name in self.devices:
            with device(name):
                out.append(ops.identity(value))
        return out

    def reduce_scatter(self, values, op, axis=0):
        total = self.reduce(values, op, self.devices[0])
        n = len(self.devices)
        if total.shape[axis] % n:
            raise ValueError(f"reduce_scatter: dimension {axis} has size {total.shape[axis]}, which does not "
                             f"split into {n} equal pieces")
        with device(self.devices[0]):
            pieces = split(total, n, axis=axis)
        out = []
        for name, piece in zip(self.devices, pieces):
            with device(name):
                out.append(ops.identity(piece))
        return out

    def all_to_all(self, values, axis=0):
        values = self._checked(values, "all_to_all")
        n = len(self.devices)
        with device(self.devices[0]):
            here = [_axis_first(ops.identity(v), axis, n, "all_to_all", "device") for v in values]
            axis = here[0][1]
            rest = list(here[0][0].shape[1:])
            # [source, destination, piece rows, ...] -> [destination, source, piece rows, ...]
            blocks = ops.stack([_blocks(v, n) for v, _ in here], 0)
            blocks = ops.transpose(blocks, [1, 0] + list(range(2, blocks.shape.rank)))
            parts = [ops.reshape(b, [-1] + rest) for b in ops.unstack(blocks, axis=0)]
        out = []
        for name, part in zip(self.devices, parts):
            with device(name):
                out.append(_axis_back(ops.identity(part), axis))
        return out

    def _checked(self, values, what, same_shape=True):
        values = [convert_to_tensor(v) for v in values]
        if len(values) != len(self.devices):
            raise ValueError(f"{what}: expected one value per device ({len(self.devices)}), got {len(values)}")
        first = values[0]
        for v in values[1:]:
            if v.dtype != first.dtype:
                raise TypeError(f"{what}: the values have different dtypes ({first.dtype.name}, {v.dtype.name})")
            if same_shape and v.shape != first.shape:
                raise ValueError(f"{what}: the values have different shapes ({first.shape}, {v.shape})")
        return values


def _mean(values):
    total = ops.add_n(values) if len(values) > 1 else values[0]
    if total.dtype.is_floating or total.dtype.is_complex:
        return total / len(values)
    # Integers: divide in float64 and cast back, which truncates toward zero.
    return ops.cast(ops.cast(total, "float64") / float(len(values)), total.dtype)


def _axis_first(value, axis, pieces, what, unit):
    """``value`` with dimension ``axis`` moved first (checked to split into ``pieces`` equal
    blocks), and the axis as a non-negative number."""
    value = convert_to_tensor(value)
    rank = value.shape.rank
    if rank == 0:
        raise ValueError(f"{what}: a scalar has no axis to split; reshape it to [1] first")
    if not -rank <= axis < rank:
        raise ValueError(f"{what}: axis {axis} is out of range for a value of rank {rank}")
    axis = axis + rank if axis < 0 else axis
    if value.shape[axis] % pieces:
        raise ValueError(f"{what}: dimension {axis} of shape {tuple(value.shape)} does not split into {pieces} "
                         f"equal pieces, one per {unit}")
    if axis == 0:
        return value, axis
    return ops.transpose(value, [axis] + [d for d in range(rank) if d != axis]), axis


def _axis_back(value, axis):
    """The inverse of _axis_first's move."""
    if axis == 0:
        return value
    rank = value.shape.rank
    order = [axis] + [d for d in range(rank) if d != axis]
    return ops.transpose(value, [order.index(d) for d in range(rank)])


def _blocks(value, pieces):
    """[rows, ...] as [pieces, rows / pieces, ...]."""
    return ops.reshape(value, [pieces, -1] + list(value.shape[1:]))

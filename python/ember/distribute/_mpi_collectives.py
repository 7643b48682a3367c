"""MpiCollectives: the Collectives interface between processes (workers), over mpi4py.

Note [Collectives across workers]: each worker (an MPI rank) takes part
with one value on its one device, so the interface's lists have length 1
here: ``all_reduce([x], op)`` returns ``[the reduction of x over all
workers]``. The value's bytes go to MPI straight from the tensor's host
buffer (``numpy()`` is a view of a CPU tensor), MPI writes the result
into a fresh NumPy array, and that array becomes the result tensor through
DLPack without a copy. A tensor on another device is copied to the host
and back. Every call is a non-blocking MPI request polled against a
deadline (Note [Lost workers] in _lost_workers.py), so a dead worker
causes an error that names it, never a hang.

Note [Result buffers]: a fresh 64 MiB NumPy array costs its page faults
(the kernel zeroes every page on first touch), about a third of an
all-reduce of that size over loopback. So results of 1 MiB and more are
written into arrays kept for reuse. An array is free again when nothing
but the pool refers to it: a tensor made from it through DLPack, and
every view of that tensor, holds a reference to the array until the
runtime lets go of it (after its last kernel), so the reference count
says when no tensor can read it any more.

Note [Checked collectives]: MPI combines buffers by position and trusts
that every rank passes the same count and type; a mismatch gives garbage,
a truncation error or a hang. Each call therefore also all-reduces a few
int64 words (its kind, dtype, shape, and a sequence number) with MAX on a
communicator of its own, issued together with the data request so the two
overlap. Where the maximum differs from the minimum (the words are sent
negated as well) the workers disagree, and the call raises a ValueError
naming what differs, without waiting for the data (which may never
arrive); later collectives raise it again, since the workers are out of
step. all_gather sends full shapes instead, since only its first
axis may differ.
"""

import sys

import numpy as np

from ember import _C, _context
from ember._context import HostCallbackInTrace, current_trace
from ember._creation import convert_to_tensor
from ember._dlpack import from_dlpack
from ember._generated import ops
from ember._movement import pad
from ember._tensor import Tensor
from ember.device import device
from ember.distribute._collectives import Collectives, _axis_back, _axis_first
from ember.distribute._lost_workers import WorkerWatch
from ember.distribute._mpi import DTYPE_CODES, datatype, mpi
from ember.distribute._native_collectives import REDUCIBLE, NativeCommunicator, on_nccl_gpu
from ember.distribute._reduce_op import ReduceOp
from ember.dtypes import ALL_DTYPES, float32, float64, int32, int64
from ember.errors import OpError

_POOLED_BYTES = 1 << 20  # smaller results come from malloc, which is cheap (Note [Result buffers])
_POOL_SHAPES = 8
_POOL_ARRAYS_PER_SHAPE = 3
_KINDS = {"all_reduce": 1, "all_gather": 2, "broadcast": 3, "reduce_scatter": 4, "barrier": 5, "all_to_all": 6}
_MAX_CHECKED_DIMS = 6  # shapes with more dimensions are checked through their element count


_REDUCTIONS = {ReduceOp.SUM: "sum", ReduceOp.MEAN: "sum", ReduceOp.MAX: "max", ReduceOp.MIN: "min"}
# The reductions all_reduce's fast path takes, by every spelling (MEAN needs a division after).
_REDUCIBLE_DTYPES = (float32, float64, int32, int64)
_EAGER_REDUCTIONS = {k: v for op in (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN)
                     for k, v in ((op, _REDUCTIONS[op]), (op.value, _REDUCTIONS[op]), (_REDUCTIONS[op], _REDUCTIONS[op]))}


def _as_ops():
    """Whether collectives run as ops: in a trace (graph nodes) or under a gradient tape (recorded,
    with gradients); otherwise eagerly on this thread (Note [Eager collectives without the
    executor])."""
    return current_trace() is not None or _context.active_tape_count > 0


def _refuse_trace(what):
    """An MPI call moves real values, so it cannot be a node of a graph being traced: the function
    then runs eagerly at every call (Note [py_function in functions], Note [Replicas join the
    caller's trace] in _lockstep.py)."""
    if current_trace() is not None:
        raise HostCallbackInTrace(f"an MPI {what} between workers")


class MpiCollectives(Collectives):
    """Collectives among the processes of an MPI job, one value per process (Note [Collectives
    across workers]). ``device_name`` is where results are placed (default the CPU); ``comm``
    defaults to a duplicate of MPI_COMM_WORLD; ``timeout`` (seconds) to EMBER_COLLECTIVE_TIMEOUT;
    ``check=False`` leaves out the metadata check of Note [Checked collectives], which halves the
    MPI work of small calls but lets a shape mismatch of equal size pass unnoticed."""

    def __init__(self, device_name="cpu:0", comm=None, timeout=None, check=True):
        super().__init__([device_name])
        MPI = mpi()
        self._check = check
        self._ops = {ReduceOp.SUM: MPI.SUM, ReduceOp.MEAN: MPI.SUM, ReduceOp.MAX: MPI.MAX, ReduceOp.MIN: MPI.MIN}
        base = comm if comm is not None else MPI.COMM_WORLD
        self._comm = base.Dup()  # Ember's traffic never matches a user's own MPI calls
        self._check_comm = base.Dup()
        for c in (self._comm, self._check_comm):
            c.Set_errhandler(MPI.ERRORS_RETURN)
        self.rank = self._comm.Get_rank()
        self.num_workers = self._comm.Get_size()
        self._watch = WorkerWatch(base, timeout)
        self._calls = 0
        self._pool = {}  # (shape, dtype) -> arrays results were written into (Note [Result buffers])
        # Note [Collective ops]: the C++ side, where MPI takes calls from any thread.
        self._native = None
        if MPI.Query_thread() == MPI.THREAD_MULTIPLE:
            self._native = NativeCommunicator(MPI, base, check, self._watch.timeout, self._watch)

    def __repr__(self):
        return f"MpiCollectives(rank {self.rank} of {self.num_workers}, device={self.devices[0]!r})"

    # --- The interface -----------------------------------------------------------
    def all_reduce(self, values, op):
        # The common eager call, straight to C++: one CPU tensor, SUM, MAX or MIN, no trace or
        # tape, no failure yet. It costs about 1.5 us less than the general path below.
        reduction = _EAGER_REDUCTIONS.get(op) if type(op) is str or type(op) is ReduceOp else None
        if (reduction is not None and len(values) == 1 and type(values[0]) is Tensor and self._native is not None
                and self._watch.failed is None and values[0].dtype in _REDUCIBLE_DTYPES
                and values[0].device == self.devices[0] and not _as_ops()):
            try:
                return [_C._mpi_run(self._native.id, "all_reduce", values[0], reduction, 0)]
            except OpError as error:
                self._fail(error)
        op = ReduceOp.from_value(op)
        if self._native is not None:
            value = self._native_value(values, "all_reduce", REDUCIBLE)
            out = self._native_call("all_reduce", value, reduction=_REDUCTIONS[op])
            if op is ReduceOp.MEAN:
                out = _divided(out, self.num_workers)
            return [self._placed(out)]
        (send,) = self._host_arrays(values, "all_reduce")
        out = self._result_array(send)
        mpi_op = self._ops[op]
        self._run("all_reduce", send, lambda: self._comm.Iallreduce(_buffer(send), _buffer(out), mpi_op))
        if op is ReduceOp.MEAN:
            _divide_in_place(out, self.num_workers)
        return [self._tensor(out)]

    def reduce(self, values, op, destination):
        result = self.all_reduce(values, op)[0]
        with device(destination):
            return ops.identity(result)

    def all_gather(self, values, axis=0):
        if self._native is not None:
            value = self._native_value(values, "all_gather", None)
            rank = value.shape.rank
            if rank == 0:
                raise ValueError("all_gather: a scalar has no axis to concatenate along; reshape it to [1] first")
            axis = axis + rank if axis < 0 else axis
            order = [axis] + [d for d in range(rank) if d != axis]
            moved = value if axis == 0 else ops.transpose(value, order)
            # As an op (in a graph) every worker's part has the same shape; eagerly they may differ.
            out = self._native_call("all_gather", moved) if _as_ops() else self._gather_parts(moved, value, axis)
            if axis != 0:
                out = ops.transpose(out, [order.index(d) for d in range(rank)])
            return [self._placed(out)]
        (send,) = self._host_arrays(values, "all_gather")
        if send.ndim == 0:
            raise ValueError("all_gather: a scalar has no axis to concatenate along; reshape it to [1] first")
        axis = axis + send.ndim if axis < 0 else axis
        shapes = self._gather_shapes(send, axis)
        moved = np.ascontiguousarray(np.moveaxis(send, axis, 0))  # a copy only when axis != 0
        counts = [int(np.prod(s)) for s in shapes]
        out = np.empty(sum(counts), send.dtype)
        displacements = np.cumsum([0] + counts[:-1]).tolist()
        self._run("all_gather", None, lambda: self._comm.Iallgatherv(
            _buffer(moved), [out, counts, displacements, datatype(send.dtype)]))
        parts = [out[d:d + c].reshape((s[axis],) + tuple(np.delete(s, axis)))
                 for d, c, s in zip(displacements, counts, shapes)]
        gathered = np.concatenate(parts, axis=0) if len(parts) > 1 else parts[0]
        return [self._tensor(np.ascontiguousarray(np.moveaxis(gathered, 0, axis)))]

    def broadcast(self, value, root=0):
        """Worker ``root``'s ``value`` on every worker; the others' values give the shape and dtype.
        Any dtype works (its bytes are copied), since variables of every dtype start this way."""
        if self._native is not None and convert_to_tensor(value).dtype.name != "string":
            out = self._native_call("broadcast", self._native_value([value], "broadcast", None), root=root)
            return [self._placed(out)]
        (send,) = self._host_arrays([value], "broadcast", any_dtype=True)
        out = send.copy() if self.rank == root else np.empty_like(send)
        raw = [out.reshape(-1).view(np.uint8), mpi().BYTE]
        self._run("broadcast", send, lambda: self._comm.Ibcast(raw, root=root))
        return [self._tensor(out)]

    def reduce_scatter(self, values, op, axis=0):
        op = ReduceOp.from_value(op)
        n = self.num_workers
        if self._native is not None:
            value = self._native_value(values, "reduce_scatter", REDUCIBLE)
            moved, axis = _axis_first(value, axis, n, "reduce_scatter", "worker")
            out = self._native_call("reduce_scatter", moved, reduction=_REDUCTIONS[op])
            if op is ReduceOp.MEAN:
                out = _divided(out, n)
            return [self._placed(_axis_back(out, axis))]
        (send,) = self._host_arrays(values, "reduce_scatter")
        if send.ndim == 0 or send.shape[axis] % n:
            raise ValueError(f"reduce_scatter: dimension {axis} of shape {send.shape} does not split into {n} "
                             "equal pieces, one per worker")
        moved = np.ascontiguousarray(np.moveaxis(send, axis, 0))
        out = np.empty((moved.shape[0] // n,) + moved.shape[1:], send.dtype)
        mpi_op = self._ops[op]
        self._run("reduce_scatter", send,
                  lambda: self._comm.Ireduce_scatter_block(_buffer(moved), _buffer(out), mpi_op))
        if op is ReduceOp.MEAN:
            _divide_in_place(out, n)
        return [self._tensor(np.ascontiguousarray(np.moveaxis(out, 0, axis)))]

    def all_to_all(self, values, axis=0):
        """Worker j gets piece j (along ``axis``) of every worker's value, in rank order. Any dtype
        works: the pieces' bytes are exchanged."""
        n = self.num_workers
        if self._native is not None:
            value = self._native_value(values, "all_to_all", None)
            moved, axis = _axis_first(value, axis, n, "all_to_all", "worker")
            return [self._placed(_axis_back(self._native_call("all_to_all", moved), axis))]
        (send,) = self._host_arrays(values, "all_to_all", any_dtype=True)
        if send.ndim == 0 or send.shape[axis] % n:
            raise ValueError(f"all_to_all: dimension {axis} of shape {send.shape} does not split into {n} "
                             "equal pieces, one per worker")
        moved = np.ascontiguousarray(np.moveaxis(send, axis, 0))
        out = np.empty_like(moved)
        raw_in, raw_out = moved.reshape(-1).view(np.uint8), out.reshape(-1).view(np.uint8)
        self._run("all_to_all", send, lambda: self._comm.Ialltoall([raw_in, mpi().BYTE], [raw_out, mpi().BYTE]))
        return [self._tensor(np.ascontiguousarray(np.moveaxis(out, 0, axis)))]

    def barrier(self):
        """Returns once every worker has called barrier."""
        if self._native is not None:
            with device("cpu:0"):  # the host's kernels, also where GPUs are present
                token = ops.zeros([], "int64")
            self._native_call("barrier", token)  # in a graph, kept: the op is stateful
            return
        _refuse_trace("barrier")
        self._run("barrier", None, self._comm.Ibarrier)

    # --- Plumbing ----------------------------------------------------------------
    def _native_value(self, values, what, dtypes):
        """The one value as a tensor the C++ side can read (in host memory), or in a trace, any tensor."""
        if len(values) != 1:
            raise ValueError(f"{what}: MpiCollectives takes one value per worker (this process's), got {len(values)}")
        value = values[0]
        if type(value) is not Tensor:
            value = convert_to_tensor(value)
        if dtypes is not None and value.dtype.name not in dtypes:
            raise TypeError(f"MpiCollectives: {value.dtype.name} values cannot be sent between workers; supported "
                            "dtypes are float32, float64, int32 and int64 (cast first)")
        if not value.device.startswith("cpu:") and current_trace() is None and not on_nccl_gpu(value):
            with device("cpu:0"):
                value = ops.identity(value)
        return value

    def _native_call(self, kind, value, reduction="sum", root=0):
        if _as_ops() or on_nccl_gpu(value):  # a GPU value: NCCL on its stream (Note [Collectives on GPUs])
            return self._native.as_op(kind, value, reduction, root)
        if self._watch.failed is not None:  # a lost worker or a mismatch seen on the Python side
            raise self._watch.failed
        try:
            return _C._mpi_run(self._native.id, kind, value, reduction, root)
        except OpError as error:
            self._fail(error)

    def _fail(self, error):
        # The workers are out of step for good: later calls, and the exit hook (Note [Lost
        # workers]), see the failure. A lost worker's error is WorkerWatch's own, with lost_ranks.
        if self._watch.failed is None:
            self._watch.failed = error
        raise self._watch.failed from None

    def _gather_parts(self, moved, value, axis):
        """The eager all_gather along dimension 0 of ``moved`` (``value`` with ``axis`` first), whose
        size may differ between workers: the shapes go first, then every part padded to the
        longest, then the padding is cut out."""
        if value.shape.rank > _MAX_CHECKED_DIMS:
            raise ValueError(f"all_gather: values of rank {value.shape.rank} are not supported (at most "
                             f"{_MAX_CHECKED_DIMS})")
        words = np.full((1, 2 + _MAX_CHECKED_DIMS), -1, np.int64)
        words[0, 0] = ALL_DTYPES.index(value.dtype)
        words[0, 1] = value.shape.rank
        words[0, 2:2 + value.shape.rank] = tuple(value.shape)
        with device("cpu:0"):  # read back at once: kept on the host
            sent = convert_to_tensor(words)
        everyone = self._native_call("all_gather", sent).numpy()
        mine = tuple(value.shape)
        for rank, row in enumerate(everyone):
            if row[0] != words[0, 0]:
                raise ValueError(f"all_gather: worker {rank}'s value has a different dtype from worker {self.rank}'s")
            shape = tuple(int(d) for d in row[2:2 + row[1]])
            if len(shape) != len(mine) or any(a != b for i, (a, b) in enumerate(zip(shape, mine)) if i != axis):
                raise ValueError(f"all_gather: worker {rank}'s value has shape {shape} and worker {self.rank}'s "
                                 f"{mine}; only dimension {axis} may differ")
        rows = [int(row[2 + axis]) for row in everyone]
        longest = max(rows)
        if all(r == longest for r in rows):
            return self._native_call("all_gather", moved)
        with device("cpu:0"):
            padded = pad(moved, [[0, longest - rows[self.rank]]] + [[0, 0]] * (value.shape.rank - 1))
            gathered = self._native_call("all_gather", padded)
            return ops.concat([gathered[r * longest:r * longest + rows[r]] for r in range(len(rows))], 0)

    def _placed(self, out):
        if out.device != self.devices[0]:
            with device(self.devices[0]):
                out = ops.identity(out)
        return out

    def _host_arrays(self, values, what, any_dtype=False):
        _refuse_trace(what)
        if len(values) != 1:
            raise ValueError(f"{what}: MpiCollectives takes one value per worker (this process's), got {len(values)}")
        value = values[0]
        array = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
        if array.dtype.hasobject:
            raise TypeError(f"{what}: {array.dtype} values (strings, objects) cannot be sent between workers")
        if not any_dtype:
            datatype(array.dtype)  # refuses unsupported dtypes before any worker sends
        # Not ascontiguousarray for all: it makes scalars 1-D (and 0-d arrays are contiguous anyway).
        return [array if array.flags.c_contiguous else np.ascontiguousarray(array)]

    def _result_array(self, like):
        """An array like ``like`` to write a result into: a free pooled one for large results."""
        if like.nbytes < _POOLED_BYTES:
            return np.empty_like(like)
        shape, dtype = like.shape, like.dtype
        key = (shape, dtype.str)
        arrays = self._pool.pop(key, [])
        self._pool[key] = arrays  # most recently used last
        found = None
        for array in arrays:
            if sys.getrefcount(array) == 3:  # the list, this loop's name, getrefcount's argument: free
                found = array
                break
        if found is None:
            found = np.empty(shape, dtype)
            if len(arrays) < _POOL_ARRAYS_PER_SHAPE:
                arrays.append(found)
        while len(self._pool) > _POOL_SHAPES:
            del self._pool[next(iter(self._pool))]
        return found

    def _tensor(self, array):
        if array.dtype in DTYPE_CODES:
            result = from_dlpack(array)  # shares the array's memory
        else:  # broadcast's other dtypes (bool, float16, bfloat16, ...): small, copied
            result = convert_to_tensor(array)
        if result.device != self.devices[0]:
            with device(self.devices[0]):
                result = ops.identity(result)
        return result

    def _run(self, what, array, start):
        """Starts the data request and its metadata check together and waits for both."""
        self._calls += 1
        label = _Label(what, self._calls, self.rank)
        if not self._check:
            self._watch.wait([start()], label)
            return
        words = self._check_words(what, array)
        both = np.concatenate([words, -words])
        seen = np.empty_like(both)
        MPI = mpi()
        check = self._check_comm.Iallreduce([both, MPI.INT64_T], [seen, MPI.INT64_T], MPI.MAX)
        data = start()
        # The check first: where workers disagree the data request may never finish. Polling the
        # check moves the data along too (MPI's progress is per process, not per request).
        self._watch.wait([check], label)
        if seen[:words.size].tobytes() != (-seen[words.size:]).tobytes():
            self._mismatch(label, words, seen)
        self._watch.wait([data], label)

    def _check_words(self, what, array):
        words = np.zeros(4 + _MAX_CHECKED_DIMS, np.int64)
        words[0], words[1] = _KINDS[what], self._calls
        if array is not None and what != "all_gather":
            words[2], words[3] = DTYPE_CODES.get(array.dtype, 100 + array.dtype.num), array.ndim
            dims = array.shape if array.ndim <= _MAX_CHECKED_DIMS else (array.size,)
            words[4:4 + len(dims)] = dims
        return words

    def _mismatch(self, label, words, seen):
        high, low = seen[:len(words)], -seen[len(words):]
        if high[0] != low[0] or high[1] != low[1]:
            detail = "workers called different collectives at this point (every worker must make the same calls)"
        elif high[2] != low[2]:
            detail = "the workers' values have different dtypes"
        else:
            detail = f"the workers' values have different shapes (this worker's: {tuple(words[4:4 + words[3]])})"
        error = ValueError(f"{label}: {detail}")
        self._watch.failed = error  # the workers are out of step: every later collective fails the same way
        raise error

    def _gather_shapes(self, send, axis):
        """Every worker's shape (all_gather lets only ``axis`` differ)."""
        mine = np.full(1 + _MAX_CHECKED_DIMS + 1, -1, np.int64)
        mine[0] = DTYPE_CODES[send.dtype]
        mine[1:1 + send.ndim] = send.shape
        everyone = np.empty((self.num_workers, mine.size), np.int64)
        self._run("all_gather", None, lambda: self._comm.Iallgather([mine, mpi().INT64_T],
                                                                    [everyone, mpi().INT64_T]))
        if send.ndim > _MAX_CHECKED_DIMS:
            raise ValueError(f"all_gather: values of rank {send.ndim} are not supported (at most {_MAX_CHECKED_DIMS})")
        shapes = []
        for rank, row in enumerate(everyone):
            if row[0] != mine[0]:
                raise ValueError(f"all_gather: worker {rank}'s value has a different dtype from worker {self.rank}'s")
            shape = tuple(int(d) for d in row[1:] if d >= 0)
            if len(shape) != send.ndim or any(a != b for i, (a, b) in enumerate(zip(shape, send.shape)) if i != axis):
                raise ValueError(f"all_gather: worker {rank}'s value has shape {shape} and worker {self.rank}'s "
                                 f"{send.shape}; only dimension {axis} may differ")
            shapes.append(shape)
        return shapes


class _Label:
    """Names a collective in errors; formatted only when one is raised."""

    __slots__ = ("what", "number", "rank")

    def __init__(self, what, number, rank):
        self.what, self.number, self.rank = what, number, rank

    def __str__(self):
        return f"{self.what} (collective #{self.number} of worker {self.rank})"


def _buffer(array):
    return [array, datatype(array.dtype)]


def _divided(total, n):
    """The MEAN from the SUM: integers truncate toward zero, as LocalCollectives' do."""
    if total.dtype.is_floating:
        return total / n
    return ops.cast(ops.cast(total, "float64") / float(n), total.dtype)


def _divide_in_place(array, n):
    if array.dtype.kind == "f":
        np.divide(array, n, out=array)
    else:  # integers: truncate toward zero, as LocalCollectives does
        np.copyto(array, np.sign(array) * (np.abs(array) // n))

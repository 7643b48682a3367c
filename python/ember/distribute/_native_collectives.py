"""The C++ side of MpiCollectives: the collective ops and the communicator they run on.

Note [Collective ops] (csrc/collectives/communicator.h) describes the C++
side. MpiCollectives makes one NativeCommunicator when MPI allows calls from
several threads (MPI_THREAD_MULTIPLE, what mpi4py asks for by default) and
uses it:

- inside a trace, as the ops collective_all_reduce, _all_gather,
  _broadcast, _reduce_scatter and _all_to_all: a multi-worker training
  step then traces to one graph, as TensorFlow's does; under a gradient
  tape too, so that the tape records them and gradients flow through them;
- a value on a GPU goes to the op on that GPU, which calls NCCL on its stream
  (Note [Collectives on GPUs] in csrc/kernels/cuda/collective.cc);
- otherwise eagerly through ``_C._mpi_run``, which waits on the calling
  thread with the GIL released (Note [Eager collectives without the
  executor] in csrc/python/collectives_binding.cc).

Both wait like WorkerWatch.wait and ask it about lost workers while they
wait, so a lost worker is named the same way on every path.
"""

import weakref

from ember import _C
from ember._generated import ops
from ember.device import device

# Ember's dtype names with an MPI datatype for all_reduce (gathers and broadcasts move bytes).
REDUCIBLE = ("float32", "float64", "int32", "int64")

_ranks = {}  # communicator id -> this worker's rank, for the ops' gradients (ember/_grads/collective.py)


def communicator_rank(communicator_id):
    """This worker's rank in the communicator with that id."""
    return _ranks[communicator_id]


class NativeCommunicator:
    """A registered C++ Communicator on two duplicates of ``base`` (data and checks)."""

    def __init__(self, MPI, base, check, timeout, watch):
        _C._mpi_attach(MPI._sizeof(MPI.Comm))
        # Both duplicates are made by every worker here, in the same order (Dup is collective).
        self._comms = (base.Dup(), base.Dup())
        for c in self._comms:
            c.Set_errhandler(MPI.ERRORS_RETURN)
        datatypes = {"float32": MPI.FLOAT.handle, "float64": MPI.DOUBLE.handle, "int32": MPI.INT32_T.handle,
                     "int64": MPI.INT64_T.handle}
        self.rank, self.size = base.Get_rank(), base.Get_size()
        self.id = _C._mpi_communicator(
            comm=self._comms[0].handle, check_comm=self._comms[1].handle, rank=self.rank, size=self.size,
            check=check, timeout=timeout, datatypes=datatypes, byte_type=MPI.BYTE.handle,
            int64_type=MPI.INT64_T.handle, ops=[MPI.SUM.handle, MPI.MAX.handle, MPI.MIN.handle],
            check_faults=watch.check_for_kernel)
        _ranks[self.id] = self.rank
        weakref.finalize(self, _forget, self.id, self._comms)  # the MPI handles outlive the C++ side

    def as_op(self, kind, value, reduction="sum", root=0):
        """The collective as an op (a node of the trace in progress, or recorded by a tape): on the
        value's GPU through NCCL where NCCL loads (Note [Collectives on GPUs] in
        csrc/kernels/cuda/collective.cc), else with the CPU's kernels."""
        with device(value.device if on_nccl_gpu(value) else "cpu:0"):
            if kind == "all_reduce":
                return ops.collective_all_reduce(value, communicator=self.id, reduction=reduction)
            if kind == "barrier":  # an all-reduce, which every worker must join
                return ops.collective_all_reduce(value, communicator=self.id)
            if kind == "all_gather":
                return ops.collective_all_gather(value, communicator=self.id, group_size=self.size)
            if kind == "reduce_scatter":
                return ops.collective_reduce_scatter(value, communicator=self.id, group_size=self.size,
                                                     reduction=reduction)
            if kind == "all_to_all":
                return ops.collective_all_to_all(value, communicator=self.id, group_size=self.size)
            return ops.collective_broadcast(value, communicator=self.id, root=root)


_nccl = []  # whether NCCL loads, asked once


def on_nccl_gpu(value):
    """Whether ``value`` is on a GPU whose collectives NCCL runs."""
    if not value.device.startswith("gpu:"):
        return False
    if not _nccl:
        _nccl.append(_C._nccl_available())  # loads NCCL: only once a GPU value needs it
    return _nccl[0]


def _forget(communicator_id, comms):
    del comms
    _ranks.pop(communicator_id, None)
    _C._mpi_forget_communicator(communicator_id)

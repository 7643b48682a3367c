"""op_db entries for the collective ops (op_defs/collective.yaml), on a communicator of this one
process (MPI_COMM_SELF through MpiCollectives), where each collective returns its input: every
dtype, shape and the graph path run through the same kernels and MPI calls as with several
workers (tests/python/test_distribute_multiworker.py checks those results). Bad attributes raise
at the call."""

import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample, make, unary_samples

_self = []  # the MpiCollectives over MPI_COMM_SELF, made on first use (it initializes MPI)


def _communicator():
    if not _self:
        import pytest

        MPI = pytest.importorskip("mpi4py.MPI", reason="the collective ops need mpi4py (pip install mpi4py mpich)")
        from ember.distribute import MpiCollectives

        _self.append(MpiCollectives(comm=MPI.COMM_SELF, timeout=30))
    return _self[0]._native.id


def _gather_samples(dtype, rng):
    yield Sample("rows", (make(rng, (3, 4), dtype),))
    yield Sample("vector", (make(rng, (5,), dtype),))
    yield Sample("empty", (make(rng, (0, 3), dtype),))
    yield Sample("large", (make(rng, (LARGE,), dtype),))


def entries(ember):
    raw = ember.raw_ops

    def all_reduce(x, reduction="sum", communicator=None):
        return raw.collective_all_reduce(x, communicator=communicator or _communicator(), reduction=reduction)

    def all_gather(x, group_size=1, communicator=None):
        return raw.collective_all_gather(x, communicator=communicator or _communicator(), group_size=group_size)

    def broadcast(x, root=0, communicator=None):
        return raw.collective_broadcast(x, communicator=communicator or _communicator(), root=root)

    def reduce_samples(dtype, rng):
        for sample in unary_samples()(dtype, rng):
            yield sample
        yield Sample("max", (make(rng, (2, 3), dtype),), {"reduction": "max"})
        yield Sample("min", (make(rng, (2, 3), dtype),), {"reduction": "min"})

    def reduce_errors():
        x = np.ones((2,), np.float32)
        yield ErrorInput("bad_reduction", (x,), {"reduction": "mean"}, ValueError,
                         r"^collective_all_reduce: reduction must be 'sum', 'max' or 'min', got 'mean'")

    def gather_errors():
        yield ErrorInput("scalar", (np.float32(1),), {}, ValueError,
                         r"^collective_all_gather: a scalar has no dimension 0")
        yield ErrorInput("no_workers", (np.ones((2,), np.float32),), {"group_size": 0}, ValueError,
                         r"^collective_all_gather: group_size must be at least 1")

    def broadcast_errors():
        yield ErrorInput("string", (np.array(["a"]),), {}, TypeError, r"^collective_broadcast: ")

    def reduce_scatter(x, reduction="sum", group_size=1, communicator=None):
        return raw.collective_reduce_scatter(x, communicator=communicator or _communicator(), group_size=group_size,
                                             reduction=reduction)

    def all_to_all(x, group_size=1, communicator=None):
        return raw.collective_all_to_all(x, communicator=communicator or _communicator(), group_size=group_size)

    def scatter_samples(dtype, rng):
        for sample in _gather_samples(dtype, rng):
            yield sample
        yield Sample("max", (make(rng, (2, 3), dtype),), {"reduction": "max"})
        yield Sample("min", (make(rng, (4,), dtype),), {"reduction": "min"})

    def block_errors(op):
        def errors():
            yield ErrorInput("scalar", (np.float32(1),), {}, ValueError, rf"^{op}: a scalar has no dimension 0")
            yield ErrorInput("uneven", (np.ones((3, 2), np.float32),), {"group_size": 2}, ValueError,
                             rf"^{op}: dimension 0 of shape \[3, 2\] does not split into 2 equal blocks")
            yield ErrorInput("no_workers", (np.ones((2,), np.float32),), {"group_size": 0}, ValueError,
                             rf"^{op}: group_size must be at least 1")
            if op == "collective_reduce_scatter":
                yield ErrorInput("bad_reduction", (np.ones((2,), np.float32),), {"reduction": "mean"}, ValueError,
                                 rf"^{op}: reduction must be 'sum', 'max' or 'min', got 'mean'")
        return errors

    def same(x, **kwargs):
        del kwargs
        return x

    return [OpInfo("collective_all_reduce", all_reduce, same, reduce_samples, reduce_errors),
            OpInfo("collective_all_gather", all_gather, same, _gather_samples, gather_errors),
            OpInfo("collective_broadcast", broadcast, same, unary_samples(), broadcast_errors),
            OpInfo("collective_reduce_scatter", reduce_scatter, same, scatter_samples,
                   block_errors("collective_reduce_scatter")),
            OpInfo("collective_all_to_all", all_to_all, same, _gather_samples, block_errors("collective_all_to_all"))]

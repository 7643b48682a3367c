"""One MPI worker of test_distribute_multiworker.py: every MpiCollectives call against NumPy.

Each rank computes what every other rank holds (the values are a function of
the rank), so it can check its own results; it prints "ok <rank>" at the end.
"""

import numpy as np

import ember
from ember.distribute import MpiCollectives, ReduceOp

c = MpiCollectives()
rank, n = c.rank, c.num_workers


def value_of(r, dtype, shape=(3, 4)):
    return (np.arange(np.prod(shape)).reshape(shape) * (r + 1) - 5 * r).astype(dtype)


def check(got, want, what):
    got = got.numpy()
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, want {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
    np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=what)


def eager_checks(c):
    """Every collective against NumPy, on the C++ path or mpi4py's."""
    for dtype in (np.float32, np.float64, np.int32, np.int64):
        everyone = np.stack([value_of(r, dtype) for r in range(n)])
        mine = ember.constant(value_of(rank, dtype))
        check(c.all_reduce([mine], ReduceOp.SUM)[0], everyone.sum(0).astype(dtype), f"SUM {dtype}")
        check(c.all_reduce([mine], "max")[0], everyone.max(0), f"MAX {dtype}")
        check(c.all_reduce([mine], "min")[0], everyone.min(0), f"MIN {dtype}")
        mean = everyone.sum(0) / n if np.dtype(dtype).kind == "f" else np.trunc(everyone.sum(0) / n)
        check(c.all_reduce([mine], "mean")[0], mean.astype(dtype), f"MEAN {dtype}")
        check(c.all_gather([mine], axis=1)[0], np.concatenate(list(everyone), axis=1), f"all_gather {dtype}")
        check(c.broadcast(mine)[0], value_of(0, dtype), f"broadcast {dtype}")
        tall = ember.constant(np.tile(value_of(rank, dtype), (n, 1)))
        want = np.split(np.tile(everyone.sum(0), (n, 1)).astype(dtype), n, axis=0)[rank]
        check(c.reduce_scatter([tall], "sum", axis=0)[0], want, f"reduce_scatter {dtype}")
        wide = ember.constant(np.tile(value_of(rank, dtype), (1, n)))
        wide_everyone = np.stack([np.tile(value_of(r, dtype), (1, n)) for r in range(n)])
        for op, combine in (("max", np.max), ("min", np.min)):
            want = np.split(combine(wide_everyone, 0), n, axis=1)[rank]
            check(c.reduce_scatter([wide], op, axis=1)[0], want, f"reduce_scatter {op} axis 1 {dtype}")
        want = np.concatenate([np.split(np.tile(value_of(r, dtype), (n, 1)), n, axis=0)[rank] for r in range(n)])
        check(c.all_to_all([tall], axis=0)[0], want, f"all_to_all {dtype}")
        want = np.concatenate([np.split(wide_everyone[r], n, axis=1)[rank] for r in range(n)], axis=1)
        check(c.all_to_all([wide], axis=-1)[0], want, f"all_to_all axis -1 {dtype}")

    # all_to_all moves bytes: any dtype; worker r's block j holds r * 10 + j.
    for dtype in ("bool", "float16", "bfloat16", "uint8", "complex64"):
        blocks = ember.cast(ember.constant(np.array([[rank * 10 + j] for j in range(n)], np.float32)), dtype)
        got = c.all_to_all([blocks])[0]
        assert got.dtype.name == dtype, (got.dtype, dtype)
        want = ember.cast(ember.constant(np.array([[r * 10 + rank] for r in range(n)], np.float32)), dtype)
        np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"all_to_all {dtype}")
    try:
        c.all_to_all([ember.ones([n + 1, 2])])
    except ValueError as error:
        assert f"does not split into {n} equal pieces" in str(error), error
    else:
        raise AssertionError("an uneven all_to_all was accepted")

    # broadcast carries any dtype (variables of every dtype start from worker 0's values).
    for dtype in ("bool", "float16", "bfloat16", "uint8"):
        mine = ember.cast(ember.constant([[rank, 1.0, 0.0]]), dtype)
        got = c.broadcast(mine)[0]
        assert got.dtype.name == dtype, (got.dtype, dtype)
        np.testing.assert_array_equal(got.numpy().astype(np.float32), [[0.0, 1.0, 0.0]])

    # all_gather with a first axis that differs between workers.
    ragged = ember.constant(np.full((rank + 1, 2), rank, np.float32))
    want = np.concatenate([np.full((r + 1, 2), r, np.float32) for r in range(n)])
    check(c.all_gather([ragged], axis=0)[0], want, "ragged all_gather")

    # Scalars and a large buffer.
    check(c.all_reduce([ember.constant(float(rank))], "sum")[0], np.array(n * (n - 1) / 2, np.float32), "scalar")
    big = ember.constant(np.full(1 << 20, rank + 1, np.float64))
    check(c.all_reduce([big], "sum")[0], np.full(1 << 20, n * (n + 1) / 2), "1M doubles")
    c.barrier()
    # Both sides of the size that rides in the check packet (Note [Check packets]: 256 bytes).
    for count in (32, 33, 64, 65):
        for dtype in (np.float32, np.float64, np.int32):
            everyone = np.stack([value_of(r, dtype, (count,)) for r in range(n)])
            mine = ember.constant(value_of(rank, dtype, (count,)))
            check(c.all_reduce([mine], "sum")[0], everyone.sum(0).astype(dtype), f"SUM of {count} {dtype}")
            check(c.all_reduce([mine], "min")[0], everyone.min(0), f"MIN of {count} {dtype}")

    # Unsupported dtypes are refused before anything is sent.
    try:
        c.all_reduce([ember.constant([True])], "sum")
    except TypeError as error:
        assert "float32, float64, int32 and int64" in str(error), error
    else:
        raise AssertionError("bool was accepted")


eager_checks(c)
# On the C++ path a small all-reduce's MAX and MIN propagate NaN (Note [Check packets]).
assert c._native is not None, "the C++ communicator is not in use"
nan_on_worker_0 = ember.constant(np.array([np.nan if rank == 0 else 1.0, rank], np.float32))
for op, last in (("max", n - 1), ("min", 0)):
    got = c.all_reduce([nan_on_worker_0], op)[0].numpy()
    assert np.isnan(got[0]) and got[1] == last, (op, got)
# The Python path over mpi4py, which runs where MPI lacks MPI_THREAD_MULTIPLE.
python_path = MpiCollectives()
python_path._native = None
eager_checks(python_path)

# The same collectives inside an ember.function: ops of its graph (Note [Collective ops]).
@ember.function
def traced(x):
    return (c.all_reduce([x], "sum")[0], c.all_reduce([x], "max")[0], c.all_reduce([x], "mean")[0],
            c.all_gather([x], axis=1)[0], c.broadcast(x)[0], c.reduce_scatter([ember.tile(x, [n, 1])], "sum")[0],
            c.all_to_all([ember.tile(x, [n, 1])])[0])


for dtype in (np.float32, np.int64):
    everyone = np.stack([value_of(r, dtype) for r in range(n)])
    total, high, mean, gathered, first, piece, swapped = traced(ember.constant(value_of(rank, dtype)))
    check(total, everyone.sum(0).astype(dtype), f"traced SUM {dtype}")
    check(high, everyone.max(0), f"traced MAX {dtype}")
    want_mean = everyone.sum(0) / n if np.dtype(dtype).kind == "f" else np.trunc(everyone.sum(0) / n)
    check(mean, want_mean.astype(dtype), f"traced MEAN {dtype}")
    check(gathered, np.concatenate(list(everyone), axis=1), f"traced all_gather {dtype}")
    check(first, value_of(0, dtype), f"traced broadcast {dtype}")
    want = np.split(np.tile(everyone.sum(0), (n, 1)).astype(dtype), n, axis=0)[rank]
    check(piece, want, f"traced reduce_scatter {dtype}")
    check(swapped, np.concatenate(list(everyone)), f"traced all_to_all {dtype}")
assert traced.experimental_get_tracing_count() == 2
ops = traced.get_concrete_function(ember.TensorSpec([3, 4], "float32")).graph.op_names()
for name in ("all_reduce", "all_gather", "broadcast", "reduce_scatter", "all_to_all"):
    assert f"collective_{name}" in ops, ops

# Gradients through the collectives: worker w's loss is (w + 1) * sum(all_reduce(x^2)) and
# (w + 1) * sum(all_gather(x)), so d(sum over workers)/dx_r is 2 x_r n(n+1)/2 and n(n+1)/2.
x = ember.Variable(value_of(rank, np.float64))
with ember.GradientTape(persistent=True) as tape:
    reduced = ember.reduce_sum(c.all_reduce([x * x], "sum")[0]) * (rank + 1)
    gathered = ember.reduce_sum(c.all_gather([x], axis=0)[0]) * (rank + 1)
weight = n * (n + 1) / 2
check(tape.gradient(reduced, x), 2 * value_of(rank, np.float64) * weight, "all_reduce gradient")
check(tape.gradient(gathered, x), np.full((3, 4), weight), "all_gather gradient")

# reduce_scatter: worker w's loss is (w + 1) * sum(its block of the sum of x_r * x_r), so
# d(sum over workers)/dx_r is 2 x_r times (w + 1) on block w. all_to_all: worker w's loss is
# (w + 1) * sum(its output), which holds block w of every worker's input, so the gradient of
# every input's block w is w + 1. max: the workers whose value reached block w's maximum share
# that block's gradient equally (TensorFlow's rule for ties).
tall = ember.Variable(np.tile(value_of(rank, np.float64), (n, 1)))
block_weight = np.repeat(np.arange(1, n + 1, dtype=np.float64), 3)[:, None] * np.ones((1, 4))
with ember.GradientTape(persistent=True) as tape:
    scattered = ember.reduce_sum(c.reduce_scatter([tall * tall], "sum")[0]) * (rank + 1)
    swapped = ember.reduce_sum(c.all_to_all([tall])[0]) * (rank + 1)
    positive = tall * tall + 1.0
    highest = ember.reduce_sum(c.reduce_scatter([positive * (rank + 1)], "max")[0]) * (rank + 1)
check(tape.gradient(scattered, tall), 2 * tall.numpy() * block_weight, "reduce_scatter gradient")
check(tape.gradient(swapped, tall), block_weight, "all_to_all gradient")
every_positive = np.stack([(np.tile(value_of(r, np.float64), (n, 1)) ** 2 + 1) * (r + 1) for r in range(n)])
reached = every_positive == every_positive.max(0)
want = reached[rank] * 2 * tall.numpy() * (rank + 1) * block_weight / reached.sum(0)
check(tape.gradient(highest, tall), want, "reduce_scatter max gradient")

print(f"ok {rank}", flush=True)

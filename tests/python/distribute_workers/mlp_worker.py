"""One MPI worker of test_distribute_multiworker.py: data-parallel MLP training that must match one
device training on the whole batch.

Usage: mlp_worker.py OUT_DIR [LOCAL_DEVICES]. Each worker trains with
MultiWorkerMirroredStrategy on its share of each global batch of 8, trains the
same model alone on the whole batch (the reference), and compares, for SGD with
momentum (its step eager, then as an ember.function) and for Adam. Worker 0 also saves a checkpoint into OUT_DIR; every
worker writes OUT_DIR/ok-<rank> when all checks pass.
"""

import os
import sys

import numpy as np

import ember

D = ember.distribute
out_dir = sys.argv[1]
local_devices = int(sys.argv[2]) if len(sys.argv) > 2 else 1

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 4)).astype(np.float32)
Y = _rng.normal(size=(8, 1)).astype(np.float32)
W1 = (_rng.normal(size=(4, 8)) * 0.5).astype(np.float32)
W2 = (_rng.normal(size=(8, 1)) * 0.5).astype(np.float32)
OPTIMIZERS = {"sgd": lambda: ember.optimizers.SGD(0.1, momentum=0.9), "adam": lambda: ember.optimizers.Adam(0.01)}


def train(strategy, make_optimizer, first_w1, steps=4, traced=False):
    """With `traced`, the whole step (strategy.run and strategy.reduce) is an ember.function, as in
    TensorFlow's tutorials: one graph whose collectives are ops (Note [Collective ops])."""
    with strategy.scope():
        params = [ember.Variable(first_w1, name="w1"), ember.Variable(np.zeros(8, np.float32), name="b1"),
                  ember.Variable(W2, name="w2")]
        optimizer = make_optimizer()

    def step(x, y):
        w1, b1, w2 = params
        with ember.GradientTape() as tape:
            hidden = ember.nn.relu(ember.matmul(x, w1) + b1)
            per_example = ember.reduce_sum(ember.square(ember.matmul(hidden, w2) - y), axis=1)
            loss = ember.nn.compute_average_loss(per_example, global_batch_size=8)
        optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

    def distributed_step(x, y):
        return strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None)

    if traced:
        distributed_step = ember.function(distributed_step)
    dataset = ember.data.Dataset.from_tensor_slices((X, Y)).batch(8).repeat(steps)
    batches = list(strategy.experimental_distribute_dataset(dataset))
    losses = [float(distributed_step(x, y)) for x, y in batches]
    if traced:
        assert distributed_step.experimental_get_tracing_count() == 1
        graph = distributed_step.get_concrete_function(*batches[0]).graph
        assert "collective_all_reduce" in graph.op_names(), graph.op_names()
    return params, optimizer, losses


devices = [f"cpu:{i}" for i in range(local_devices)]
strategy = D.MultiWorkerMirroredStrategy(devices=devices)
rank = strategy.cluster_resolver.task_id
workers = strategy.cluster_resolver.num_tasks
assert strategy.num_replicas_in_sync == workers * local_devices
assert len(strategy.cluster_resolver.cluster_spec()["worker"]) == workers

for name, make, traced in [("adam", OPTIMIZERS["adam"], False), ("sgd", OPTIMIZERS["sgd"], False),
                           ("sgd", OPTIMIZERS["sgd"], True)]:
    # Workers other than 0 start from other values: the scope makes every worker start from worker 0's.
    first_w1 = W1 if rank == 0 else W1 + rank
    params, optimizer, losses = train(strategy, make, first_w1, traced=traced)
    reference, _, reference_losses = train(D.OneDeviceStrategy("cpu:0"), make, W1)
    np.testing.assert_allclose(losses, reference_losses, rtol=1e-5, err_msg=name)
    assert reference_losses[-1] < reference_losses[0]
    for mine, one in zip(params, reference):
        for component in mine.values:
            np.testing.assert_allclose(component.numpy(), one.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    assert int(optimizer.iterations.values[0]) == 4

# reduce and gather across workers.
values = strategy.run(lambda: ember.fill([2], ember.cast(D.get_replica_context().replica_id_in_sync_group,
                                                               "float32")))
total = strategy.num_replicas_in_sync
np.testing.assert_allclose(strategy.reduce("MEAN", values, axis=0).numpy(), (total - 1) / 2)
np.testing.assert_allclose(strategy.reduce("MAX", values, axis=None).numpy(), [total - 1] * 2)
np.testing.assert_allclose(strategy.gather(values, axis=0).numpy(), np.repeat(np.arange(total), 2))

# reduce_scatter over every replica of every worker: replica r gets piece r of the sum.
ramp = np.arange(total * 2, dtype=np.float32)
pieces = strategy._collectives.reduce_scatter([ember.constant(ramp) for _ in devices], "sum")
for local, piece in enumerate(pieces):
    r = rank * local_devices + local
    np.testing.assert_allclose(piece.numpy(), ramp[2 * r:2 * r + 2] * total)
    assert piece.device == devices[local]

# ... with MEAN along axis 1, where replica r holds r + 1 times the ramp.
wide = np.stack([ramp, -ramp])
sources = [ember.constant(wide * (rank * local_devices + i + 1)) for i in range(local_devices)]
pieces = strategy._collectives.reduce_scatter(sources, "mean", axis=1)
for local, piece in enumerate(pieces):
    r = rank * local_devices + local
    np.testing.assert_allclose(piece.numpy(), wide[:, 2 * r:2 * r + 2] * (total + 1) / 2, rtol=1e-6)

# all_to_all: replica r gets piece r of every replica's value, in replica order; replica s's
# value holds 100 * s + (row's piece number) in each of its rows.
def value_of(s):
    return np.repeat(100 * s + np.arange(total, dtype=np.int64), 3).reshape(total * 3, 1) * np.ones((1, 2), np.int64)


got = strategy._collectives.all_to_all([ember.constant(value_of(rank * local_devices + i))
                                        for i in range(local_devices)])
for local, part in enumerate(got):
    r = rank * local_devices + local
    want = np.concatenate([value_of(s)[3 * r:3 * r + 3] for s in range(total)])
    np.testing.assert_array_equal(part.numpy(), want)
    assert part.device == devices[local]

# Checkpoints: only worker 0 writes (Note [Checkpoints from one worker]).
checkpoint = ember.train.Checkpoint(w=params[0])
path = checkpoint.save(os.path.join(out_dir, "ckpt"))
strategy.barrier()
written = sorted(os.listdir(out_dir))
assert any(n.startswith("ckpt-1") for n in written), written
restored = ember.Variable(np.zeros_like(W1))
ember.train.Checkpoint(w=restored).restore(path)
np.testing.assert_allclose(restored.numpy(), params[0].values[0].numpy())
strategy.barrier()  # nobody writes "ok" before everyone has looked at the directory

with open(os.path.join(out_dir, f"ok-{rank}"), "w") as f:
    f.write(f"{workers} workers x {local_devices} devices\n")

"""One MPI worker of test_distribute_multiworker.py's resume test: a job trains and checkpoints, a
later job with another number of workers restores that checkpoint and trains on, and the end matches
one device that trained all the steps without stopping.

Usage: resume_worker.py OUT_DIR PHASE, PHASE "first" (train STEPS steps, worker 0 saves the model,
the optimizer with its Adam slots, and the step counter) or "resume" (restore the latest checkpoint in
OUT_DIR, train STEPS more, compare with the reference). Every worker writes OUT_DIR/ok-PHASE-<rank>
when its checks pass.
"""

import os
import sys

import numpy as np

import ember

D = ember.distribute
out_dir, phase = sys.argv[1], sys.argv[2]
STEPS, BATCH = 3, 8

_rng = np.random.default_rng(1)
X = _rng.normal(size=(BATCH, 4)).astype(np.float32)
Y = _rng.normal(size=(BATCH, 1)).astype(np.float32)
W1 = (_rng.normal(size=(4, 8)) * 0.5).astype(np.float32)
W2 = (_rng.normal(size=(8, 1)) * 0.5).astype(np.float32)


def build(strategy):
    with strategy.scope():
        params = [ember.Variable(W1, name="w1"), ember.Variable(np.zeros(8, np.float32), name="b1"),
                  ember.Variable(W2, name="w2")]
        optimizer = ember.optimizers.Adam(0.01)
    return params, optimizer


def train(strategy, params, optimizer, steps):
    def step(x, y):
        w1, b1, w2 = params
        with ember.GradientTape() as tape:
            hidden = ember.nn.relu(ember.matmul(x, w1) + b1)
            per_example = ember.reduce_sum(ember.square(ember.matmul(hidden, w2) - y), axis=1)
            loss = ember.nn.compute_average_loss(per_example, global_batch_size=BATCH)
        optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

    dataset = ember.data.Dataset.from_tensor_slices((X, Y)).batch(BATCH).repeat(steps)
    return [float(strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None))
            for x, y in strategy.experimental_distribute_dataset(dataset)]


def checkpoint_of(params, optimizer):
    return ember.train.Checkpoint(w1=params[0], b1=params[1], w2=params[2], optimizer=optimizer)


strategy = D.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id
params, optimizer = build(strategy)
if phase == "first":
    train(strategy, params, optimizer, STEPS)
    checkpoint_of(params, optimizer).save(os.path.join(out_dir, "ckpt"))
    strategy.barrier()
else:
    path = ember.train.latest_checkpoint(out_dir)
    assert path is not None, os.listdir(out_dir)
    checkpoint_of(params, optimizer).restore(path).assert_existing_objects_matched()
    assert int(optimizer.iterations.values[0]) == STEPS
    losses = train(strategy, params, optimizer, STEPS)
    reference, reference_optimizer = build(D.OneDeviceStrategy("cpu:0"))
    reference_losses = train(D.OneDeviceStrategy("cpu:0"), reference, reference_optimizer, 2 * STEPS)
    np.testing.assert_allclose(losses, reference_losses[STEPS:], rtol=1e-5)
    for mine, one in zip(params, reference):
        for component in mine.values:
            np.testing.assert_allclose(component.numpy(), one.numpy(), rtol=1e-5, atol=1e-6)
    assert int(optimizer.iterations.values[0]) == 2 * STEPS
with open(os.path.join(out_dir, f"ok-{phase}-{rank}"), "w") as f:
    f.write(f"{strategy.cluster_resolver.num_tasks} workers\n")

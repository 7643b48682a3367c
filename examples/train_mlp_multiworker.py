"""Trains train_mlp.py's MLP data-parallel on several worker processes, and checks the result
against one worker training on the whole batch.

Every worker runs this script. MultiWorkerMirroredStrategy gives each worker
its share of every global batch, sums the gradients over all workers, and
starts every worker from worker 0's initial values. Each worker then trains
the same model alone on the whole batches (cheap at this size) and compares:
the parameters agree to float rounding.

Each step is one @ember.function around strategy.run, as TensorFlow's
tutorials write it: a graph whose all-reduces are collective ops (--eager
runs it op by op instead).

Usage:  python -m ember.distribute.run -n 4 examples/train_mlp_multiworker.py [--steps N]
            [--batch B] [--optimizer adam|sgd] [--eager]
        (or: mpiexec -n 4 python examples/train_mlp_multiworker.py ...)
"""
import argparse
import sys
import time

import numpy as np

import ember
from train_mlp import MLP, make_data

SIZES = [8, 64, 64, 4]


def train(strategy, data, steps, batch, optimizer_name, eager=False):
    """Trains a fresh MLP under ``strategy`` on ``steps`` global batches; returns its variables, losses
    and the seconds per step after the first (which traces)."""
    with strategy.scope():
        model = MLP(SIZES, seed=0)
        optimizer = (ember.optimizers.Adam(0.01) if optimizer_name == "adam"
                     else ember.optimizers.SGD(0.1, momentum=0.9))

    def step(x, y):
        with ember.GradientTape() as tape:
            per_example = ember.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=model(x))
            loss = ember.nn.compute_average_loss(per_example, global_batch_size=batch)  # global, not per worker
        optimizer.apply_gradients(zip(tape.gradient(loss, model.variables), model.variables))
        return loss

    def distributed_step(x, y):
        return strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None)

    if not eager:
        distributed_step = ember.function(distributed_step)
    dataset = ember.data.Dataset.from_tensor_slices(data).batch(batch, drop_remainder=True).take(steps)
    losses, started = [], None
    for x, y in strategy.experimental_distribute_dataset(dataset):
        losses.append(float(distributed_step(x, y)))
        started = started or time.perf_counter()
    seconds = (time.perf_counter() - started) / max(1, len(losses) - 1)
    return [v.numpy() for v in model.variables], losses, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=64, help="the global batch, split among all workers")
    parser.add_argument("--optimizer", choices=["adam", "sgd"], default="adam")
    parser.add_argument("--eager", action="store_true", help="run each step op by op, not as a function")
    args = parser.parse_args(argv)

    strategy = ember.distribute.MultiWorkerMirroredStrategy()
    rank, workers = strategy.cluster_resolver.task_id, strategy.cluster_resolver.num_tasks
    rng = np.random.default_rng(0)  # the same data on every worker; each takes its share of a batch
    data = make_data(args.steps * args.batch, rng, rng.normal(0.0, 1.6, (4, 8)))

    params, losses, seconds = train(strategy, data, args.steps, args.batch, args.optimizer, args.eager)
    alone, alone_losses, alone_seconds = train(ember.distribute.OneDeviceStrategy("cpu:0"), data, args.steps,
                                               args.batch, args.optimizer, args.eager)
    difference = max(float(np.max(np.abs(p - q))) for p, q in zip(params, alone))
    if rank == 0:
        print(f"{workers} workers x {args.batch // workers} examples: loss {losses[0]:.4f} -> {losses[-1]:.4f}")
        print(f"one worker x {args.batch} examples: loss {alone_losses[0]:.4f} -> {alone_losses[-1]:.4f}")
        print(f"largest parameter difference: {difference:.2e}")
        print(f"step time: {seconds * 1e3:.2f} ms with {workers} workers, {alone_seconds * 1e3:.2f} ms alone "
              f"({'eager' if args.eager else 'as a function'})")
    assert losses[-1] < losses[0], "the loss did not fall"
    np.testing.assert_allclose(losses, alone_losses, rtol=1e-4)
    if difference > 1e-4:
        print(f"worker {rank}: the parameters differ from one worker's by {difference:.2e}", file=sys.stderr)
        sys.exit(1)
    if rank == 0:
        print(f"{workers} workers match one worker on the whole batch")


if __name__ == "__main__":
    main()

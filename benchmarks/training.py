"""Times one training step of the examples/train_mlp.py model (MLP 8-64-64-4,
batch 64, softmax cross-entropy, Adam): Ember eager, Ember as one
`@ember.function` per step, and the same step in NumPy with a hand-written
backward pass and Adam update; PyTorch eager when it is importable.

Usage:  python benchmarks/training.py [--steps N] [--repeats K] [--batch B]
"""
import argparse
import importlib.util
import pathlib
import time

import numpy as np

import ember

_spec = importlib.util.spec_from_file_location(
    "train_mlp", pathlib.Path(__file__).resolve().parents[1] / "examples" / "train_mlp.py")
train_mlp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train_mlp)

SIZES = [8, 64, 64, 4]


def best_per_step(run, steps, repeats):
    run(3)  # warm-up: traces, kernel cache, allocator
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run(steps)
        best = min(best, time.perf_counter() - start)
    return best / steps


def ember_runner(x, y, as_function):
    model = train_mlp.MLP(SIZES)
    optimizer = ember.optimizers.Adam(0.01)
    xs, ys = ember.constant(x), ember.constant(y)

    def step():
        with ember.GradientTape() as tape:
            loss = train_mlp.loss_fn(model, xs, ys)
        optimizer.apply_gradients(zip(tape.gradient(loss, model.variables), model.variables))
        return loss

    fn = ember.function(step) if as_function else step

    def run(n):
        for _ in range(n):
            loss = fn()
        loss.numpy()  # wait for the last step
    return run


def numpy_runner(x, y):
    rng = np.random.default_rng(0)
    ws = [rng.uniform(-0.1, 0.1, (a, b)).astype(np.float32) for a, b in zip(SIZES, SIZES[1:])]
    bs = [np.zeros(b, np.float32) for b in SIZES[1:]]
    params = ws + bs
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = [0]

    def run(n):
        for _ in range(n):
            _, gws, gbs = train_mlp.numpy_gradients((ws, bs), x, y)
            t[0] += 1
            lr_t = 0.01 * np.sqrt(1 - 0.999 ** t[0]) / (1 - 0.9 ** t[0])
            for p, g, mi, vi in zip(params, gws + gbs, m, v):
                mi += (g - mi) * 0.1
                vi += (g * g - vi) * 0.001
                p -= (lr_t * mi / (np.sqrt(vi) + 1e-7)).astype(np.float32)
    return run


def torch_runner(x, y):
    import torch
    layers = []
    for i, (a, b) in enumerate(zip(SIZES, SIZES[1:])):
        layers.append(torch.nn.Linear(a, b))
        if i + 2 < len(SIZES):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    xs, ys = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))

    def run(n):
        for _ in range(n):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xs), ys)
            loss.backward()
            optimizer.step()
    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    centers = rng.normal(0.0, 1.6, (4, 8))
    x, y = train_mlp.make_data(args.batch, rng, centers)

    rows = [("numpy, hand-written backward", numpy_runner(x, y)),
            ("ember eager", ember_runner(x, y, False)),
            ("ember @function per step", ember_runner(x, y, True))]
    if importlib.util.find_spec("torch") is not None:
        rows.append(("pytorch eager", torch_runner(x, y)))
    times = [(name, best_per_step(run, args.steps, args.repeats)) for name, run in rows]
    base = times[0][1]
    print(f"MLP {SIZES}, batch {args.batch}, Adam: best of {args.repeats} x {args.steps} steps")
    for name, t in times:
        print(f"  {name:32s} {t * 1e6:9.1f} us/step   {t / base:5.2f}x numpy")


if __name__ == "__main__":
    main()

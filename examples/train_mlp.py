"""Trains a small MLP classifier with ember.GradientTape and an optimizer.

A synthetic set: points from four overlapping Gaussian clusters in 8
dimensions, with a label per cluster. The model is 8 -> 64 -> 64 -> 4 with ReLU, trained
with softmax cross-entropy. The script trains it eagerly, then again with
one `@ember.function` per training step, and prints the loss as it falls.
Before training, one step's gradients are checked against a hand-written
NumPy backward pass of the same network.

Usage:  python examples/train_mlp.py [--steps N] [--batch B] [--optimizer adam|sgd]
"""
import argparse
import time

import numpy as np

import ember


def make_data(n, rng, centers):
    labels = rng.integers(0, len(centers), n)
    points = centers[labels] + rng.normal(0.0, 1.0, (n, centers.shape[1]))
    return points.astype(np.float32), labels.astype(np.int32)


class MLP:
    def __init__(self, sizes, seed=0):
        init = ember.initializers.GlorotUniform(seed=seed)
        self.weights = [ember.Variable(init((a, b)), name=f"w{i}") for i, (a, b) in enumerate(zip(sizes, sizes[1:]))]
        self.biases = [ember.Variable(np.zeros(b, np.float32), name=f"b{i}") for i, b in enumerate(sizes[1:])]

    @property
    def variables(self):
        return self.weights + self.biases

    def __call__(self, x):
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = ember.matmul(x, w) + b
            if i + 1 < len(self.weights):
                x = ember.nn.relu(x)
        return x


def loss_fn(model, x, y):
    logits = model(x)
    return ember.reduce_mean(ember.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def numpy_gradients(params, x, y):
    """The loss and its gradients for a ReLU MLP, backpropagated by hand."""
    ws, bs = params
    acts, pre = [x], []
    for i, (w, b) in enumerate(zip(ws, bs)):
        z = acts[-1] @ w + b
        pre.append(z)
        acts.append(np.maximum(z, 0) if i + 1 < len(ws) else z)
    logits = acts[-1]
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = -np.log(probs[np.arange(n), y]).mean()
    d = probs.copy()
    d[np.arange(n), y] -= 1
    d /= n
    gws, gbs = [None] * len(ws), [None] * len(bs)
    for i in reversed(range(len(ws))):
        gws[i] = acts[i].T @ d
        gbs[i] = d.sum(axis=0)
        if i:
            d = (d @ ws[i].T) * (pre[i - 1] > 0)
    return loss, gws, gbs


def check_against_numpy(model, x, y):
    with ember.GradientTape() as tape:
        loss = loss_fn(model, ember.constant(x), ember.constant(y))
    grads = tape.gradient(loss, model.variables)
    ws = [w.numpy().astype(np.float64) for w in model.weights]
    bs = [b.numpy().astype(np.float64) for b in model.biases]
    want_loss, gws, gbs = numpy_gradients((ws, bs), x.astype(np.float64), y)
    np.testing.assert_allclose(float(loss), want_loss, rtol=1e-5)
    for got, want in zip(grads, gws + gbs):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-6)
    print("one step's gradients match NumPy")


def accuracy(model, x, y):
    predicted = ember.argmax(model(ember.constant(x)), axis=1).numpy()
    return float((predicted == y).mean())


def train(model, optimizer, data, steps, batch, as_function, rng, log_every):
    x_all, y_all = data

    def step(x, y):
        with ember.GradientTape() as tape:
            loss = loss_fn(model, x, y)
        optimizer.apply_gradients(zip(tape.gradient(loss, model.variables), model.variables))
        return loss

    run = ember.function(step) if as_function else step
    losses = []
    start = time.perf_counter()
    for i in range(steps):
        idx = rng.integers(0, len(x_all), batch)
        loss = run(ember.constant(x_all[idx]), ember.constant(y_all[idx]))
        if i % log_every == 0 or i == steps - 1:
            losses.append(float(loss))
            print(f"  step {i:4d}  loss {losses[-1]:.4f}")
    ember.sync()
    per_step = (time.perf_counter() - start) / steps
    return losses, per_step


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--optimizer", choices=["adam", "sgd"], default="adam")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    centers = rng.normal(0.0, 1.6, (4, 8))  # close enough that the classes overlap a little
    train_set = make_data(4096, rng, centers)
    test_set = make_data(1024, np.random.default_rng(1), centers)
    sizes = [8, 64, 64, 4]
    check_against_numpy(MLP(sizes), train_set[0][:32], train_set[1][:32])

    for as_function in (False, True):
        model = MLP(sizes)
        optimizer = (ember.optimizers.Adam(0.01) if args.optimizer == "adam"
                     else ember.optimizers.SGD(0.1, momentum=0.9))
        label = "as one @ember.function per step" if as_function else "eagerly"
        print(f"training {label}:")
        losses, per_step = train(model, optimizer, train_set, args.steps, args.batch, as_function, rng,
                                 max(1, args.steps // 6))
        acc = accuracy(model, *test_set)
        print(f"  test accuracy {acc:.3f}, {per_step * 1e3:.2f} ms per step")
        assert losses[-1] < losses[0], "the loss did not fall"
        if args.steps >= 200:
            assert acc >= 0.95, f"accuracy {acc:.3f} below 0.95"
    print("training works")


if __name__ == "__main__":
    main()

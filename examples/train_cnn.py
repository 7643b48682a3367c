"""Trains a small CNN on synthetic images with ember.GradientTape.

Each 16x16 image is noise plus a bright 4x4 square somewhere in one of its
four quadrants; the label is the quadrant. The network is conv 3x3 (8) ->
ReLU -> max pool 2 -> conv 3x3 (16) -> ReLU -> average pool 2 -> dense (4),
NHWC, trained with softmax cross-entropy and Adam, eagerly and then with
one `@ember.function` per step. One step's gradients are first checked
against a hand-written NumPy backward pass of the same network.

Usage:  python examples/train_cnn.py [--steps N] [--batch B]
"""
import argparse
import time

import numpy as np

import ember

SIZE, CLASSES = 16, 4


def make_data(n, rng):
    images = rng.normal(0.0, 0.6, (n, SIZE, SIZE, 1))
    labels = rng.integers(0, CLASSES, n)
    half = SIZE // 2
    for i, label in enumerate(labels):
        top = (label // 2) * half + rng.integers(0, half - 4 + 1)
        left = (label % 2) * half + rng.integers(0, half - 4 + 1)
        images[i, top:top + 4, left:left + 4, 0] += 0.8
    return images.astype(np.float32), labels.astype(np.int32)


class CNN:
    def __init__(self, seed=0):
        he = ember.initializers.HeNormal(seed=seed)
        glorot = ember.initializers.GlorotUniform(seed=seed + 1)
        self.w1 = ember.Variable(he((3, 3, 1, 8)), name="w1")
        self.b1 = ember.Variable(np.zeros(8, np.float32), name="b1")
        self.w2 = ember.Variable(he((3, 3, 8, 16)), name="w2")
        self.b2 = ember.Variable(np.zeros(16, np.float32), name="b2")
        self.w3 = ember.Variable(glorot((4 * 4 * 16, CLASSES)), name="w3")
        self.b3 = ember.Variable(np.zeros(CLASSES, np.float32), name="b3")

    @property
    def variables(self):
        return [self.w1, self.b1, self.w2, self.b2, self.w3, self.b3]

    def __call__(self, x):
        x = ember.nn.relu(ember.nn.bias_add(ember.nn.conv2d(x, self.w1, 1, "SAME"), self.b1))
        x = ember.nn.max_pool2d(x, 2, 2, "VALID")
        x = ember.nn.relu(ember.nn.bias_add(ember.nn.conv2d(x, self.w2, 1, "SAME"), self.b2))
        x = ember.nn.avg_pool2d(x, 2, 2, "VALID")
        x = ember.reshape(x, [-1, 4 * 4 * 16])
        return ember.matmul(x, self.w3) + self.b3


def loss_fn(model, x, y):
    logits = model(x)
    return ember.reduce_mean(ember.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


# --- The same network's backward pass in NumPy ------------------------------------


def _cols(x):
    """3x3 SAME patches of NHWC x: [n, h, w, 9 * c], ordered (ky, kx, c) like HWIO filters."""
    n, h, w, c = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    return np.concatenate([xp[:, i:i + h, j:j + w, :] for i in range(3) for j in range(3)], axis=-1)


def _conv(x, w, b):
    return _cols(x) @ w.reshape(-1, w.shape[-1]) + b


def _conv_backward(x, w, dy):
    n, h, wd, c = x.shape
    cols = _cols(x)
    dw = (cols.reshape(-1, cols.shape[-1]).T @ dy.reshape(-1, dy.shape[-1])).reshape(w.shape)
    db = dy.sum(axis=(0, 1, 2))
    dcols = dy @ w.reshape(-1, w.shape[-1]).T
    dxp = np.zeros((n, h + 2, wd + 2, c))
    for k, (i, j) in enumerate((i, j) for i in range(3) for j in range(3)):
        dxp[:, i:i + h, j:j + wd, :] += dcols[..., k * c:(k + 1) * c]
    return dxp[:, 1:-1, 1:-1, :], dw, db


def _windows(x):
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // 2, w // 2, 4, c)


def _unwindows(win, shape):
    n, h, w, c = shape
    return win.reshape(n, h // 2, w // 2, 2, 2, c).transpose(0, 1, 3, 2, 4, 5).reshape(shape)


def numpy_gradients(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    z1 = _conv(x, w1, b1)
    a1 = np.maximum(z1, 0)
    win = _windows(a1)
    first = win.argmax(axis=3)  # the first maximum of each window, as max_pool2d_grad routes
    p1 = win.max(axis=3)
    z2 = _conv(p1, w2, b2)
    a2 = np.maximum(z2, 0)
    p2 = _windows(a2).mean(axis=3)
    flat = p2.reshape(len(x), -1)
    logits = flat @ w3 + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    n = len(x)
    loss = -np.log(probs[np.arange(n), y]).mean()
    d = probs
    d[np.arange(n), y] -= 1
    d /= n
    gw3, gb3 = flat.T @ d, d.sum(axis=0)
    dp2 = (d @ w3.T).reshape(p2.shape)
    da2 = _unwindows(np.repeat(dp2[:, :, :, None, :] / 4.0, 4, axis=3), a2.shape)
    dz2 = da2 * (z2 > 0)
    dp1, gw2, gb2 = _conv_backward(p1, w2, dz2)
    dwin = np.zeros_like(win)
    np.put_along_axis(dwin, first[:, :, :, None, :], dp1[:, :, :, None, :], axis=3)
    dz1 = _unwindows(dwin, a1.shape) * (z1 > 0)
    _, gw1, gb1 = _conv_backward(x, w1, dz1)
    return loss, [gw1, gb1, gw2, gb2, gw3, gb3]


def check_against_numpy(model, x, y):
    with ember.GradientTape() as tape:
        loss = loss_fn(model, ember.constant(x), ember.constant(y))
    grads = tape.gradient(loss, model.variables)
    params = [v.numpy().astype(np.float64) for v in model.variables]
    want_loss, want = numpy_gradients(params, x.astype(np.float64), y)
    np.testing.assert_allclose(float(loss), want_loss, rtol=1e-5)
    for got, w in zip(grads, want):
        np.testing.assert_allclose(got.numpy(), w, rtol=1e-4, atol=1e-5)
    print("one step's gradients match NumPy")


def accuracy(model, x, y):
    predicted = ember.argmax(model(ember.constant(x)), axis=1).numpy()
    return float((predicted == y).mean())


def train(model, data, steps, batch, as_function, rng, log_every):
    optimizer = ember.optimizers.Adam(0.01)
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
    return losses, (time.perf_counter() - start) / steps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    train_set = make_data(2048, rng)
    test_set = make_data(512, np.random.default_rng(1))
    check_against_numpy(CNN(), train_set[0][:8], train_set[1][:8])
    for as_function in (False, True):
        model = CNN()
        print(f"training {'as one @ember.function per step' if as_function else 'eagerly'}:")
        losses, per_step = train(model, train_set, args.steps, args.batch, as_function, rng,
                                 max(1, args.steps // 5))
        acc = accuracy(model, *test_set)
        print(f"  test accuracy {acc:.3f}, {per_step * 1e3:.2f} ms per step")
        assert losses[-1] < losses[0], "the loss did not fall"
        if args.steps >= 100:
            assert acc >= 0.9, f"accuracy {acc:.3f} below 0.9"
    print("training works")


if __name__ == "__main__":
    main()

"""The MLP 784-512-512-10 (ReLU between layers), returning logits, and one
SGD training step on it."""
import functools

import numpy as np

from benchmarks.suite.frameworks import tree_map

IMAGE_INPUT = False
SIZES = [784, 512, 512, 10]


def init(rng):
    return {"layers": [{"w": (rng.standard_normal((m, n)) * np.sqrt(2.0 / m)).astype(np.float32),
                        "b": (0.01 * rng.standard_normal(n)).astype(np.float32)}
                       for m, n in zip(SIZES[:-1], SIZES[1:])]}


def example_input(rng, batch=1):
    return rng.standard_normal((batch, SIZES[0])).astype(np.float32)


def forward(F, p, x):
    layers = p["layers"]
    for i, layer in enumerate(layers):
        x = F.dense(x, layer["w"], layer["b"])
        if i < len(layers) - 1:
            x = F.relu(x)
    return x


def example_target(rng, batch=1):
    """Regression targets for loss(), negated: every framework has add, not all a subtract."""
    return -rng.standard_normal((batch, SIZES[-1])).astype(np.float32)


def loss(F, p, x, neg_target):
    """Half the squared error of the logits, averaged over the batch."""
    d = F.add(forward(F, p, x), neg_target)
    return F.multiply(F.reduce_sum(F.multiply(d, d)), 0.5 / x.shape[0])


def train_step(F, p, x, neg_target, lr=1e-3):
    """Forward, loss, gradients, SGD update: returns (loss, new weights)."""
    if hasattr(F, "value_and_grad"):
        value, grads = F.value_and_grad(functools.partial(loss, F))(p, x, neg_target)
    else:
        value, grads = _numpy_loss_and_grad(p, x, neg_target)
    return value, tree_map(lambda w, g: F.add(w, F.multiply(g, -lr)), p, grads)


def _numpy_loss_and_grad(p, x, neg_target):
    """loss() and its gradients by hand, for NumPy, which has no autodiff."""
    layers = p["layers"]
    inputs = [x]  # each layer's input: x, then the ReLU outputs
    for layer in layers[:-1]:
        inputs.append(np.maximum(inputs[-1] @ layer["w"] + layer["b"], 0))
    d = inputs[-1] @ layers[-1]["w"] + layers[-1]["b"] + neg_target
    batch = x.shape[0]
    value = np.float32(0.5 / batch) * np.sum(d * d)
    g = d * np.float32(1.0 / batch)  # d loss / d logits
    grads = [None] * len(layers)
    for i in reversed(range(len(layers))):
        grads[i] = {"w": inputs[i].T @ g, "b": g.sum(axis=0)}
        if i:
            g = (g @ layers[i]["w"].T) * (inputs[i] > 0)
    return value, {"layers": grads}

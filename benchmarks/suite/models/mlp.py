"""The MLP 784-512-512-10 (ReLU between layers), returning logits."""
import numpy as np

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

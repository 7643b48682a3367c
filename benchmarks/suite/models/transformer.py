"""One Transformer encoder block (post-norm as in examples/transformer.py):
multi-head self-attention, layer norm, an exact-GELU MLP, layer norm."""
import numpy as np

IMAGE_INPUT = False
DIM, HEADS, HIDDEN = 256, 8, 1024


def init(rng):
    def dense(m, n):
        return {"w": (rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
                "b": (0.01 * rng.standard_normal(n)).astype(np.float32)}

    def norm():
        return {"gamma": (1 + 0.1 * rng.standard_normal(DIM)).astype(np.float32),
                "beta": (0.1 * rng.standard_normal(DIM)).astype(np.float32)}

    return {"q": dense(DIM, DIM), "k": dense(DIM, DIM), "v": dense(DIM, DIM), "o": dense(DIM, DIM),
            "ff1": dense(DIM, HIDDEN), "ff2": dense(HIDDEN, DIM), "ln1": norm(), "ln2": norm()}


def example_input(rng, batch=1, seq=128):
    return rng.standard_normal((batch, seq, DIM)).astype(np.float32)


def forward(F, p, x):
    def dense(h, name):
        return F.dense(h, p[name]["w"], p[name]["b"])

    attended = F.attention(dense(x, "q"), dense(x, "k"), dense(x, "v"), HEADS)
    x = F.layer_norm(F.add(x, dense(attended, "o")), p["ln1"]["gamma"], p["ln1"]["beta"])
    ff = dense(F.gelu(dense(x, "ff1")), "ff2")
    return F.layer_norm(F.add(x, ff), p["ln2"]["gamma"], p["ln2"]["beta"])

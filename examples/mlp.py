"""A 3-layer MLP forward pass, eagerly in Ember, checked against NumPy.

    python examples/mlp.py [--batch 64]
"""

import argparse
import time

import numpy as np

import ember


def init_params(rng, sizes):
    """He-initialised (weight, bias) pairs as NumPy arrays."""
    return [(rng.standard_normal((m, n)).astype(np.float32) * np.sqrt(2.0 / m),
             rng.standard_normal(n).astype(np.float32) * 0.01)
            for m, n in zip(sizes[:-1], sizes[1:])]


def mlp_ember(x, params):
    for i, (w, b) in enumerate(params):
        x = ember.nn.bias_add(ember.matmul(x, w), b)
        if i < len(params) - 1:
            x = ember.nn.relu(x)
    return ember.nn.softmax(x)


def mlp_numpy(x, params):
    for i, (w, b) in enumerate(params):
        x = x @ w + b
        if i < len(params) - 1:
            x = np.maximum(x, 0)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def timed(fn, repeats=20):
    fn()  # warm-up (kernel cache, allocator)
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    sizes = [784, 512, 256, 10]
    params_np = init_params(rng, sizes)
    params = [(ember.constant(w), ember.constant(b)) for w, b in params_np]
    x_np = rng.standard_normal((args.batch, sizes[0])).astype(np.float32)
    x = ember.constant(x_np)

    probs = mlp_ember(x, params).numpy()
    expected = mlp_numpy(x_np, params_np)
    np.testing.assert_allclose(probs, expected, rtol=1e-4, atol=1e-6)

    t_ember = timed(lambda: mlp_ember(x, params).numpy())
    t_numpy = timed(lambda: mlp_numpy(x_np, params_np))
    print(f"MLP {sizes}, batch {args.batch}: output {probs.shape}, matches NumPy")
    print(f"  ember {t_ember * 1e3:.3f} ms   numpy {t_numpy * 1e3:.3f} ms")
    return probs


if __name__ == "__main__":
    main()

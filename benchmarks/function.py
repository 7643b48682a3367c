"""@ember.function overheads next to eager on the same run (docs/functions.md).

Reports, best of --repeat runs:
  - call overhead of a traced 1-op function vs the same op called eagerly;
  - per-node executor overhead on a chain of --chain tiny adds, vs eager;
  - the MLP forward pass (examples/mlp.py sizes) as a function vs eagerly.
Times include waiting for the result (.numpy()), so async queuing is counted.
"""

import argparse
import time

import numpy as np

import ember


def best_time(fn, number, repeat):
    fn()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def report(name, eager, graph):
    print(f"{name:<42} eager {eager * 1e6:10.2f} us   function {graph * 1e6:10.2f} us   "
          f"eager/function {eager / graph:5.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--chain", type=int, default=1000)
    args = parser.parse_args()

    x = ember.constant(np.ones((1,), np.float32))
    one_op = ember.function(lambda t: t + t)
    report("1-op function (add, 1 element)",
           best_time(lambda: (x + x).numpy(), 2000, args.repeat),
           best_time(lambda: one_op(x).numpy(), 2000, args.repeat))

    def chain(t):
        for _ in range(args.chain):
            t = t + 1.0
        return t

    chain_fn = ember.function(chain)
    eager = best_time(lambda: chain(x).numpy(), 5, args.repeat)
    graph = best_time(lambda: chain_fn(x).numpy(), 5, args.repeat)
    report(f"chain of {args.chain} adds (1 element)", eager, graph)
    print(f"{'':<42} per node: eager {eager / args.chain * 1e9:8.0f} ns   "
          f"function {graph / args.chain * 1e9:8.0f} ns")

    rng = np.random.default_rng(0)
    sizes = [784, 512, 256, 10]
    weights = [ember.constant(rng.standard_normal((a, b)).astype(np.float32) * 0.05) for a, b in zip(sizes, sizes[1:])]
    biases = [ember.constant(np.zeros(b, np.float32)) for b in sizes[1:]]

    def mlp(inputs):
        h = inputs
        for i, (w, b) in enumerate(zip(weights, biases)):
            h = ember.nn.bias_add(ember.matmul(h, w), b)
            if i < len(weights) - 1:
                h = ember.nn.relu(h)
        return ember.nn.softmax(h)

    batch = ember.constant(rng.standard_normal((64, 784)).astype(np.float32))
    mlp_fn = ember.function(mlp)
    np.testing.assert_allclose(mlp_fn(batch).numpy(), mlp(batch).numpy(), rtol=1e-5, atol=1e-6)
    report("MLP forward 784-512-256-10, batch 64",
           best_time(lambda: mlp(batch).numpy(), 50, args.repeat),
           best_time(lambda: mlp_fn(batch).numpy(), 50, args.repeat))


if __name__ == "__main__":
    main()

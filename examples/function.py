"""The same model run eagerly and as an @ember.function graph: same output, and the speed-up.

    python examples/function.py [--batch 8] [--hidden 32] [--steps 32]

The model is a small LSTM unrolled over a sequence: hundreds of ops on
tensors of a few hundred elements, so eager time goes to per-op dispatch.
As a function, the whole forward pass is one call that runs the traced,
simplified graph on the dataflow executor. A Variable counts the calls and
is updated inside the function, as it would be eagerly.
"""

import argparse
import time

import numpy as np

import ember


def init_params(rng, inputs, hidden):
    def dense(m, n):
        return ember.constant((rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32))
    return {"wx": dense(inputs, 4 * hidden), "wh": dense(hidden, 4 * hidden),
            "b": ember.constant(np.zeros(4 * hidden, np.float32)), "out": dense(hidden, 10)}


def lstm(sequence, params, calls):
    """sequence: [steps, batch, inputs] -> class probabilities [batch, 10]."""
    steps, batch, _ = sequence.shape
    hidden = params["wh"].shape[0]
    h = ember.zeros([batch, hidden])
    c = ember.zeros([batch, hidden])
    for t in range(steps):
        gates = ember.matmul(sequence[t], params["wx"]) + ember.matmul(h, params["wh"]) + params["b"]
        i, f, g, o = ember.split(gates, 4, axis=1)
        c = ember.sigmoid(f) * c + ember.sigmoid(i) * ember.tanh(g)
        h = ember.sigmoid(o) * ember.tanh(c)
    calls.assign_add(1)
    return ember.nn.softmax(ember.matmul(h, params["out"]))


def timed(fn, repeats):
    fn()  # warm-up: tracing and kernel cache
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        best = min(best, (time.perf_counter() - start) / repeats)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--inputs", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    params = init_params(rng, args.inputs, args.hidden)
    sequence = ember.constant(rng.standard_normal((args.steps, args.batch, args.inputs)).astype(np.float32))
    calls = ember.Variable(0, dtype=ember.int32)

    compiled = ember.function(lstm)
    eager_out = lstm(sequence, params, calls).numpy()
    graph_out = compiled(sequence, params, calls).numpy()
    np.testing.assert_allclose(graph_out, eager_out, rtol=1e-5, atol=1e-6)
    assert int(calls) == 2, "the function updates the variable like the eager code"

    concrete = compiled.get_concrete_function(sequence, params, calls)
    op_lines = [line for line in concrete.graph.pretty().splitlines() if "= arg" not in line]
    print(f"Traced {compiled.experimental_get_tracing_count()} time(s) into {len(op_lines) - 1} nodes, e.g.:")
    print("\n".join("  " + line for line in op_lines[:3]))
    t_eager = timed(lambda: lstm(sequence, params, calls).numpy(), args.repeats)
    t_graph = timed(lambda: compiled(sequence, params, calls).numpy(), args.repeats)
    print(f"LSTM, {args.steps} steps, batch {args.batch}, hidden {args.hidden}: function output matches eager")
    print(f"  eager {t_eager * 1e3:.3f} ms   function {t_graph * 1e3:.3f} ms   speed-up {t_eager / t_graph:.2f}x")
    return graph_out


if __name__ == "__main__":
    main()

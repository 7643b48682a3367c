"""One Transformer encoder block (multi-head attention, layer norm, GELU MLP)
run eagerly in Ember and checked against a NumPy implementation.

    python examples/transformer.py [--batch 2 --seq 128 --dim 256 --heads 8]
"""

import argparse
import time

import numpy as np

import ember


def init_params(rng, dim, hidden):
    def dense(m, n):
        return (rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32), np.zeros(n, np.float32)

    return {
        "q": dense(dim, dim), "k": dense(dim, dim), "v": dense(dim, dim), "o": dense(dim, dim),
        "ff1": dense(dim, hidden), "ff2": dense(hidden, dim),
        "ln1": (np.ones(dim, np.float32), np.zeros(dim, np.float32)),
        "ln2": (np.ones(dim, np.float32), np.zeros(dim, np.float32)),
    }


# --- Ember -------------------------------------------------------------------

def dense(x, wb):
    return ember.nn.bias_add(ember.matmul(x, wb[0]), wb[1])


def split_heads(x, batch, seq, heads):
    return ember.transpose(ember.reshape(x, [batch, seq, heads, -1]), [0, 2, 1, 3])


def encoder_block(x, p, heads, mask=None):
    batch, seq, dim = x.shape
    q, k, v = (split_heads(dense(x, p[n]), batch, seq, heads) for n in "qkv")
    attended = ember.nn.scaled_dot_product_attention(q, k, v, mask=mask)
    attended = ember.reshape(ember.transpose(attended, [0, 2, 1, 3]), [batch, seq, dim])
    x = ember.nn.layer_normalization(x + dense(attended, p["o"]), *p["ln1"], axis=-1, epsilon=1e-5)
    ff = dense(ember.nn.gelu(dense(x, p["ff1"])), p["ff2"])
    return ember.nn.layer_normalization(x + ff, *p["ln2"], axis=-1, epsilon=1e-5)


# --- NumPy reference ------------------------------------------------------------

def np_layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def np_erf(x):
    """erf to ~1e-7 (Abramowitz and Stegun 7.1.26), vectorised: NumPy has no erf."""
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return np.sign(x) * (1.0 - poly * np.exp(-x * x))


def np_gelu(x):
    return (0.5 * x * (1.0 + np_erf(x / np.sqrt(2.0)))).astype(x.dtype)


def np_encoder_block(x, p, heads, mask=None):
    batch, seq, dim = x.shape

    def heads_of(t):
        return t.reshape(batch, seq, heads, -1).transpose(0, 2, 1, 3)

    q, k, v = (heads_of(x @ p[n][0] + p[n][1]) for n in "qkv")
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    attended = (scores / scores.sum(-1, keepdims=True)) @ v
    attended = attended.transpose(0, 2, 1, 3).reshape(batch, seq, dim)
    x = np_layer_norm(x + attended @ p["o"][0] + p["o"][1], *p["ln1"])
    ff = np_gelu(x @ p["ff1"][0] + p["ff1"][1]) @ p["ff2"][0] + p["ff2"][1]
    return np_layer_norm(x + ff, *p["ln2"])


def timed(fn, repeats=5):
    fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--heads", type=int, default=8)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    p_np = init_params(rng, args.dim, 4 * args.dim)
    p = {name: tuple(ember.constant(a) for a in pair) for name, pair in p_np.items()}
    x_np = rng.standard_normal((args.batch, args.seq, args.dim)).astype(np.float32)
    causal = np.tril(np.ones((args.seq, args.seq), bool))  # decoder-style mask, for coverage
    x, mask = ember.constant(x_np), ember.constant(causal)

    out = encoder_block(x, p, args.heads, mask).numpy()
    expected = np_encoder_block(x_np, p_np, args.heads, causal)
    np.testing.assert_allclose(out, expected, rtol=2e-3, atol=2e-3)

    t_ember = timed(lambda: encoder_block(x, p, args.heads, mask).numpy())
    t_numpy = timed(lambda: np_encoder_block(x_np, p_np, args.heads, causal))
    print(f"Transformer encoder block [batch {args.batch}, seq {args.seq}, dim {args.dim}, "
          f"{args.heads} heads]: matches NumPy")
    print(f"  ember {t_ember * 1e3:.2f} ms   numpy {t_numpy * 1e3:.2f} ms")
    return out


if __name__ == "__main__":
    main()

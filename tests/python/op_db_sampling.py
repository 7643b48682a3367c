"""op_db records for stateless_random_shuffle and stateless_categorical (op_defs/random.yaml).

As in op_db_random.py, the references rebuild the kernels' use of the Philox stream in
NumPy, so they check the permutation and the samples exactly, not just statistically
(test_segments.py adds the statistical checks of ember.random.shuffle and categorical).
"""

import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample, make
from op_db_random import _join, _unit_double, philox_blocks


def _seed_list(seed):
    return [int(s) for s in np.asarray(seed).reshape(-1)]


def ref_shuffle(value, seed):
    """Rows sorted by the 64-bit key of block i (words 0 and 1), ties by index."""
    if value.ndim == 0 or value.shape[0] <= 1:
        return value.copy()
    words = philox_blocks(_seed_list(seed), np.arange(value.shape[0]))
    keys = _join(words[:, 0], words[:, 1])
    return value[np.argsort(keys, kind="stable")]


def ref_categorical(logits, num_samples, seed, dtype="int64"):
    batch, classes = logits.shape
    out = np.zeros((batch, num_samples), np.int64)
    for b in range(batch):
        if num_samples == 0:
            break
        row = logits[b].astype(np.float64)
        cdf = np.cumsum(np.exp(row - row.max()))
        blocks = np.arange(b * num_samples, (b + 1) * num_samples)
        words = philox_blocks(_seed_list(seed), blocks)
        targets = _unit_double(_join(words[:, 0], words[:, 1])) * cdf[-1]
        out[b] = np.searchsorted(cdf, targets, side="right")
    return out.astype(dtype)


def shuffle_samples(dtype, rng):
    yield Sample("1d", (make(rng, (10,), dtype), np.array([1, 2], np.int64)))
    yield Sample("2d_rows", (make(rng, (6, 3), dtype), np.array([-5, 9], np.int64)))
    yield Sample("int32_seed", (make(rng, (7, 2), dtype), np.array([2**31 - 1, 3], np.int32)))
    yield Sample("scalar", (make(rng, (), dtype), np.array([4, 4], np.int64)))
    yield Sample("empty", (make(rng, (0, 3), dtype), np.array([0, 1], np.int64)))
    yield Sample("large", (make(rng, (LARGE,), dtype), np.array([12345, 678], np.int64)))


def categorical_samples(dtype, rng):
    yield Sample("rows", (make(rng, (3, 5), dtype), 7, np.array([1, 2], np.int64)))
    with_neg_inf = make(rng, (2, 4), dtype)
    with_neg_inf[:, 1] = -np.inf
    yield Sample("neg_inf_never_drawn", (with_neg_inf, 50, np.array([3, 4], np.int64)))
    yield Sample("int32_out", (make(rng, (2, 3), dtype), 5, np.array([5, 6], np.int32)), {"dtype": "int32"})
    yield Sample("no_samples", (make(rng, (2, 3), dtype), 0, np.array([5, 6], np.int64)))
    yield Sample("empty", (make(rng, (0, 4), dtype), 3, np.array([7, 8], np.int64)))
    yield Sample("large", (make(rng, (4, 10), dtype), LARGE // 4, np.array([9, 10], np.int64)))


def _errors(op, *cases):
    def gen():
        for name, args, kwargs, exc, pattern in cases:
            yield ErrorInput(name, args, kwargs, exc, rf"^{op}: {pattern}")
    return gen


def entries(ember):
    _X = np.ones((3, 4), np.float32)
    return [
        OpInfo("stateless_random_shuffle", ember.raw_ops.stateless_random_shuffle, ref_shuffle, shuffle_samples,
               _errors("stateless_random_shuffle",
                       ("seed_shape", (_X, np.array([1, 2, 3], np.int64)), {}, ValueError, ".*seed"),
                       ("seed_float", (_X, np.array([1, 2], np.float32)), {}, TypeError, ".*"))),
        OpInfo("stateless_categorical", ember.random.stateless_categorical, ref_categorical, categorical_samples,
               _errors("stateless_categorical",
                       ("logits_1d", (np.ones(3, np.float32), 2, np.array([1, 2], np.int64)), {}, ValueError,
                        ".*matrix"),
                       ("negative_samples", (_X, -1, np.array([1, 2], np.int64)), {}, ValueError,
                        ".*num_samples"),
                       ("no_classes", (np.ones((2, 0), np.float32), 2, np.array([1, 2], np.int64)), {}, ValueError,
                        ".*at least one class"),
                       ("int_logits", (np.ones((2, 2), np.int32), 2, np.array([1, 2], np.int64)), {}, TypeError,
                        ".*"))),
    ]

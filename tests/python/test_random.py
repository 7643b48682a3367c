"""ember.random beyond the op database: Philox known answers, statistics,
determinism across modes and thread counts, Generator and global seeds, dropout."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import ember
import op_db  # noqa: F401 - first: building the database imports op_db_random
from op_db_random import philox_blocks

R = ember.random
N = 100_000  # statistics sample size


def _bits(t):
    return np.ascontiguousarray(t.numpy()).tobytes()


# --- The reference Philox itself -----------------------------------------------


def test_reference_philox_known_answers():
    # Random123 kat_vectors, philox4x32-10: (counter, key) -> output. In stream
    # form the block index is counter[0:2], seed[0] the key, seed[1] counter[2:4].
    cases = [
        ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
         (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
    ]
    for ctr, key, expected in cases:
        seed = (key[0] | key[1] << 32, ctr[2] | ctr[3] << 32)
        block = ctr[0] | ctr[1] << 32
        assert tuple(int(w) for w in philox_blocks(seed, [block])[0]) == expected


def test_python_layer_philox_matches_reference():
    from ember._random import _philox4x32
    words = philox_blocks((0x299F31D0A4093822, 0x0370734413198A2E), [0x85A308D3243F6A88])[0]
    assert _philox4x32((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0)) == \
        tuple(int(w) for w in words)


# --- Distributions ---------------------------------------------------------------


FLOATS = ["float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_statistics_and_bounds(dtype):
    x = R.stateless_uniform([N], [3, 4], minval=-1.0, maxval=3.0, dtype=dtype).numpy()
    assert x.dtype == np.dtype(dtype)
    x = x.astype(np.float64)  # statistics of half types in float64
    assert x.min() >= -1.0 and x.max() < 3.0
    assert abs(x.mean() - 1.0) < 0.02  # std of the mean: 4 / sqrt(12 N) = 0.0037
    assert abs(x.std() - 4.0 / np.sqrt(12.0)) < 0.01
    hist, _ = np.histogram(x, bins=10, range=(-1.0, 3.0))
    assert hist.min() > 0.9 * N / 10 and hist.max() < 1.1 * N / 10


@pytest.mark.parametrize("dtype", FLOATS)
def test_normal_statistics(dtype):
    x = R.stateless_normal([N], [5, 6], mean=2.0, stddev=3.0, dtype=dtype).numpy().astype(np.float64)
    assert abs(x.mean() - 2.0) < 0.05  # std of the mean: 3 / sqrt(N) = 0.0095
    assert abs(x.std() - 3.0) < 0.05
    assert abs(np.mean(np.abs(x - 2.0) < 3.0) - 0.6827) < 0.01


@pytest.mark.parametrize("dtype", FLOATS)
def test_truncated_normal_statistics_and_bounds(dtype):
    x = R.stateless_truncated_normal([N], [7, 8], mean=-1.0, stddev=2.0, dtype=dtype).numpy().astype(np.float64)
    assert x.min() >= -5.0 and x.max() <= 3.0  # within 2 stddev
    assert abs(x.mean() + 1.0) < 0.05
    # The standard normal truncated to [-2, 2] has std 0.8796.
    assert abs(x.std() - 2.0 * 0.8796) < 0.03


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_uniform_below_maxval_after_rounding(dtype):
    # float32 uniforms within half an ulp of 1 round up to 1 in float16 and
    # bfloat16 (about 1 in 2^12 and 2^9 draws); the kernel maps them to the
    # largest value below 1.
    x = R.stateless_uniform([N], [1, 5], dtype=dtype).numpy()
    below_one = np.nextafter(np.array(1, x.dtype), np.array(0, x.dtype))
    assert x.max() == below_one
    assert np.sum(x == below_one) > 10


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_uniform_int_range_and_frequencies(dtype):
    x = R.stateless_uniform([N], [9, 10], minval=-3, maxval=7, dtype=dtype).numpy()
    assert x.dtype == np.dtype(dtype)
    counts = np.bincount(x + 3, minlength=10)
    assert len(counts) == 10 and x.min() == -3 and x.max() == 6
    assert counts.min() > 0.9 * N / 10 and counts.max() < 1.1 * N / 10


def test_uniform_int64_wide_range():
    x = R.stateless_uniform([1000], [1, 1], minval=-(2**62), maxval=2**62, dtype=ember.int64).numpy()
    assert x.min() >= -(2**62) and x.max() < 2**62
    assert (x < 0).sum() > 400 and (x > 2**61).sum() > 150


def test_tensor_bounds_broadcast():
    lo = ember.constant([0.0, 10.0, 100.0])
    x = R.stateless_uniform([4, 3], [1, 2], minval=lo, maxval=lo + 1.0).numpy()
    assert x.shape == (4, 3)
    assert np.all(x >= [0.0, 10.0, 100.0]) and np.all(x < [1.0, 11.0, 101.0])
    z = R.stateless_normal([2, 3], [1, 2], mean=ember.constant([0.0, 100.0, 200.0]), stddev=0.0).numpy()
    np.testing.assert_array_equal(z, [[0.0, 100.0, 200.0]] * 2)


def test_seed_forms_agree():
    a = R.stateless_normal([10], [11, -12])
    for seed in ((11, -12), np.array([11, -12]), ember.constant([11, -12]),
                 ember.constant(np.array([11, -12], np.int64))):
        assert _bits(R.stateless_normal([10], seed)) == _bits(a)


def test_shape_forms_agree():
    a = R.stateless_uniform([2, 3], [1, 2])
    for shape in ((2, 3), np.array([2, 3]), ember.constant([2, 3])):
        assert _bits(R.stateless_uniform(shape, [1, 2])) == _bits(a)


# --- Determinism -----------------------------------------------------------------


_FLOAT_OPS = [R.stateless_uniform, R.stateless_normal, R.stateless_truncated_normal]


def _samples():
    big = [70_001]
    return [
        R.stateless_uniform(big, [1, 2]),
        R.stateless_uniform(big, [1, 2], dtype=ember.float64),
        R.stateless_uniform(big, [1, 2], minval=-5, maxval=5, dtype=ember.int32),
        R.stateless_uniform(big, [1, 2], minval=-5, maxval=5, dtype=ember.int64),
        R.stateless_normal(big, [1, 2]),
        R.stateless_normal(big, [1, 2], dtype=ember.float64),
        R.stateless_truncated_normal(big, [1, 2]),
        R.stateless_truncated_normal(big, [1, 2], dtype=ember.float64),
    ] + [f(big, [1, 2], dtype=d) for f in _FLOAT_OPS for d in (ember.float16, ember.bfloat16)]


_DIGEST_SCRIPT = """
import hashlib
import numpy as np
import ember
R = ember.random
big = [70_001]
outs = [
    R.stateless_uniform(big, [1, 2]),
    R.stateless_uniform(big, [1, 2], dtype=ember.float64),
    R.stateless_uniform(big, [1, 2], minval=-5, maxval=5, dtype=ember.int32),
    R.stateless_uniform(big, [1, 2], minval=-5, maxval=5, dtype=ember.int64),
    R.stateless_normal(big, [1, 2]),
    R.stateless_normal(big, [1, 2], dtype=ember.float64),
    R.stateless_truncated_normal(big, [1, 2]),
    R.stateless_truncated_normal(big, [1, 2], dtype=ember.float64),
] + [f(big, [1, 2], dtype=d) for f in (R.stateless_uniform, R.stateless_normal, R.stateless_truncated_normal)
     for d in (ember.float16, ember.bfloat16)]
print(" ".join(hashlib.sha256(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest() for t in outs))
"""


def _digests(tensors):
    import hashlib
    return [hashlib.sha256(_bits(t)).hexdigest() for t in tensors]


def test_same_seed_same_bits_in_sync_and_async(sync_mode):
    sync_bits = [_bits(t) for t in _samples()]
    ember.config.set_async(True)
    async_bits = [_bits(t) for t in _samples()]
    assert sync_bits == async_bits


def test_same_bits_with_one_intra_op_thread():
    env = dict(os.environ, EMBER_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", _DIGEST_SCRIPT], env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.split() == _digests(_samples())


def test_different_seeds_differ():
    a = R.stateless_uniform([1000], [1, 2]).numpy()
    for seed in ([2, 1], [1, 3], [0, 2], [-1, 2]):
        b = R.stateless_uniform([1000], seed).numpy()
        assert np.mean(a == b) < 0.01


def test_stateless_is_a_pure_function_of_the_index():
    # A longer output starts with the shorter one; the shape only reshapes.
    a = R.stateless_normal([10], [4, 4]).numpy()
    b = R.stateless_normal([2, 15], [4, 4]).numpy()
    np.testing.assert_array_equal(b.reshape(-1)[:10], a)


# --- Generator and global seeds ---------------------------------------------------


def test_generator_sequence_is_reproducible():
    g1, g2 = R.Generator.from_seed(42), R.Generator.from_seed(42)
    seq1 = [_bits(g1.uniform([5])), _bits(g1.normal([5])), _bits(g1.truncated_normal([5]))]
    seq2 = [_bits(g2.uniform([5])), _bits(g2.normal([5])), _bits(g2.truncated_normal([5]))]
    assert seq1 == seq2
    g3 = R.Generator.from_seed(42)
    first, second = g3.uniform([100]).numpy(), g3.uniform([100]).numpy()
    assert np.mean(first == second) < 0.01  # consecutive calls differ
    # Call 0 of every generator seeded 42 uses the same seed pair, whatever the shape.
    np.testing.assert_array_equal(first[:5], np.frombuffer(seq1[0], np.float32))


def test_generator_state_copy_and_reset():
    g = R.Generator.from_seed(7)
    g.normal([3])
    copy = R.Generator(copy_from=g)
    assert copy.state == g.state
    assert _bits(copy.uniform([4])) == _bits(g.uniform([4]))
    g.reset_from_seed(7)
    assert _bits(g.normal([3])) == _bits(R.Generator.from_seed(7).normal([3]))
    assert R.Generator.from_state(g.state).state == g.state


def test_generator_make_seeds_and_split():
    g = R.Generator.from_seed(1)
    seeds = g.make_seeds(3)
    assert seeds.shape == (2, 3) and seeds.dtype == ember.int64
    cols = seeds.numpy().T
    assert len({tuple(c) for c in cols}) == 3
    x = R.stateless_uniform([4], seeds.numpy()[:, 0])
    assert x.shape == (4,)
    children = R.Generator.from_seed(1).split(2)
    assert _bits(children[0].uniform([8])) != _bits(children[1].uniform([8]))


def test_generator_non_deterministic_and_errors():
    a, b = R.Generator.from_non_deterministic_state(), R.Generator.from_non_deterministic_state()
    assert _bits(a.uniform([16])) != _bits(b.uniform([16]))
    with pytest.raises(TypeError):
        R.Generator.from_seed(1.5)
    with pytest.raises(ValueError):
        R.Generator.from_seed(1, alg="threefry")
    with pytest.raises(ValueError):
        R.Generator()


def test_generator_is_thread_safe():
    g = R.Generator.from_seed(3)
    seeds, lock = [], threading.Lock()

    def work():
        local = [tuple(g._next_seeds()[0]) for _ in range(500)]
        with lock:
            seeds.extend(local)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seeds)) == 2000
    assert g.state[0] == 2000
    # The same 2000 seeds as a single thread would draw, in some order.
    single = R.Generator.from_seed(3)
    assert set(seeds) == {tuple(single._next_seeds()[0]) for _ in range(2000)}


def test_set_seed_restarts_global_sequence():
    try:
        R.set_seed(123)
        a = [_bits(R.uniform([6])), _bits(R.normal([6])), _bits(R.truncated_normal([6])),
             _bits(R.uniform([6], seed=5)), _bits(R.uniform([6], seed=5))]
        R.set_seed(123)
        b = [_bits(R.uniform([6])), _bits(R.normal([6])), _bits(R.truncated_normal([6])),
             _bits(R.uniform([6], seed=5)), _bits(R.uniform([6], seed=5))]
        assert a == b
        assert a[3] != a[4]  # repeated op seed: the call count moves on, as in TF eager
        R.set_seed(124)
        assert _bits(R.uniform([6])) != a[0]
        assert _bits(R.uniform([6], seed=5)) != a[3]
    finally:
        R.set_seed(None)


def test_stateful_int_uniform_and_errors():
    x = R.uniform([1000], minval=5, maxval=9, dtype=ember.int64).numpy()
    assert x.min() >= 5 and x.max() < 9
    with pytest.raises(ValueError, match="^stateless_random_uniform_int: .*maxval"):
        R.uniform([3], dtype=ember.int32)
    with pytest.raises(TypeError, match="^uniform: .*seed"):
        R.uniform([3], seed="x")


# --- Dropout ----------------------------------------------------------------------


def test_dropout_scaling_and_rate():
    x = ember.ones([N])
    y = R.dropout(x, rate=0.25, seed=1).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1.0 / 0.75, rtol=1e-6)
    assert abs(kept.mean() - 0.75) < 0.01
    assert abs(y.mean() - 1.0) < 0.02  # expected value preserved


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_dropout_keeps_half_and_double_dtypes(dtype):
    x = ember.constant(np.ones(N, dtype))
    y = R.dropout(x, rate=0.25, seed=2)
    assert y.dtype == x.dtype
    y = y.numpy().astype(np.float64)
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1.0 / 0.75, rtol=1e-2)  # the scale is rounded to dtype
    assert abs(kept.mean() - 0.75) < 0.01


def test_dropout_rate_zero_is_identity_and_keeps_dtype():
    x = ember.constant(np.arange(12, dtype=np.float64).reshape(3, 4))
    y = R.dropout(x, 0.0)
    assert y.dtype == ember.float64
    np.testing.assert_array_equal(y.numpy(), x.numpy())


def test_dropout_noise_shape_drops_whole_rows():
    x = ember.ones([200, 8])
    y = R.dropout(x, 0.5, noise_shape=[200, 1], seed=3).numpy()
    assert all(len(set(row)) == 1 for row in y)
    assert 0 < (y[:, 0] == 0).sum() < 200
    y2 = R.dropout(x, 0.5, noise_shape=[None, 1], seed=3).numpy()
    assert y2.shape == (200, 8)


def test_stateless_dropout_is_deterministic():
    x = ember.constant(np.linspace(1.0, 2.0, 500, dtype=np.float32))
    a = R.stateless_dropout(x, 0.3, seed=[1, 2])
    b = R.stateless_dropout(x, 0.3, seed=(1, 2))
    assert _bits(a) == _bits(b)
    c = R.stateless_dropout(x, 0.3, seed=[1, 3])
    assert _bits(a) != _bits(c)


@pytest.mark.parametrize("rate", [-0.1, 1.0, 1.5])
def test_dropout_rate_outside_unit_interval_is_value_error(rate):
    with pytest.raises(ValueError, match="^dropout: rate"):
        R.dropout(ember.ones([3]), rate)


def test_dropout_errors():
    with pytest.raises(ValueError, match="^dropout: x must be a floating point"):
        R.dropout(ember.constant([1, 2, 3]), 0.5)
    with pytest.raises(ValueError, match="^dropout: noise_shape"):
        R.dropout(ember.ones([3, 4]), 0.5, noise_shape=[3, 5])
    with pytest.raises(TypeError, match="^dropout: rate"):
        R.dropout(ember.ones([3]), "half")
    with pytest.raises(ValueError, match="^stateless_dropout: seed"):
        R.stateless_dropout(ember.ones([3]), 0.5, seed=[1])


# --- The seed is an input: one cached kernel for every seed -------------------------


def test_generator_calls_reuse_one_cached_kernel(mode):
    # With the seed as an attr every call was a kernel-cache miss; as an input,
    # only the first call per (op, dtypes, attrs) builds a kernel.
    g = R.Generator.from_seed(2024)
    g.uniform([8])
    g.normal([8], dtype=ember.float64)
    g.uniform([8], minval=0, maxval=10, dtype=ember.int64)
    before = ember.config.kernel_cache_stats()
    for _ in range(100):
        g.uniform([8])
        g.normal([8], dtype=ember.float64)
        g.uniform([8], minval=0, maxval=10, dtype=ember.int64)
    after = ember.config.kernel_cache_stats()
    assert after["misses"] - before["misses"] <= 4
    assert after["hits"] - before["hits"] >= 290


def test_seed_tensor_is_passed_through_and_matches_pair():
    seed64 = ember.constant(np.array([3, -9], np.int64))
    seed32 = ember.constant(np.array([3, -9], np.int32))
    a = R.stateless_uniform([5], [3, -9])
    assert _bits(R.stateless_uniform([5], seed64)) == _bits(a)
    assert _bits(R.stateless_uniform([5], seed32)) == _bits(a)
    # The raw op takes the seed tensor directly.
    assert _bits(R.stateless_random_uniform([5], seed64)) == _bits(a)


@pytest.mark.parametrize("op", ["stateless_random_uniform", "stateless_random_normal",
                                "stateless_truncated_normal"])
def test_raw_op_checks_seed_and_shape_at_the_call(op):
    fn = getattr(R, op)
    with pytest.raises(ValueError, match=rf"^{op}: seed must have shape \[2\], got \[3\]"):
        fn([2], np.array([1, 2, 3], np.int64))
    with pytest.raises(ValueError, match=rf"^{op}: seed must have shape \[2\], got \[1, 2\]"):
        fn([2], np.array([[1, 2]], np.int64))
    with pytest.raises(ValueError, match=rf"^{op}: shape must have non-negative dimensions"):
        fn([2, -1], [1, 2])
    with pytest.raises(TypeError, match=rf"^{op}: .*float32"):
        fn([2], np.array([1.0, 2.0], np.float32))


def test_raw_uniform_int_checks_seed_at_the_call():
    op = "stateless_random_uniform_int"
    with pytest.raises(ValueError, match=rf"^{op}: seed must have shape \[2\], got \[\]"):
        R.stateless_random_uniform_int([2], np.int64(5), 0, 3, "int32")

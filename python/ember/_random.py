"""ember.random's implementation: stateless random ops, Generator, the global generator, dropout.

Every random value comes from the stateless ops of op_defs/random.yaml, whose
result is a pure function of (shape, seed pair, parameters): the same call
gives the same bits in sync and async mode and on any thread count. The
stateful API (``Generator``, ``set_seed``, ``uniform``, ``normal``, ...)
only decides which seed pair each call gets (Note [Generator seeds]).

Note [Generator seeds]: a Generator's state is a 64-bit key and a 64-bit
counter. Call number c (the counter before the call) gets the seed pair
Philox4x32-10(counter=(lo c, hi c, tag), key) — two 64-bit halves of one
Philox block. Philox is a bijection of the counter for a fixed key, so
calls of one generator never repeat a seed pair until the counter wraps,
and generators with different keys give unrelated pairs. The counter update
is the only shared state and happens under the generator's lock.
"""

import numbers
import os
import threading

from ember._checks import safe_repr
import numpy as np

from ember._checks import check_int
from ember._generated import ops as _ops
from ember._generated.random import *  # noqa: F401,F403
from ember._generated.random import __all__ as _OP_NAMES
from ember._creation import convert_to_tensor
from ember.dtypes import as_dtype, bfloat16, float16, float32, float64, int32, int64
from ember._context import current_trace
from ember._tensor import Tensor

_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1
_MAX_SEEDS = 1 << 24  # make_seeds/split build Python lists: bound them
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_INT_RANGES = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (_INT64_MIN, _INT64_MAX)}

# Counter tags (the counter's upper 64 bits) for the two seed derivations.
_GENERATOR_TAG = 0x9E3779B97F4A7C15
_OP_SEED_KEY_SALT = 0x5851F42D4C957F2D
# TensorFlow's default graph seed: used when an op seed is set but no global seed.
_DEFAULT_GLOBAL_SEED = 87654321


def _philox4x32(counter, key):
    """Philox4x32-10 on Python ints (the kernels' copy is csrc/kernels/cpu/philox.h)."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for r in range(10):
        if r:
            k0 = (k0 + 0x9E3779B9) & _MASK32
            k1 = (k1 + 0xBB67AE85) & _MASK32
        p0 = 0xD2511F53 * c0
        p1 = 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & _MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & _MASK32
    return c0, c1, c2, c3


def _signed64(u):
    return u - (1 << 64) if u >> 63 else u


def _derive_seed(key, counter, tag):
    """A seed pair (two int64) from 64-bit key, counter and tag (Note [Generator seeds])."""
    w = _philox4x32((counter & _MASK32, counter >> 32, tag & _MASK32, tag >> 32),
                    (key & _MASK32, key >> 32))
    return [_signed64(w[0] | w[1] << 32), _signed64(w[2] | w[3] << 32)]


# --- Argument normalization ---------------------------------------------------


def _is_int(v):
    if type(v) is int:  # the common case, without the ABC check
        return True
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def _seed_pair(seed, op):
    """The ops' seed input: an int64 array of shape [2] from a pair of ints or an
    integer array or tensor of shape [2], or an int32/int64 tensor of shape [2] itself.

    The seed is an input of the ops, not an attr (op_defs/random.yaml), so a
    new seed per call reuses the cached kernel; a seed tensor goes to the op
    as it is, without waiting for its value."""
    if (type(seed) in (list, tuple) and len(seed) == 2 and type(seed[0]) is int and type(seed[1]) is int
            and _INT64_MIN <= seed[0] <= _INT64_MAX and _INT64_MIN <= seed[1] <= _INT64_MAX):
        return np.array(seed, np.int64)  # int64: Python ints would bind int32
    if isinstance(seed, Tensor):
        if seed.dtype in (int32, int64) and tuple(seed.shape) == (2,):
            return seed
        seed = seed.numpy()
    if isinstance(seed, np.ndarray):
        if seed.dtype.kind not in "iu":
            raise TypeError(f"{op}: seed must have an integer dtype, got {seed.dtype}")
        if seed.shape != (2,):
            raise ValueError(f"{op}: seed must have shape [2], got {list(seed.shape)}")
        seed = seed.tolist()
    if not (isinstance(seed, (list, tuple)) and all(_is_int(s) for s in seed)):
        raise TypeError(f"{op}: seed must be a pair of ints or an integer tensor of shape [2], "
                        f"got {safe_repr(seed)}")
    if len(seed) != 2:
        raise ValueError(f"{op}: seed must have 2 elements, got {len(seed)}")
    pair = [int(s) for s in seed]
    if not all(_INT64_MIN <= s <= _INT64_MAX for s in pair):
        raise ValueError(f"{op}: seed elements must be within the int64 range, got {pair}")
    return np.array(pair, np.int64)


def _shape_list(shape):
    """A shape as a list for the ops' `shape` attr; anything odd is left for the op to reject."""
    if type(shape) is list and all(type(d) is int for d in shape):
        return shape
    if isinstance(shape, Tensor):
        shape = shape.numpy()
    if isinstance(shape, np.ndarray):
        shape = shape.tolist()
    if isinstance(shape, (list, tuple)):
        return [int(d) if _is_int(d) else d for d in shape]
    return shape


def _dtype(dtype, op):
    if dtype is float32:
        return dtype
    try:
        return as_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{op}: {e}") from None


def _scalar(value):
    """value as a Python float if it is a Python or NumPy real scalar, else None."""
    if type(value) in (float, int):
        return float(value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (numbers.Real, np.floating, np.integer)) and not isinstance(value, Tensor):
        return float(value)
    return None


def _as_tensor(value, dtype):
    if isinstance(value, Tensor):
        return value if value.dtype == dtype else _ops.cast(value, dtype)
    return convert_to_tensor(value, dtype=dtype)


def _int_bound(value, what, dtype, op):
    if isinstance(value, Tensor):
        value = value.numpy()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if not _is_int(value):
        raise TypeError(f"{op}: {what} must be an integer for dtype {dtype.name}, got {safe_repr(value)}")
    value = int(value)
    lo, hi = _INT_RANGES[dtype.name]
    if not lo <= value <= hi:
        raise ValueError(f"{op}: {what} = {value} is outside the range of {dtype.name}")
    return value


# --- Stateless API (tf.random.stateless_*) -------------------------------------


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=float32, name=None):
    """Deterministic uniform values in [minval, maxval) (``tf.random.stateless_uniform``).

    The result is a pure function of ``shape``, ``seed`` (a pair of ints or
    an integer tensor of shape [2]), the bounds and ``dtype``. Float dtypes
    default to [0, 1) and accept tensor bounds that broadcast with ``shape``;
    integer dtypes (int32, int64) need both ``minval`` and ``maxval`` as
    scalars, with minval < maxval.
    """
    del name
    dtype = _dtype(dtype, "stateless_random_uniform")
    if dtype in (int32, int64):
        op = "stateless_random_uniform_int"
        if minval is None or maxval is None:
            raise ValueError(f"{op}: minval and maxval must both be given for integer dtype "
                             f"{dtype.name}")
        lo = _int_bound(minval, "minval", dtype, op)
        hi = _int_bound(maxval, "maxval", dtype, op)
        if lo >= hi:
            raise ValueError(f"{op}: Need minval < maxval, got minval = {lo} and maxval = {hi}")
        return _ops.stateless_random_uniform_int(_shape_list(shape), _seed_pair(seed, op), lo, hi,
                                                 dtype)
    op = "stateless_random_uniform"
    pair = _seed_pair(seed, op)
    shape = _shape_list(shape)
    if maxval is None:
        maxval = 1
    lo, hi = _scalar(minval), _scalar(maxval)
    if lo is not None and hi is not None:
        return _ops.stateless_random_uniform(shape, pair, lo, hi, dtype)
    unit = _ops.stateless_random_uniform(shape, pair, 0.0, 1.0, dtype)
    lo_t, hi_t = _as_tensor(minval, dtype), _as_tensor(maxval, dtype)
    return _ops.add(_ops.multiply(unit, _ops.subtract(hi_t, lo_t)), lo_t)


def _normal_like(raw, op, shape, seed, mean, stddev, dtype):
    dtype = _dtype(dtype, op)
    pair = _seed_pair(seed, op)
    shape = _shape_list(shape)
    m, s = _scalar(mean), _scalar(stddev)
    if m is not None and s is not None:
        return raw(shape, pair, m, s, dtype)
    z = raw(shape, pair, 0.0, 1.0, dtype)
    return _ops.add(_ops.multiply(z, _as_tensor(stddev, dtype)), _as_tensor(mean, dtype))


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=float32, name=None):
    """Deterministic normal values (``tf.random.stateless_normal``); see stateless_uniform for seed."""
    del name
    return _normal_like(_ops.stateless_random_normal, "stateless_random_normal", shape, seed,
                        mean, stddev, dtype)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=float32, name=None):
    """Deterministic normal values re-drawn when more than 2 stddev from the mean
    (``tf.random.stateless_truncated_normal``)."""
    del name
    return _normal_like(_ops.stateless_truncated_normal, "stateless_truncated_normal", shape,
                        seed, mean, stddev, dtype)


# --- Generator (tf.random.Generator) --------------------------------------------


def _check_alg(alg):
    if alg not in (None, "philox", "PHILOX"):
        raise ValueError(f"Generator: unsupported algorithm {alg!r} (only 'philox')")


class Generator:
    """A random number generator whose every call gives fresh values (``tf.random.Generator``).

    The state is a 64-bit key and a 64-bit counter; each call takes the next
    counter value and derives a seed pair for a stateless op from it (Note
    [Generator seeds] in this module), so a generator made with the same seed
    replays the same sequence of results. Thread-safe.
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        _check_alg(alg)
        self._lock = threading.Lock()
        if copy_from is not None:
            if not isinstance(copy_from, Generator):
                raise TypeError(f"Generator: copy_from must be a Generator, got {type(copy_from).__name__}")
            counter, key = copy_from.state
        elif state is not None:
            if isinstance(state, (str, bytes)) or not hasattr(state, "__len__") or len(state) != 2:
                raise TypeError(f"Generator: state must be two ints (counter, key), got {safe_repr(state)}")
            counter, key = state
        else:
            raise ValueError("Generator: use Generator.from_seed, from_non_deterministic_state or "
                             "from_state, or pass copy_from or state")
        if not (_is_int(counter) and _is_int(key)):
            raise TypeError(f"Generator: state must be two ints (counter, key), got {safe_repr(state)}")
        self._counter = int(counter) & _MASK64
        self._key = int(key) & _MASK64

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose sequence is fixed by the integer ``seed``."""
        if not _is_int(seed):
            raise TypeError(f"Generator.from_seed: seed must be an int, got {safe_repr(seed)}")
        return cls(state=(0, int(seed)), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy source."""
        return cls(state=(0, int.from_bytes(os.urandom(8), "little")), alg=alg)

    @classmethod
    def from_state(cls, state, alg=None):
        """A generator with the given (counter, key) state, as returned by ``state``."""
        return cls(state=state, alg=alg)

    @property
    def state(self):
        """(counter, key): the state a copy would start from."""
        with self._lock:
            return self._counter, self._key

    def reset_from_seed(self, seed):
        """Restarts the sequence of ``Generator.from_seed(seed)``."""
        if not _is_int(seed):
            raise TypeError(f"Generator.reset_from_seed: seed must be an int, got {safe_repr(seed)}")
        with self._lock:
            self._counter, self._key = 0, int(seed) & _MASK64

    def _next_seeds(self, count=1):
        """Seed pairs for the next `count` calls; advances the counter."""
        with self._lock:
            start, key = self._counter, self._key
            self._counter = (start + count) & _MASK64
        return [_derive_seed(key, (start + i) & _MASK64, _GENERATOR_TAG) for i in range(count)]

    def _call_seed(self):
        """The seed pair of one call (Note [Generators in functions])."""
        return _call_seed(lambda: self._next_seeds()[0])

    def make_seeds(self, count=1):
        """An int64 tensor of shape [2, count]: seeds for stateless ops."""
        count = check_int(count, "Generator.make_seeds", "count", minimum=0, maximum=_MAX_SEEDS)
        pairs = self._next_seeds(count)
        return convert_to_tensor(np.array(pairs, np.int64).reshape(count, 2).T.copy())

    def split(self, count=1):
        """``count`` new generators with independent sequences; advances this one."""
        count = check_int(count, "Generator.split", "count", minimum=0, maximum=_MAX_SEEDS)
        return [Generator(state=(0, s0 & _MASK64)) for s0, _ in self._next_seeds(count)]

    def uniform(self, shape, minval=0, maxval=None, dtype=float32, name=None):
        """Uniform values in [minval, maxval); see ``stateless_uniform``."""
        return stateless_uniform(shape, self._call_seed(), minval, maxval, dtype, name)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=float32, name=None):
        """Normal values; see ``stateless_normal``."""
        return stateless_normal(shape, self._call_seed(), mean, stddev, dtype, name)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=float32, name=None):
        """Normal values within 2 stddev of the mean; see ``stateless_truncated_normal``."""
        return stateless_truncated_normal(shape, self._call_seed(), mean, stddev, dtype, name)

    def __repr__(self):
        counter, key = self.state
        return f"ember.random.Generator(state=({counter}, {key}))"


# --- The global generator and op seeds (tf.random.set_seed) -------------------

_global_lock = threading.Lock()
_global_generator = None
_global_seed = None
_op_seed_calls = {}  # op seed -> calls so far since the last set_seed


def get_global_generator():
    """The generator behind ``uniform``, ``normal``, ... when no op seed is given."""
    global _global_generator
    with _global_lock:
        if _global_generator is None:
            _global_generator = Generator.from_non_deterministic_state()
        return _global_generator


def set_global_generator(generator):
    """Replaces the global generator (``tf.random.set_global_generator``)."""
    global _global_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator: expected a Generator, got {type(generator).__name__}")
    with _global_lock:
        _global_generator = generator


def set_seed(seed):
    """Sets the global seed (``tf.random.set_seed``): the sequence of results of
    ``uniform``, ``normal``, ``truncated_normal`` and ``nn.dropout`` restarts,
    with and without op seeds. ``None`` goes back to non-deterministic seeding."""
    global _global_generator, _global_seed
    if seed is not None and not _is_int(seed):
        raise TypeError(f"set_seed: seed must be an int or None, got {safe_repr(seed)}")
    generator = (Generator.from_non_deterministic_state() if seed is None
                 else Generator.from_seed(int(seed)))
    with _global_lock:
        _global_seed = None if seed is None else int(seed)
        _global_generator = generator
        _op_seed_calls.clear()


# Note [Generators in functions]: a stateful random call traced into an
# @ember.function must draw new numbers on every call of the function, not
# once at trace time. Its seed pair therefore becomes a graph argument of the
# "variable" kind (Note [Variables in traces]) whose `_eager_value` draws the
# next pair when the function is called, so calls advance the generator in
# program order, as eager calls would.
class _CallTimeSeed:
    def __init__(self, draw):
        self._draw = draw  # () -> (int, int)

    @property
    def _eager_value(self):
        return convert_to_tensor(np.array(self._draw(), np.int64))


def _call_seed(draw):
    """draw() now, eagerly; inside a trace, a seed tensor drawn at each call."""
    trace = current_trace()
    if trace is None:
        return draw()
    return trace.read_variable(_CallTimeSeed(draw))


def _stateful_seed(seed, op):
    """The seed pair of one stateful call: from the global generator, or, with an
    op seed, from (global seed, op seed, how often that op seed was used)."""
    return _call_seed(lambda: _stateful_seed_now(seed, op))


def _stateful_seed_now(seed, op):
    if seed is None:
        return get_global_generator()._next_seeds()[0]
    if not _is_int(seed):
        raise TypeError(f"{op}: seed must be an int or None, got {safe_repr(seed)}")
    seed = int(seed)
    with _global_lock:
        calls = _op_seed_calls.get(seed, 0)
        _op_seed_calls[seed] = calls + 1
        global_seed = _DEFAULT_GLOBAL_SEED if _global_seed is None else _global_seed
    return _derive_seed((global_seed ^ _OP_SEED_KEY_SALT) & _MASK64, calls, seed & _MASK64)


# Counter tag of the seed pairs behind tf.data-style shuffles (ember.data).
_DATASET_SEED_TAG = 0xD1B54A32D192ED03


def _dataset_seed(seed, op):
    """The seed pair of a dataset op such as shuffle, fixed when the dataset is made.

    TensorFlow's rule (tf.random.set_seed): with an op seed, the pair depends
    only on (global seed, op seed), so two datasets given the same seed
    shuffle alike and a program run twice gives the same orders; without
    one, it is the global generator's next draw: a fixed sequence after
    set_seed, fresh entropy otherwise."""
    if seed is None:
        return get_global_generator()._next_seeds()[0]
    if not _is_int(seed):
        raise TypeError(f"{op}: seed must be an int or None, got {safe_repr(seed)}")
    with _global_lock:
        global_seed = _DEFAULT_GLOBAL_SEED if _global_seed is None else _global_seed
    return _derive_seed(global_seed & _MASK64, int(seed) & _MASK64, _DATASET_SEED_TAG)


def uniform(shape, minval=0, maxval=None, dtype=float32, seed=None, name=None):
    """Uniform values in [minval, maxval) from the global generator (``tf.random.uniform``)."""
    return stateless_uniform(shape, _stateful_seed(seed, "uniform"), minval, maxval, dtype, name)


def normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
    """Normal values from the global generator (``tf.random.normal``)."""
    return stateless_normal(shape, _stateful_seed(seed, "normal"), mean, stddev, dtype, name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
    """Truncated normal values from the global generator (``tf.random.truncated_normal``)."""
    return stateless_truncated_normal(shape, _stateful_seed(seed, "truncated_normal"), mean,
                                      stddev, dtype, name)


# --- Dropout (exported as ember.nn.dropout) ------------------------------------


def _check_rate(rate, op):
    if isinstance(rate, Tensor):
        rate = rate.numpy()
    value = _scalar(rate)
    if value is None:
        raise TypeError(f"{op}: rate must be a number in [0, 1), got {safe_repr(rate)}")
    if not 0 <= value < 1:
        raise ValueError(f"{op}: rate must be a scalar in the range [0, 1), got {value}")
    return value


def _noise_shape(noise_shape, x, op):
    if noise_shape is None:
        return list(x.shape)
    if isinstance(noise_shape, Tensor):
        noise_shape = noise_shape.numpy()
    if isinstance(noise_shape, np.ndarray):
        noise_shape = noise_shape.tolist()
    if not isinstance(noise_shape, (list, tuple)):
        raise TypeError(f"{op}: noise_shape must be a list of ints, got {safe_repr(noise_shape)}")
    dims = list(noise_shape)
    if len(dims) == len(x.shape):  # None entries take x's size, as in TensorFlow
        dims = [x.shape[i] if d is None else d for i, d in enumerate(dims)]
    if not all(_is_int(d) and d >= 0 for d in dims):
        raise TypeError(f"{op}: noise_shape must be a list of non-negative ints, got {safe_repr(noise_shape)}")
    dims = [int(d) for d in dims]
    try:
        ok = np.broadcast_shapes(tuple(dims), tuple(x.shape)) == tuple(x.shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{op}: noise_shape {dims} does not broadcast to x's shape {list(x.shape)}")
    return dims


def _dropout(x, rate, pair, noise_shape):
    keep_prob = 1.0 - rate
    unit = _ops.stateless_random_uniform(noise_shape, pair, 0.0, 1.0, x.dtype)
    keep = _ops.cast(_ops.greater_equal(unit, rate), x.dtype)
    return _ops.multiply(x, _ops.multiply(keep, 1.0 / keep_prob))


_FLOAT_DTYPES = (float16, bfloat16, float32, float64)


def _float_input(x, op):
    x = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if x.dtype not in _FLOAT_DTYPES:
        raise ValueError(f"{op}: x must be a floating point tensor, got dtype {x.dtype.name}")
    return x


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Sets elements of x to 0 with probability ``rate`` and scales the others by
    1 / (1 - rate), so the expected sum is unchanged (``tf.nn.dropout``).

    ``noise_shape`` (broadcastable to x's shape) shapes the keep/drop mask, e.g.
    [batch, 1] drops whole rows. ``seed`` is an op seed as in ``uniform``;
    without one, the global generator picks the mask. ``rate`` = 0 returns x.
    """
    del name
    x = _float_input(x, "dropout")
    rate = _check_rate(rate, "dropout")
    noise_shape = _noise_shape(noise_shape, x, "dropout")
    if rate == 0:
        return x
    return _dropout(x, rate, _seed_pair(_stateful_seed(seed, "dropout"), "dropout"), noise_shape)


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """Dropout with a mask that is a pure function of ``seed``, a pair of ints
    (``tf.nn.experimental.stateless_dropout``)."""
    del name
    _check_alg(rng_alg)
    x = _float_input(x, "stateless_dropout")
    rate = _check_rate(rate, "stateless_dropout")
    noise_shape = _noise_shape(noise_shape, x, "stateless_dropout")
    pair = _seed_pair(seed, "stateless_dropout")
    if rate == 0:
        return x
    return _dropout(x, rate, pair, noise_shape)


# --- Permutation and sampling (tf.random.shuffle, tf.random.categorical) ------------------


def shuffle(value, seed=None, name=None):
    """``value`` with its rows (dim 0) in a random order (``tf.random.shuffle``).

    ``seed`` is an op seed as in ``uniform``: with ``set_seed`` and a seed, the order is
    reproducible. The permutation comes from ``raw_ops.stateless_random_shuffle``.
    """
    del name
    value = value if isinstance(value, Tensor) else convert_to_tensor(value)
    return _ops.stateless_random_shuffle(value, _seed_pair(_stateful_seed(seed, "shuffle"), "shuffle"))


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``num_samples`` class indices per row drawn from softmax(logits[b]) (``tf.random.categorical``).

    logits is [batch_size, num_classes]; the result is [batch_size, num_samples] of ``dtype``
    (int64 by default, or int32). ``seed`` is an op seed as in ``uniform``; see
    ``stateless_categorical`` for how samples are drawn.
    """
    del name
    dtype = int64 if dtype is None else _dtype(dtype, "categorical")
    if not _is_int(num_samples):
        if isinstance(num_samples, Tensor) and num_samples.ndim == 0 and num_samples.dtype in (int32, int64):
            num_samples = int(num_samples)
        else:
            raise TypeError(f"categorical: num_samples must be an int, got {safe_repr(num_samples)}")
    pair = _seed_pair(_stateful_seed(seed, "categorical"), "categorical")
    return _ops.stateless_categorical(logits, int(num_samples), pair, dtype)


# stateless_truncated_normal is both an op and its wrapper here (the wrapper wins).
__all__ = sorted(set(_OP_NAMES) | {
    "Generator", "categorical", "get_global_generator", "normal", "shuffle", "set_global_generator", "set_seed",
    "stateless_normal", "stateless_truncated_normal", "stateless_uniform", "truncated_normal",
    "uniform",
})

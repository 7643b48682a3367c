"""op_db records for the stateless random ops (op_defs/random.yaml).

NumPy has no Philox, so the references here are an independent NumPy
implementation of Philox4x32-10 and of the kernels' element layout (Note
[Random streams] in csrc/kernels/common/philox.h): they check the C++ kernels
bit for bit (integers) or to rounding (floats), not just statistically.
"""

import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample

_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1
_U32 = np.uint64(32)
_TRUNCATED_BLOCKS_PER_GROUP = 256


def philox_blocks(seed, blocks):
    """Philox4x32-10 words, shape [len(blocks), 4] uint32, for the block indices of stream `seed`."""
    s0, s1 = (int(s) & _MASK64 for s in seed)
    b = np.asarray(blocks, dtype=np.uint64).reshape(-1)
    c0, c1 = b & np.uint64(_MASK32), b >> _U32
    c2 = np.full_like(b, s1 & _MASK32)
    c3 = np.full_like(b, s1 >> 32)
    k0, k1 = s0 & _MASK32, s0 >> 32
    m0, m1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for r in range(10):
        if r:
            k0 = (k0 + 0x9E3779B9) & _MASK32
            k1 = (k1 + 0xBB67AE85) & _MASK32
        p0, p1 = c0 * m0, c2 * m1  # 32 x 32 -> 64 bits: exact in uint64
        c0, c1, c2, c3 = ((p1 >> _U32) ^ c1 ^ np.uint64(k0), p1 & np.uint64(_MASK32),
                          (p0 >> _U32) ^ c3 ^ np.uint64(k1), p0 & np.uint64(_MASK32))
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


def _join(lo, hi):
    return lo.astype(np.uint64) | (hi.astype(np.uint64) << _U32)


def _unit_float(words):
    bits = (words.astype(np.uint32) >> np.uint32(9)) | np.uint32(0x3F800000)
    return bits.view(np.float32).astype(np.float64) - 1.0


def _unit_double(u64):
    bits = (u64 >> np.uint64(12)) | np.uint64(0x3FF0000000000000)
    return bits.view(np.float64) - 1.0


# float16 and bfloat16 draw exactly as float32 and round (Note [Half compute]).
_HALF = (np.dtype(np.float16), np.dtype("bfloat16"))
_ONE_WORD = (np.dtype(np.float32), np.dtype(np.int32)) + _HALF  # one Philox word per value


def _per_block(dtype):
    return 4 if np.dtype(dtype) in _ONE_WORD else 2


def _seed_list(seed):
    return [int(s) for s in np.asarray(seed).reshape(-1)]


def _units(words, dtype):
    """[blocks, 4] words -> [blocks, per_block] uniforms in [0, 1), as the kernels map them."""
    if _per_block(dtype) == 4:
        return _unit_float(words)
    return np.stack([_unit_double(_join(words[:, 0], words[:, 1])),
                     _unit_double(_join(words[:, 2], words[:, 3]))], axis=1)


def _normals(words, dtype):
    """Box-Muller over consecutive pairs of uniforms, in float64."""
    u = _units(words, dtype)
    out = np.empty_like(u)
    for j in range(0, u.shape[1], 2):
        r = np.sqrt(-2.0 * np.log(1.0 - u[:, j]))
        theta = 2.0 * np.pi * u[:, j + 1]
        out[:, j], out[:, j + 1] = r * np.cos(theta), r * np.sin(theta)
    return out


def _stream(shape, seed, dtype, fn):
    n = int(np.prod(shape, dtype=np.int64))
    per = _per_block(dtype)
    words = philox_blocks(_seed_list(seed), np.arange((n + per - 1) // per))
    return fn(words).reshape(-1)[:n].reshape(shape)


def _to(dtype, values):
    """values (float64) rounded to dtype; float16 and bfloat16 by way of float32, as the kernels do."""
    with np.errstate(over="ignore"):
        values = np.asarray(values)
        if np.dtype(dtype) in _HALF:
            values = values.astype(np.float32)
        return values.astype(dtype)


def ref_uniform(shape, seed, minval=0, maxval=None, dtype="float32"):
    dtype = np.dtype(dtype)
    lo, hi = _to(dtype, minval if minval is not None else 0), _to(dtype, 1 if maxval is None else maxval)
    u = _stream(shape, seed, dtype, lambda w: _units(w, dtype))
    out = _to(dtype, np.float64(lo) + (np.float64(hi) - np.float64(lo)) * u)
    if lo < hi:
        out[out >= hi] = np.nextafter(hi, lo)
    return out


def ref_uniform_int(shape, seed, minval=0, maxval=None, dtype="int32"):
    dtype = np.dtype(dtype)
    base = np.uint64(int(minval) & _MASK64)
    span = np.uint64((int(maxval) - int(minval)) & _MASK64)

    def values(words):
        if dtype == np.int32:
            r = words.astype(np.uint64)
        else:
            r = np.stack([_join(words[:, 0], words[:, 1]), _join(words[:, 2], words[:, 3])], axis=1)
        return (base + r % span).view(np.int64)  # wraps mod 2^64 like the kernel
    return _stream(shape, seed, dtype, values).astype(dtype)


def ref_normal(shape, seed, mean=0.0, stddev=1.0, dtype="float32"):
    z = _stream(shape, seed, dtype, lambda w: _normals(w, dtype))
    return _to(np.dtype(dtype), mean + stddev * z)


def ref_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype="float32"):
    """Note [Truncated normal streams]: group g draws from blocks g * 256 + k in
    order and keeps the normals with |z| < 2."""
    n = int(np.prod(shape, dtype=np.int64))
    per = _per_block(dtype)
    groups = (n + per - 1) // per
    out = np.full((groups, per), 0.0)
    filled = np.zeros(groups, np.int64)
    seed = _seed_list(seed)
    for k in range(_TRUNCATED_BLOCKS_PER_GROUP):
        active = np.nonzero(filled < per)[0]
        if active.size == 0:
            break
        blocks = active.astype(np.uint64) * np.uint64(_TRUNCATED_BLOCKS_PER_GROUP) + np.uint64(k)
        z = _normals(philox_blocks(seed, blocks), dtype)
        for j in range(per):
            ok = (np.abs(z[:, j]) < 2.0) & (filled[active] < per)
            rows = active[ok]
            out[rows, filled[rows]] = z[ok, j]
            filled[rows] += 1
    return _to(np.dtype(dtype), mean + stddev * out.reshape(-1)[:n].reshape(shape))


# --- Samples and error inputs ------------------------------------------------------


def _seed_samples(dtype, extra):
    yield Sample("2d", ([3, 5], [1, 2]), dict(extra, dtype=dtype))
    yield Sample("seed_tensor", ([6], np.array([7, -8], np.int64)), dict(extra, dtype=dtype))
    yield Sample("seed_int32_tensor", ([2, 3], np.array([2**31 - 1, 5], np.int32)), dict(extra, dtype=dtype))
    yield Sample("odd_length", ([7], [-(2**63), 2**63 - 1]), dict(extra, dtype=dtype))
    yield Sample("scalar", ([], [0, 0]), dict(extra, dtype=dtype))
    yield Sample("empty", ([0, 3], [3, 4]), dict(extra, dtype=dtype))
    yield Sample("large", ([LARGE], [12345, 67890]), dict(extra, dtype=dtype))


def uniform_samples(dtype, rng):
    del rng
    yield from _seed_samples(dtype, {})
    yield Sample("bounds", ([4, 5], [5, 6]), {"minval": -2.5, "maxval": 4.0, "dtype": dtype})
    yield Sample("tiny_range", ([50], [5, 7]), {"minval": 1.0, "maxval": 1.0000001, "dtype": dtype})
    yield Sample("equal_bounds", ([3], [5, 8]), {"minval": 2.0, "maxval": 2.0, "dtype": dtype})


def uniform_int_samples(dtype, rng):
    del rng
    yield from _seed_samples(dtype, {"minval": -3, "maxval": 10})
    yield Sample("one_value", ([5], [1, 1]), {"minval": 7, "maxval": 8, "dtype": dtype})
    lo, hi = (-(2**31), 2**31 - 1) if dtype == "int32" else (-(2**63), 2**63 - 1)
    yield Sample("full_range", ([40], [2, 2]), {"minval": lo, "maxval": hi, "dtype": dtype})


def normal_samples(dtype, rng):
    del rng
    yield from _seed_samples(dtype, {})
    yield Sample("mean_stddev", ([4, 5], [9, 10]), {"mean": 3.0, "stddev": 0.5, "dtype": dtype})
    yield Sample("zero_stddev", ([3], [9, 11]), {"mean": -1.0, "stddev": 0.0, "dtype": dtype})


def _common_errors(op, dtype_kwargs, bad_dtype):
    yield ErrorInput("seed_wrong_length", ([2], [1, 2, 3]), dtype_kwargs, ValueError, rf"^{op}: .*seed")
    yield ErrorInput("seed_not_ints", ([2], [1.5, 2]), dtype_kwargs, TypeError, rf"^{op}: .*seed")
    yield ErrorInput("seed_not_a_pair", ([2], 5), dtype_kwargs, TypeError, rf"^{op}: .*seed")
    yield ErrorInput("seed_tensor_shape", ([2], np.array([[1, 2]], np.int64)), dtype_kwargs, ValueError,
                     rf"^{op}: .*seed")
    yield ErrorInput("seed_float_tensor", ([2], np.array([1.0, 2.0], np.float32)), dtype_kwargs, TypeError,
                     rf"^{op}: .*seed")
    yield ErrorInput("seed_out_of_int64", ([2], [2**63, 0]), dtype_kwargs, ValueError, rf"^{op}: .*int64")
    yield ErrorInput("negative_dim", ([-1, 2], [1, 2]), dtype_kwargs, ValueError, rf"^{op}: .*non-negative")
    yield ErrorInput("shape_bad_type", (3.5, [1, 2]), dtype_kwargs, TypeError, rf"^{op}: .*shape")
    if bad_dtype is not None:
        yield ErrorInput("bad_dtype", ([2], [1, 2]), dict(dtype_kwargs, dtype=bad_dtype), TypeError,
                         rf"^{op}: .*dtype")


def uniform_errors():
    yield from _common_errors("stateless_random_uniform", {}, "bool")
    yield ErrorInput("unknown_dtype", ([2], [1, 2]), {"dtype": "complex128"}, TypeError,
                     r"^stateless_random_uniform: .*")


def uniform_int_errors():
    op = "stateless_random_uniform_int"
    yield from _common_errors(op, {"minval": 0, "maxval": 5, "dtype": "int32"}, None)
    yield ErrorInput("no_maxval", ([2], [1, 2]), {"dtype": "int32"}, ValueError, rf"^{op}: .*maxval")
    yield ErrorInput("empty_range", ([2], [1, 2]), {"minval": 4, "maxval": 4, "dtype": "int64"}, ValueError,
                     rf"^{op}: Need minval < maxval")
    yield ErrorInput("outside_int32", ([2], [1, 2]), {"minval": 0, "maxval": 2**31, "dtype": "int32"},
                     ValueError, rf"^{op}: .*int32")
    yield ErrorInput("float_bound", ([2], [1, 2]), {"minval": 0.5, "maxval": 3, "dtype": "int64"}, TypeError,
                     rf"^{op}: .*minval")


def normal_errors(op):
    def gen():
        yield from _common_errors(op, {}, "int32")
    return gen


def entries(ember):
    r = ember.random
    return [
        # The reference repeats the kernel's float64 -> float32 -> half rounding: equal bits.
        OpInfo("stateless_random_uniform", r.stateless_uniform, ref_uniform, uniform_samples, uniform_errors,
               tols={"float16": (0, 0), "bfloat16": (0, 0)}),
        OpInfo("stateless_random_uniform_int", r.stateless_uniform, ref_uniform_int, uniform_int_samples,
               uniform_int_errors),
        OpInfo("stateless_random_normal", r.stateless_normal, ref_normal, normal_samples,
               normal_errors("stateless_random_normal")),
        OpInfo("stateless_truncated_normal", r.stateless_truncated_normal, ref_truncated_normal,
               normal_samples, normal_errors("stateless_truncated_normal")),
    ]

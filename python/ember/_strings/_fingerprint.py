"""FarmHash's Fingerprint64 (farmhashna::Hash64), the hash behind tf.strings.to_hash_bucket_fast.

Written from the published algorithm; Python ints are masked to 64 bits
after each step that can overflow. Slow (pure Python), but exact, so bucket
numbers match TensorFlow's.
"""

import struct

import numpy as np

from ember import _C
from ember._checks import check_int
from ember._strings._shape_ops import as_strings

_MASK = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _u64(data, at):
    return struct.unpack_from("<Q", data, at)[0]


def _u32(data, at):
    return struct.unpack_from("<I", data, at)[0]


def _rotr(value, shift):
    return ((value >> shift) | (value << (64 - shift))) & _MASK


def _shift_mix(value):
    return value ^ (value >> 47)


def _mix16(u, v, mul):
    a = ((u ^ v) * mul) & _MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & _MASK
    b ^= b >> 47
    return (b * mul) & _MASK


def _short(data):
    n = len(data)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_u64(data, 0) + _K2) & _MASK
        b = _u64(data, n - 8)
        c = (_rotr(b, 37) * mul + a) & _MASK
        d = ((_rotr(a, 25) + b) * mul) & _MASK
        return _mix16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _mix16(n + (_u32(data, 0) << 3), _u32(data, n - 4), mul)
    if n > 0:
        y = data[0] + (data[n >> 1] << 8)
        z = n + (data[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _MASK) * _K2) & _MASK
    return _K2


def _medium(data):
    n = len(data)
    mul = _K2 + n * 2
    a = (_u64(data, 0) * _K1) & _MASK
    b = _u64(data, 8)
    c = (_u64(data, n - 8) * mul) & _MASK
    d = (_u64(data, n - 16) * _K2) & _MASK
    return _mix16((_rotr((a + b) & _MASK, 43) + _rotr(c, 30) + d) & _MASK,
                  (a + _rotr((b + _K2) & _MASK, 18) + c) & _MASK, mul)


def _long(data):
    n = len(data)
    mul = _K2 + n * 2
    a = (_u64(data, 0) * _K2) & _MASK
    b = _u64(data, 8)
    c = (_u64(data, n - 8) * mul) & _MASK
    d = (_u64(data, n - 16) * _K2) & _MASK
    y = (_rotr((a + b) & _MASK, 43) + _rotr(c, 30) + d) & _MASK
    z = _mix16(y, (a + _rotr((b + _K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_u64(data, 16) * mul) & _MASK
    f = _u64(data, 24)
    g = ((y + _u64(data, n - 32)) * mul) & _MASK
    h = ((z + _u64(data, n - 24)) * mul) & _MASK
    return _mix16((_rotr((e + f) & _MASK, 43) + _rotr(g, 30) + h) & _MASK,
                  (e + _rotr((f + a) & _MASK, 18) + g) & _MASK, mul)


def _weak32(data, at, a, b):
    """Two 64-bit words mixed from 32 bytes at `at` and seeds a, b."""
    w, x, y, z = struct.unpack_from("<4Q", data, at)
    a = (a + w) & _MASK
    b = _rotr((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rotr(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def _blocks_step(data, at, x, y, z, v, w, mul, last):
    x = (_rotr((x + y + v[0] + _u64(data, at + 8)) & _MASK, 37) * mul) & _MASK
    y = (_rotr((y + v[1] + _u64(data, at + 48)) & _MASK, 42) * mul) & _MASK
    x ^= (w[1] * 9) & _MASK if last else w[1]
    y = (y + (v[0] * 9 if last else v[0]) + _u64(data, at + 40)) & _MASK
    z = (_rotr((z + w[0]) & _MASK, 33) * mul) & _MASK
    v = _weak32(data, at, (v[1] * mul) & _MASK, (x + w[0]) & _MASK)
    w = _weak32(data, at + 32, (z + w[1]) & _MASK, (y + _u64(data, at + 16)) & _MASK)
    return z, y, x, v, w  # x and z trade places after each block


def fingerprint64(data):
    """Fingerprint64 of a bytes object, as an unsigned 64-bit int."""
    n = len(data)
    if n <= 16:
        return _short(data)
    if n <= 32:
        return _medium(data)
    if n <= 64:
        return _long(data)
    seed = 81
    y = (seed * _K1 + 113) & _MASK
    z = (_shift_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    v = w = (0, 0)
    x = (seed * _K2 + _u64(data, 0)) & _MASK
    end = ((n - 1) // 64) * 64
    for at in range(0, end, 64):
        x, y, z, v, w = _blocks_step(data, at, x, y, z, v, w, _K1, False)
    mul = _K1 + ((z & 0xFF) << 1)
    w = ((w[0] + ((n - 1) & 63)) & _MASK, w[1])
    v = ((v[0] + w[0]) & _MASK, v[1])
    w = ((w[0] + v[0]) & _MASK, w[1])
    x, y, z, v, w = _blocks_step(data, n - 64, x, y, z, v, w, mul, True)
    return _mix16((_mix16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _MASK,
                  (_mix16(v[1], w[1], mul) + x) & _MASK, mul)


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 - TensorFlow's name
    """Fingerprint64(string) % num_buckets for each string, as int64: the same buckets as
    TensorFlow's to_hash_bucket_fast."""
    del name
    num_buckets = check_int(num_buckets, "to_hash_bucket_fast", "num_buckets", minimum=1)
    tensor = as_strings(input, "to_hash_bucket_fast")
    out = np.array([fingerprint64(v) % num_buckets for v in tensor._array.flat], dtype=np.int64)
    return _C.convert_to_tensor(out.reshape(tensor._array.shape), None)

"""op_db entries for the Fourier transforms (op_defs/signal.yaml), checked against numpy.fft.

NumPy computes in float64 and is rounded to the op's dtype once. The kernels
compute in float32 (Bluestein's algorithm in float64, for lengths with a prime
factor above 64: prime97, prime_1009, large_prime), whose rounding error grows
with log2(n), so the tolerances scale with the transform length.
"""

import math

import numpy as np

from op_db import ErrorInput, OpInfo, Sample, make


def _tols(n, dtype="complex64"):
    """float32-compute tolerances for a length-n transform of values in [-3, 3]."""
    growth = max(1.0, math.log2(max(n, 1)))
    return {dtype: (2e-6 * growth, 2e-6 * growth * math.sqrt(max(n, 1)) * 3)}


def _fft_ref(numpy_fn):
    def ref(x):
        if x.size == 0:
            return np.zeros(x.shape, np.complex64)
        return numpy_fn(x.astype(np.complex128)).astype(np.complex64)
    return ref


def _rfft_ref(input_tensor, fft_length=None):
    n = input_tensor.shape[-1] if fft_length is None else fft_length[0]
    shape = input_tensor.shape[:-1] + (n // 2 + 1,)
    if n == 0 or input_tensor.size == 0:
        return np.zeros(shape, np.complex64)  # TensorFlow: an empty input gives zero terms
    return np.fft.rfft(input_tensor.astype(np.float64), n=n).astype(np.complex64)


def _irfft_ref(input_tensor, fft_length=None):
    n = 2 * (input_tensor.shape[-1] - 1) if fft_length is None else fft_length[0]
    shape = input_tensor.shape[:-1] + (n,)
    if n == 0 or input_tensor.size == 0:
        return np.zeros(shape, np.float32)
    return np.fft.irfft(input_tensor.astype(np.complex128), n=n).astype(np.float32)


# (sample name, input shape); the innermost dim is the transform length.
_COMPLEX_SHAPES = [
    ("len1", (4, 1)), ("len2", (3, 2)), ("prime7", (5, 7)), ("len6", (6,)), ("len12", (2, 12)),
    ("pow2_64", (3, 64)), ("prime97", (2, 97)), ("3d", (2, 3, 10)), ("odd_composite_45", (2, 45)),
    ("prime_1009", (1, 1009)), ("prime61", (2, 61)), ("empty", (0, 8)), ("empty_inner", (3, 0)),
    ("large", (700, 100)), ("large_prime", (1, 100003)),
]


def _complex_samples(dtype, rng):
    for name, shape in _COMPLEX_SHAPES:
        yield Sample(name, (make(rng, shape, dtype),), {}, _tols(shape[-1]))


def _rfft_samples(dtype, rng):
    for name, shape in _COMPLEX_SHAPES:
        yield Sample(name, (make(rng, shape, dtype),), {}, _tols(shape[-1]))
    yield Sample("odd_9", (make(rng, (3, 9), dtype),), {}, _tols(9))
    yield Sample("crop", (make(rng, (4, 10), dtype),), {"fft_length": [6]}, _tols(6))
    yield Sample("pad", (make(rng, (4, 5), dtype),), {"fft_length": [12]}, _tols(12))
    yield Sample("pad_odd", (make(rng, (2, 5), dtype),), {"fft_length": [9]}, _tols(9))
    yield Sample("crop_to_1", (make(rng, (2, 5), dtype),), {"fft_length": [1]}, _tols(1))
    yield Sample("zero_length", (make(rng, (2, 5), dtype),), {"fft_length": [0]})
    yield Sample("empty_inner_padded", (make(rng, (3, 0), dtype),), {"fft_length": [4]})


# (sample name, spectrum shape, fft_length or None); None takes 2 * (terms - 1).
_IRFFT_CASES = [
    ("even_default", (3, 5), None), ("pow2_default", (3, 33), None), ("one_term", (4, 1), None),
    ("len1", (3, 4), [1]), ("len2", (3, 2), [2]), ("odd_9", (3, 5), [9]), ("prime7", (5, 4), [7]),
    ("prime97", (2, 49), [97]), ("len6", (6, 4), None), ("crop_terms", (2, 10), [8]),
    ("pad_terms", (2, 3), [12]), ("pad_terms_odd", (2, 2), [11]), ("3d", (2, 3, 6), None),
    ("prime_1009", (1, 505), [1009]), ("prime61", (2, 31), [61]), ("empty", (0, 5), None),
    ("empty_inner", (3, 0), [6]), ("zero_length", (2, 3), [0]), ("large", (700, 101), None),
    ("large_prime", (1, 50002), [100003]),
]


def _irfft_samples(dtype, rng):
    for name, shape, fft_length in _IRFFT_CASES:
        n = 2 * (shape[-1] - 1) if fft_length is None else fft_length[0]
        kwargs = {} if fft_length is None else {"fft_length": fft_length}
        # The inverse divides by n: a spectrum of n-sized terms keeps outputs near 1.
        x = make(rng, shape, dtype)
        yield Sample(name, (x,), kwargs, _tols(n, "float32"))


def _complex_errors(op):
    def gen():
        yield ErrorInput("scalar", (np.complex64(1 + 2j),), {}, ValueError, rf"^{op}: .*rank")
        yield ErrorInput("real_input", (np.ones(4, np.float32),), {}, TypeError, rf"^{op}: .*float32")
    return gen


def _rfft_errors():
    x = np.ones((2, 4), np.float32)
    yield ErrorInput("scalar", (np.float32(1),), {}, ValueError, r"^rfft: .*rank")
    yield ErrorInput("two_lengths", (x,), {"fft_length": [4, 4]}, ValueError, r"^rfft: .*fft_length")
    yield ErrorInput("negative_length", (x,), {"fft_length": [-2]}, ValueError, r"^rfft: .*fft_length")
    yield ErrorInput("huge_length", (x,), {"fft_length": [2 ** 40]}, ValueError, r"^rfft: .*fft_length")
    yield ErrorInput("complex_input", (np.ones(4, np.complex64),), {}, TypeError, r"^rfft: .*complex64")
    yield ErrorInput("float64_input", (np.ones(4, np.float64),), {}, TypeError, r"^rfft: .*float64")


def _irfft_errors():
    x = np.ones((2, 4), np.complex64)
    yield ErrorInput("scalar", (np.complex64(1),), {}, ValueError, r"^irfft: .*rank")
    yield ErrorInput("no_terms", (np.ones((2, 0), np.complex64),), {}, ValueError, r"^irfft: .*frequency")
    yield ErrorInput("two_lengths", (x,), {"fft_length": [4, 4]}, ValueError, r"^irfft: .*fft_length")
    yield ErrorInput("negative_length", (x,), {"fft_length": [-1]}, ValueError, r"^irfft: .*fft_length")
    yield ErrorInput("huge_length", (x,), {"fft_length": [2 ** 40]}, ValueError, r"^irfft: .*fft_length")
    yield ErrorInput("real_input", (np.ones(4, np.float32),), {}, TypeError, r"^irfft: .*float32")


def entries(ember):
    signal = ember.signal
    return [
        OpInfo("fft", signal.fft, _fft_ref(np.fft.fft), _complex_samples, _complex_errors("fft")),
        OpInfo("ifft", signal.ifft, _fft_ref(np.fft.ifft), _complex_samples, _complex_errors("ifft")),
        OpInfo("rfft", signal.rfft, _rfft_ref, _rfft_samples, _rfft_errors),
        OpInfo("irfft", signal.irfft, _irfft_ref, _irfft_samples, _irfft_errors),
    ]

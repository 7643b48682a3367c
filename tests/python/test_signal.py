"""ember.signal beyond the op database: known values, the 2-D composites against
numpy.fft, and the gradients against vector-Jacobian products computed from
NumPy by central differences (TensorFlow's complex convention: the gradient of
a real loss L with respect to z is dL/dRe(z) + i dL/dIm(z))."""

import numpy as np
import pytest

import ember

signal = ember.signal


def _rand(rng, shape, dtype):
    if np.dtype(dtype).kind == "c":
        return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def test_known_values():
    np.testing.assert_allclose(signal.fft(np.array([1, 0, 0, 0], np.complex64)).numpy(), np.ones(4), atol=1e-7)
    got = signal.rfft(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    assert got.dtype == ember.complex64
    np.testing.assert_allclose(got.numpy(), [10, -2 + 2j, -2], atol=1e-6)
    back = signal.irfft(got)
    assert back.dtype == ember.float32
    np.testing.assert_allclose(back.numpy(), [1, 2, 3, 4], atol=1e-6)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 16, 97, 100])
def test_round_trips(n):
    rng = np.random.default_rng(n)
    x = _rand(rng, (3, n), np.complex64)
    np.testing.assert_allclose(signal.ifft(signal.fft(x)).numpy(), x, atol=1e-5)
    r = _rand(rng, (3, n), np.float32)
    np.testing.assert_allclose(signal.irfft(signal.rfft(r), fft_length=[n]).numpy(), r, atol=1e-5)


def test_irfft_ignores_imaginary_parts_of_the_real_terms():
    spectrum = np.array([1 + 5j, 2 - 1j, 3 + 7j], np.complex64)  # n = 4: terms 0 and 2 are real
    np.testing.assert_allclose(signal.irfft(spectrum).numpy(), np.fft.irfft(spectrum), atol=1e-6)


def test_fft_length_accepts_a_tensor():
    x = np.arange(6, dtype=np.float32)
    got = signal.rfft(x, fft_length=ember.constant([4]))
    np.testing.assert_allclose(got.numpy(), np.fft.rfft(x, 4), atol=1e-5)


# --- 2-D transforms -------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5), (1, 7), (2, 1, 6), (0, 3, 4)])
def test_fft2d_and_ifft2d_match_numpy(shape):
    x = _rand(np.random.default_rng(0), shape, np.complex64)
    want = np.fft.fft2(x) if x.size else x
    np.testing.assert_allclose(signal.fft2d(x).numpy(), want, rtol=1e-5, atol=1e-5)
    want = np.fft.ifft2(x) if x.size else x
    np.testing.assert_allclose(signal.ifft2d(x).numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape, fft_length", [((4, 6), None), ((2, 5, 7), None), ((3, 5), [4, 8]),
                                               ((3, 5), [6, 3]), ((2, 2, 9), [2, 9])])
def test_rfft2d_and_irfft2d_match_numpy(shape, fft_length):
    x = _rand(np.random.default_rng(1), shape, np.float32)
    s = None if fft_length is None else tuple(fft_length)
    spectrum = signal.rfft2d(x, fft_length=fft_length)
    assert spectrum.dtype == ember.complex64
    np.testing.assert_allclose(spectrum.numpy(), np.fft.rfft2(x, s=s), rtol=1e-5, atol=1e-5)
    inverse = signal.irfft2d(spectrum.numpy(), fft_length=fft_length)
    assert inverse.dtype == ember.float32
    np.testing.assert_allclose(inverse.numpy(), np.fft.irfft2(spectrum.numpy(), s=s), rtol=1e-5, atol=1e-5)


def test_2d_transforms_need_rank_2():
    with pytest.raises(ValueError, match="^fft2d: .*rank"):
        signal.fft2d(np.ones(3, np.complex64))
    with pytest.raises(ValueError, match="^rfft2d: .*fft_length"):
        signal.rfft2d(np.ones((3, 3), np.float32), fft_length=[3])


# --- Gradients ------------------------------------------------------------------

def _numeric_vjp(fn, x, g, step=1e-6):
    """dL/dRe(x) + i dL/dIm(x) for L = sum(Re(conj(g) * fn(x))), by central differences in float64."""
    x = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    loss = lambda v: float(np.sum(np.real(np.conj(g) * fn(v))))  # noqa: E731
    grad = np.zeros(x.shape, np.complex128 if x.dtype.kind == "c" else np.float64)
    directions = (1.0, 1j) if x.dtype.kind == "c" else (1.0,)
    for idx in np.ndindex(x.shape):
        for d in directions:
            plus, minus = x.copy(), x.copy()
            plus[idx] += step * d
            minus[idx] -= step * d
            slope = (loss(plus) - loss(minus)) / (2 * step)
            grad[idx] += slope * (1 if d == 1.0 else 1j)
    return grad


def _tape_vjp(op, x, g, **kwargs):
    xt = ember.constant(x)
    with ember.GradientTape() as tape:
        tape.watch(xt)
        y = op(xt, **kwargs)
    return tape.gradient(y, xt, output_gradients=ember.constant(g)).numpy()


_CASES = [
    ("fft", (2, 7), {}), ("fft", (3, 8), {}), ("fft", (1, 1), {}), ("ifft", (2, 6), {}), ("ifft", (2, 5), {}),
    ("rfft", (2, 8), {}), ("rfft", (2, 7), {}), ("rfft", (2, 5), {"fft_length": [8]}),
    ("rfft", (2, 10), {"fft_length": [6]}), ("rfft", (3, 4), {"fft_length": [7]}), ("rfft", (2, 1), {}),
    ("irfft", (2, 5), {}), ("irfft", (2, 4), {"fft_length": [7]}), ("irfft", (2, 3), {"fft_length": [8]}),
    ("irfft", (2, 6), {"fft_length": [6]}), ("irfft", (2, 1), {"fft_length": [1]}),
    ("irfft", (2, 2), {"fft_length": [2]}),
]

_NUMPY = {
    "fft": lambda x, **kw: np.fft.fft(x),
    "ifft": lambda x, **kw: np.fft.ifft(x),
    "rfft": lambda x, fft_length=None: np.fft.rfft(x, n=None if fft_length is None else fft_length[0]),
    "irfft": lambda x, fft_length=None: np.fft.irfft(x, n=None if fft_length is None else fft_length[0]),
}


@pytest.mark.parametrize("op_name, shape, kwargs", _CASES, ids=lambda v: str(v))
def test_gradient_matches_numeric_vjp(op_name, shape, kwargs):
    rng = np.random.default_rng(len(shape) * 31 + shape[-1])
    in_dtype = np.float32 if op_name == "rfft" else np.complex64
    x = _rand(rng, shape, in_dtype)
    y_shape = _NUMPY[op_name](x, **kwargs).shape
    g = _rand(rng, y_shape, np.float32 if op_name == "irfft" else np.complex64)
    want = _numeric_vjp(lambda v: _NUMPY[op_name](v, **kwargs), x, g)
    got = _tape_vjp(getattr(signal, op_name), x, g, **kwargs)
    assert got.dtype == x.dtype
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_gradient_check_catches_a_wrong_gradient():
    # The same comparison with fft's gradient missing its factor n must fail.
    rng = np.random.default_rng(3)
    x, g = _rand(rng, (2, 5), np.complex64), _rand(rng, (2, 5), np.complex64)
    want = _numeric_vjp(np.fft.fft, x, g)
    wrong = signal.ifft(g).numpy()
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(wrong, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(_tape_vjp(signal.fft, x, g), want, rtol=1e-4, atol=1e-4)


def test_gradient_through_rfft2d():
    rng = np.random.default_rng(4)
    x = _rand(rng, (3, 4), np.float32)
    g = _rand(rng, (3, 3), np.complex64)
    want = _numeric_vjp(np.fft.rfft2, x, g)
    np.testing.assert_allclose(_tape_vjp(signal.rfft2d, x, g), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", [61, 67, 134, 1000003])
def test_lengths_around_and_far_past_the_bluestein_switch(n):
    # 61 runs kissfft's direct butterfly; 67, 2 * 67 and the prime 1000003 run Bluestein's
    # algorithm (a direct butterfly over 1000003 points would take hours).
    rng = np.random.default_rng(n)
    x = rng.uniform(-1, 1, 5).astype(np.float32)
    got = signal.rfft(x, fft_length=[n]).numpy()
    want = np.fft.rfft(x.astype(np.float64), n=n)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    back = signal.irfft(got, fft_length=[n]).numpy()
    np.testing.assert_allclose(back[:5], x, atol=1e-5)
    np.testing.assert_allclose(back[5:], 0, atol=1e-5)

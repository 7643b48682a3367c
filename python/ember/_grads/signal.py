"""Gradients of the Fourier transforms (op_defs/signal.yaml), as TensorFlow defines them.

A complex gradient g stands for dL/dRe + i dL/dIm (TensorFlow's convention), so
a linear map's gradient is its adjoint: fft's is n * ifft(g), ifft's fft(g) / n.
"""

import numpy as np

from ember._generated import ops


def fft(op, grad):
    n = op.inputs[0].shape[-1]
    return ops.multiply(ops.ifft(grad), float(n))


def ifft(op, grad):
    n = op.inputs[0].shape[-1]
    return ops.multiply(ops.fft(grad), 1.0 / n) if n else grad


def _fft_length(op, default):
    length = op.attrs["fft_length"]
    return default if length is None else int(length[0])


def _fit_last_dim(x, length):
    """x cropped or zero-padded along its innermost dim to `length`."""
    have = x.shape[-1]
    if have > length:
        return ops.slice(x, [0] * x.ndim, list(x.shape[:-1]) + [length])
    if have < length:
        return ops.pad(x, [0, 0] * (x.ndim - 1) + [0, length - have])
    return x


def _term(x, index):
    """The innermost dim's element `index`, keeping the dim (length 1)."""
    return ops.slice(x, [0] * (x.ndim - 1) + [index], list(x.shape[:-1]) + [1])


def rfft(op, grad):
    # dL/dx[t] = Re(sum_k g[k] exp(2 pi i k t / N)) over the N / 2 + 1 kept
    # terms. N * irfft(g) counts the terms other than 0 and N / 2 twice and
    # drops their imaginary parts, so add the real parts of those once more
    # and halve.
    x = op.inputs[0]
    n = _fft_length(op, x.shape[-1])
    if n == 0:
        return ops.zeros_like(x)
    full = ops.multiply(ops.irfft(grad, [n]), float(n))
    extra = ops.cast(_term(grad, 0), x.dtype)
    if n % 2 == 0:
        alternating = np.where(np.arange(n) % 2 == 0, 1.0, -1.0).astype(x.dtype.as_numpy_dtype)
        extra = ops.add(extra, ops.multiply(ops.cast(_term(grad, n // 2), x.dtype), alternating))
    return _fit_last_dim(ops.multiply(ops.add(full, extra), 0.5), x.shape[-1])


def irfft(op, grad):
    # x[t] = (1 / N) Re(y[0] + 2 sum_k y[k] exp(2 pi i k t / N) + y[N / 2] (-1)^t):
    # the gradient of y[k] is rfft(g)[k] / N, doubled for the terms counted twice.
    y = op.inputs[0]
    n = _fft_length(op, 2 * (y.shape[-1] - 1))
    if n == 0:
        return ops.zeros_like(y)
    bins = n // 2 + 1
    weights = np.full(bins, 2.0 / n)
    weights[0] = 1.0 / n
    if n % 2 == 0:
        weights[-1] = 1.0 / n
    spectrum = ops.multiply(ops.rfft(grad, [n]), weights.astype(np.complex64))
    return _fit_last_dim(spectrum, y.shape[-1])

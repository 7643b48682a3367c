"""The ember.signal namespace: the 1-D Fourier transforms (op_defs/signal.yaml)
and the 2-D ones built from them, over the two innermost dims, as tf.signal."""

from ember._checks import safe_repr as _safe_repr
from ember._generated import ops as _ops
from ember._runtime import composite as _composite
from ember._generated.signal import *  # noqa: F401,F403
from ember._generated.signal import __all__ as _generated_all
from ember import _creation

__all__ = sorted(set(_generated_all) | {"fft2d", "ifft2d", "irfft2d", "rfft2d"})


_MAX_LENGTH = 2 ** 31 - 1  # kissfft's int lengths (csrc/ops/shape_fns/signal.h)


def _inner_two(x, what):
    x = _creation.convert_to_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"{what}: input must have rank >= 2, got shape {x.shape}")
    return x


def _swap_inner(x):
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return _ops.transpose(x, perm)


def _fit_inner(x, length):
    """x cropped or zero-padded along its innermost dim to `length`."""
    have = x.shape[-1]
    if have > length:
        return _ops.slice(x, [0] * x.ndim, list(x.shape[:-1]) + [length])
    if have < length:
        return _ops.pad(x, [0, 0] * (x.ndim - 1) + [0, length - have])
    return x


def _fft_lengths(fft_length, what):
    if fft_length is None:
        return None
    try:
        lengths = [int(v) for v in (fft_length.numpy() if hasattr(fft_length, "numpy") else fft_length)]
    except (TypeError, ValueError, OverflowError, RecursionError):
        lengths = None
    if lengths is None or len(lengths) != 2 or min(lengths) < 0 or max(lengths) > _MAX_LENGTH:
        raise ValueError(f"{what}: fft_length must be two ints in [0, 2^31 - 1], got {_safe_repr(fft_length)}")
    return lengths


@_composite
def fft2d(input, name=None):  # noqa: A002
    """The 2-D discrete Fourier transform over the two innermost dims (``tf.signal.fft2d``)."""
    del name
    x = _inner_two(input, "fft2d")
    return _swap_inner(_ops.fft(_swap_inner(_ops.fft(x))))


@_composite
def ifft2d(input, name=None):  # noqa: A002
    """The inverse 2-D discrete Fourier transform over the two innermost dims (``tf.signal.ifft2d``)."""
    del name
    x = _inner_two(input, "ifft2d")
    return _swap_inner(_ops.ifft(_swap_inner(_ops.ifft(x))))


@_composite
def rfft2d(input_tensor, fft_length=None, name=None):
    """The 2-D transform of a real signal over the two innermost dims (``tf.signal.rfft2d``).

    fft_length [n0, n1] (default: the two inner dims) crops or zero-pads the
    signal; the result has n0 rows of n1 // 2 + 1 non-negative frequency terms.
    """
    del name
    x = _inner_two(input_tensor, "rfft2d")
    n0, n1 = _fft_lengths(fft_length, "rfft2d") or x.shape[-2:]
    rows = _ops.rfft(x, [n1])
    return _swap_inner(_ops.fft(_fit_inner(_swap_inner(rows), n0)))


@_composite
def irfft2d(input_tensor, fft_length=None, name=None):
    """The inverse of rfft2d (``tf.signal.irfft2d``): a real signal of shape fft_length.

    fft_length [n0, n1] defaults to [rows, 2 * (terms - 1)] of the input's two
    inner dims; the input is cropped or zero-padded to n0 rows of n1 // 2 + 1 terms.
    """
    del name
    x = _inner_two(input_tensor, "irfft2d")
    if fft_length is None and x.shape[-1] == 0:
        raise ValueError(f"irfft2d: an input of shape {x.shape} has no frequency terms: give fft_length")
    n0, n1 = _fft_lengths(fft_length, "irfft2d") or (x.shape[-2], 2 * (x.shape[-1] - 1))
    columns = _swap_inner(_ops.ifft(_fit_inner(_swap_inner(x), n0)))
    return _ops.irfft(columns, [n1])

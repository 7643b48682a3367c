"""The ember.image namespace: tf.image.resize with TensorFlow 2's semantics
(half-pixel centers), on the resize ops of op_defs/image.yaml."""

import numpy as _np

from ember._checks import safe_repr as _safe_repr
from ember._generated import ops as _ops
from ember._runtime import composite as _composite
from ember import _creation

__all__ = ["ResizeMethod", "resize"]


class ResizeMethod:
    """The resize methods' names, as tf.image.ResizeMethod (ember implements BILINEAR and NEAREST_NEIGHBOR)."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_OPS = {ResizeMethod.BILINEAR: _ops.resize_bilinear, ResizeMethod.NEAREST_NEIGHBOR: _ops.resize_nearest_neighbor}


def _size_pair(size):
    values = size.numpy() if hasattr(size, "numpy") else size
    try:
        array = _np.asarray(values)
        pair = [int(v) for v in array.reshape(-1)] if array.dtype.kind in "iu" else None
    except (TypeError, ValueError, OverflowError, RecursionError):
        array, pair = None, None
    if pair is None or array.ndim != 1 or len(pair) != 2:
        raise ValueError(f"resize: size must be a 1-D list of 2 ints [new_height, new_width], got {_safe_repr(size)}")
    if min(pair) <= 0:
        raise ValueError(f"resize: size must be positive, got {pair}")
    return pair


def _aspect_preserving_size(height, width, size):
    """TensorFlow's rule: scale both sides by the smaller factor, in float32, rounded half to even."""
    h, w = _np.float32(height), _np.float32(width)
    scale = min(_np.float32(size[0]) / h, _np.float32(size[1]) / w)
    return [int(_np.round(scale * h)), int(_np.round(scale * w))]


@_composite
def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False, antialias=False, name=None):
    """Resizes [height, width, channels] or [batch, height, width, channels] images to size
    (``tf.image.resize``).

    'bilinear' interpolates with half-pixel centers and returns float32; 'nearest' picks
    the pixel under each output pixel's center and keeps the dtype. preserve_aspect_ratio
    fits the image inside size instead. The other methods and antialias=True raise
    NotImplementedError.
    """
    del name
    if not isinstance(method, str):
        raise ValueError(f"resize: method must be a string such as 'bilinear', got {_safe_repr(method)}")
    method = method.lower()
    if method not in _OPS:
        if method in vars(ResizeMethod).values():
            raise NotImplementedError(f"resize: method {method!r} is not implemented in ember "
                                      f"(only 'bilinear' and 'nearest')")
        raise ValueError(f"resize: unknown method {_safe_repr(method)}")
    if antialias:
        raise NotImplementedError("resize: antialias=True is not implemented in ember")
    images = _creation.convert_to_tensor(images)
    if images.ndim not in (3, 4):
        raise ValueError(f"resize: images must have rank 3 or 4, got shape {images.shape}")
    size = _size_pair(size)
    batched = images.ndim == 4
    if not batched:
        images = _ops.expand_dims(images, 0)
    if preserve_aspect_ratio and min(images.shape[1:3]) > 0:
        size = _aspect_preserving_size(images.shape[1], images.shape[2], size)
    resized = _OPS[method](images, size)
    return resized if batched else _ops.squeeze(resized, [0])

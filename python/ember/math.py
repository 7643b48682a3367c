"""The ember.math namespace (generated from op_defs/), plus composites."""

from ember._generated.math import *  # noqa: F401,F403
from ember._generated.math import __all__ as _generated_all
from ember._runtime import composite as _composite
# Wrappers with TensorFlow's signatures replace the generated segment ops (ember/_segments.py).
from ember._segments import (  # noqa: F811
    bincount, segment_max, segment_mean, segment_min, segment_prod, segment_sum, unsorted_segment_max,
    unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sqrt_n,
    unsorted_segment_sum)
from ember._strings._dispatch import equal, not_equal  # noqa: F811 - they also compare string tensors
from ember import _creation, dtypes as _dtypes
from ember._generated import ops as _ops

__all__ = sorted(set(_generated_all) | {"reduce_euclidean_norm", "bincount"})


@_composite
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x * x)) over ``axis`` (``tf.math.reduce_euclidean_norm``).

    Integer inputs give an integer result, the root truncated toward zero,
    as in TensorFlow. Complex inputs are not supported yet.
    """
    del name
    x = _creation.convert_to_tensor(input_tensor)
    if x.dtype.is_integer:
        as_float = _ops.cast(x, _dtypes.float64)
        return _ops.cast(_ops.sqrt(_ops.reduce_sum(as_float * as_float, axis=axis, keepdims=keepdims)), x.dtype)
    if x.dtype.is_complex:
        raise TypeError("reduce_euclidean_norm: complex inputs are not supported yet")
    return _ops.sqrt(_ops.reduce_sum(x * x, axis=axis, keepdims=keepdims))

"""Clipping by norm (``tf.clip_by_norm``, ``tf.clip_by_global_norm``,
``tf.linalg.global_norm``), built from existing ops so gradients and
``@ember.function`` tracing come for free."""

from ember._runtime import composite as _composite
from ember import _creation, dtypes, _movement, _selection, _tensor
from ember._generated import ops


def _as_float_tensor(value, op):
    tensor = _creation.convert_to_tensor(value, dtype_hint=dtypes.float32)
    if not (tensor.dtype.is_floating or tensor.dtype.is_complex):
        raise TypeError(f"{op}: expected a floating-point tensor, got {tensor.dtype.name}")
    return tensor


@_composite
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Rescales ``t`` so that its L2 norm over ``axes`` (all by default) is at
    most ``clip_norm``: ``t * clip_norm / max(l2norm(t), clip_norm)``.

    A zero-norm slice is left as it is (and its gradient is finite), as in
    TensorFlow.
    """
    del name
    t = _as_float_tensor(t, "clip_by_norm")
    clip_norm = ops.cast(clip_norm, t.dtype)
    if clip_norm.ndim != 0:
        raise ValueError(f"clip_by_norm: clip_norm must be a scalar, got shape {clip_norm.shape}")
    l2sum = ops.reduce_sum(t * t, axis=axes, keepdims=True)
    # sqrt's gradient at 0 is infinite: take the root of 1 where the sum is 0.
    positive = ops.greater(l2sum, _movement.zeros_like(l2sum))
    l2norm = _selection.where(positive, ops.sqrt(_selection.where(positive, l2sum, _movement.ones_like(l2sum))), l2sum)
    return t * clip_norm / ops.maximum(l2norm, clip_norm)


@_composite
def global_norm(t_list, name=None):
    """sqrt(sum of the squared L2 norms of the tensors in ``t_list``); ``None``
    entries are skipped (``tf.linalg.global_norm``)."""
    del name
    if isinstance(t_list, _tensor.Tensor) or not hasattr(t_list, "__iter__"):
        raise TypeError("global_norm: t_list must be a sequence of tensors")
    tensors = [_as_float_tensor(t, "global_norm") for t in t_list if t is not None]
    if not tensors:
        raise ValueError("global_norm: t_list has no tensors")
    dtype = tensors[0].dtype
    squares = [ops.reduce_sum(ops.cast(t, dtype) * ops.cast(t, dtype)) for t in tensors]
    return ops.sqrt(ops.add_n(squares))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``;
    returns ``(list_clipped, global_norm)``. ``None`` entries stay ``None``. If
    the global norm is infinite or NaN, every value becomes NaN, as in
    TensorFlow, so the problem is visible."""
    del name
    if isinstance(t_list, _tensor.Tensor) or not hasattr(t_list, "__iter__"):
        raise TypeError("clip_by_global_norm: t_list must be a sequence of tensors")
    tensors = [None if t is None else _as_float_tensor(t, "clip_by_global_norm") for t in t_list]
    norm = global_norm(tensors) if use_norm is None else _creation.convert_to_tensor(use_norm)
    clip = ops.cast(clip_norm, norm.dtype)
    scale = clip * ops.minimum(ops.reciprocal(norm), ops.reciprocal(clip))
    # An infinite norm would give scale 0 and hide the problem: NaN instead.
    scale = _selection.where(ops.is_finite(norm), scale, _creation.constant(float("nan"), dtype=norm.dtype))
    clipped = [None if t is None else t * ops.cast(scale, t.dtype) for t in tensors]
    return clipped, norm

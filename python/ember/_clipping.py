"""Clipping by norm (``tf.clip_by_norm``, ``tf.clip_by_global_norm``,
``tf.linalg.global_norm``), built from existing ops so gradients and
``@ember.function`` tracing come for free."""

from ember._runtime import composite as _composite


def _as_float_tensor(value, op):
    import ember

    tensor = ember.convert_to_tensor(value, dtype_hint=ember.float32)
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
    import ember

    del name
    t = _as_float_tensor(t, "clip_by_norm")
    clip_norm = ember.cast(clip_norm, t.dtype)
    if clip_norm.ndim != 0:
        raise ValueError(f"clip_by_norm: clip_norm must be a scalar, got shape {clip_norm.shape}")
    l2sum = ember.reduce_sum(t * t, axis=axes, keepdims=True)
    # sqrt's gradient at 0 is infinite: take the root of 1 where the sum is 0.
    positive = ember.greater(l2sum, ember.zeros_like(l2sum))
    l2norm = ember.where(positive, ember.sqrt(ember.where(positive, l2sum, ember.ones_like(l2sum))), l2sum)
    return t * clip_norm / ember.maximum(l2norm, clip_norm)


@_composite
def global_norm(t_list, name=None):
    """sqrt(sum of the squared L2 norms of the tensors in ``t_list``); ``None``
    entries are skipped (``tf.linalg.global_norm``)."""
    import ember

    del name
    if isinstance(t_list, ember.Tensor) or not hasattr(t_list, "__iter__"):
        raise TypeError("global_norm: t_list must be a sequence of tensors")
    tensors = [_as_float_tensor(t, "global_norm") for t in t_list if t is not None]
    if not tensors:
        raise ValueError("global_norm: t_list has no tensors")
    dtype = tensors[0].dtype
    squares = [ember.reduce_sum(ember.cast(t, dtype) * ember.cast(t, dtype)) for t in tensors]
    return ember.sqrt(ember.add_n(squares))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``;
    returns ``(list_clipped, global_norm)``. ``None`` entries stay ``None``. If
    the global norm is infinite or NaN, every value becomes NaN, as in
    TensorFlow, so the problem is visible."""
    import ember

    del name
    if isinstance(t_list, ember.Tensor) or not hasattr(t_list, "__iter__"):
        raise TypeError("clip_by_global_norm: t_list must be a sequence of tensors")
    tensors = [None if t is None else _as_float_tensor(t, "clip_by_global_norm") for t in t_list]
    norm = global_norm(tensors) if use_norm is None else ember.convert_to_tensor(use_norm)
    clip = ember.cast(clip_norm, norm.dtype)
    scale = clip * ember.minimum(ember.reciprocal(norm), ember.reciprocal(clip))
    # An infinite norm would give scale 0 and hide the problem: NaN instead.
    scale = ember.where(ember.is_finite(norm), scale, ember.constant(float("nan"), dtype=norm.dtype))
    clipped = [None if t is None else t * ember.cast(scale, t.dtype) for t in tensors]
    return clipped, norm

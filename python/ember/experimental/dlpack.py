"""ember.experimental.dlpack: TensorFlow's ``tf.experimental.dlpack``."""

from ember._creation import convert_to_tensor as _convert_to_tensor
from ember._dlpack import from_dlpack
from ember._tensor import Tensor as _Tensor

__all__ = ["from_dlpack", "to_dlpack"]


def to_dlpack(tensor):
    """TensorFlow's ``tf.experimental.dlpack.to_dlpack``: a legacy ``"dltensor"``
    capsule that shares the tensor's memory."""
    if not isinstance(tensor, _Tensor):
        tensor = _convert_to_tensor(tensor)
    return tensor.__dlpack__()

"""ember.constant and ember.convert_to_tensor."""

import numpy as np

from ember import _C
from ember.dtypes import as_dtype, string
from ember._generated import ops
from ember._strings import _shape_ops
from ember._strings._value import StringTensor, bytes_array, from_array
from ember._tensor import Tensor


# Note [Value protocol]: a value whose type defines `_ember_value_()` stands for
# the tensor that method returns when it is read: ember.Variable's current value.
# Converters below the variables layer call it, so they need not import Variable
# (docs/architecture.md, "Python package layers").
def read_value(value):
    """The tensor a protocol value stands for now; any other value unchanged."""
    read = getattr(type(value), "_ember_value_", None)
    return value if read is None else read(value)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Converts a Tensor, NumPy array, Python scalar or (nested) list to a Tensor.

    Python floats become float32 and ints int32 (int64 if too large), as in
    TensorFlow; NumPy values keep their dtype. str and bytes (and lists and
    NumPy S/U/object arrays of them) become string tensors held on the host,
    str encoded as UTF-8 (Note [Host string dtype]). Values are copied into
    Ember-owned memory. A Tensor of another dtype than ``dtype`` is an error
    (use ``ember.cast``). ``dtype_hint`` applies only to Python values.
    """
    del name  # graph-mode only
    value = read_value(value)
    if isinstance(value, Tensor):
        _check_same_dtype(value, dtype)
        return value
    value = _array_protocol(value)
    if dtype is None and dtype_hint is not None and not isinstance(value, (np.ndarray, np.generic)):
        dtype = dtype_hint
    dtype = None if dtype is None else as_dtype(dtype)
    try:  # numeric values take the C++ conversion with no extra check
        return _C.convert_to_tensor(value, dtype)
    except TypeError:
        return _string_fallback(value, dtype, "convert_to_tensor")


def _check_same_dtype(tensor, dtype):
    if dtype is not None and as_dtype(dtype) != tensor.dtype:
        raise ValueError(f"convert_to_tensor: requested dtype {as_dtype(dtype).name} for a tensor "
                         f"of dtype {tensor.dtype.name}; use ember.cast")


def _string_fallback(value, dtype, what):
    """After the C++ conversion raised TypeError (it has no string dtype): a string tensor for
    string values (or any value with dtype=ember.string), else that TypeError again."""
    if type(value) is StringTensor:
        _check_same_dtype(value, dtype)
        return value
    if dtype is string or (dtype is None and bytes_array(value) is not None):
        return _string_tensor(value, what)
    raise  # noqa: PLE0704 - called in an except block: re-raises the conversion's TypeError


def _string_tensor(value, what):
    if isinstance(value, StringTensor):
        return value
    array = bytes_array(value, empty_ok=True)
    if array is None:
        raise TypeError(f"{what}: cannot convert {type(value).__name__} value to a string tensor; expected str, "
                        "bytes, or lists or NumPy arrays of them")
    return from_array(array)


_NATIVE = (np.ndarray, np.generic, list, tuple, int, float, complex, bool, str, bytes, StringTensor)


def _array_protocol(value):
    """value as a NumPy array if it is some other object with ``__array__`` (a pandas
    DataFrame or Series), which TensorFlow converts through that protocol; else value."""
    if isinstance(value, _NATIVE) or not hasattr(type(value), "__array__"):
        return value
    return np.asarray(value)


def constant(value, dtype=None, shape=None, name=None):
    """Creates a tensor from a Python or NumPy value (``tf.constant``).

    With ``shape``, a scalar is broadcast to that shape and any other value
    is reshaped to it (its element count must match).
    """
    del name
    if isinstance(value, Tensor):
        value = value.numpy()
    dtype = None if dtype is None else as_dtype(dtype)
    try:  # numeric values take the C++ conversion with no extra check
        tensor = _C.convert_to_tensor(_array_protocol(value), dtype)
    except TypeError:
        tensor = _string_fallback(value, dtype, "constant")
    if shape is None:
        return tensor
    shape = [int(d) for d in (shape if isinstance(shape, (list, tuple)) else [shape])]
    if isinstance(tensor, StringTensor):
        if tensor.ndim == 0:
            return from_array(np.full(shape, tensor.numpy(), dtype=object))
        return _shape_ops.reshape(tensor, shape)
    if tensor.ndim == 0:
        return ops.fill(shape, tensor)
    if int(np.prod(shape)) != int(np.prod(tensor.shape)):
        raise ValueError(f"constant: value of shape {tensor.shape} ({int(np.prod(tensor.shape))} elements) "
                         f"cannot be reshaped to {tuple(shape)}")
    return ops.reshape(tensor, shape)

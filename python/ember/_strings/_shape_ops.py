"""Shape and indexing ops on string tensors, computed with NumPy on the host."""

import numpy as np

from ember import _C, errors
from ember._checks import safe_repr
from ember._strings._value import StringTensor, bytes_array, from_array, host_numeric


def as_strings(value, op):
    """value as a StringTensor: string tensors pass; str, bytes and lists or arrays of them
    are converted; anything else is a TypeError naming `op`."""
    if type(value) is StringTensor:
        return value
    array = bytes_array(value)
    if array is None:
        kind = f"a {value.dtype.name} tensor" if hasattr(value, "dtype") else safe_repr(value)
        raise TypeError(f"{op}: expected a string tensor (or str, bytes or a list of them), got {kind}")
    return from_array(array)


def is_strings(value):
    return type(value) is StringTensor or bytes_array(value) is not None


def _int_list(value, op, arg):
    array = host_numeric(value, op)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must be integers, got {safe_repr(value)}")
    return [int(v) for v in np.ravel(array)]


def _axis(axis, rank, op):
    axis = int(host_numeric(axis, op))
    if not -rank <= axis < rank:
        raise errors.InvalidArgumentError(f"{op}: axis {axis} is out of range for a tensor of rank {rank}")
    return axis % rank


def _numpy_call(op, fn, *args, **kwargs):
    """fn's NumPy result as a StringTensor; NumPy's shape errors as InvalidArgumentError naming `op`."""
    try:
        result = fn(*args, **kwargs)
    except (ValueError, IndexError) as e:
        raise errors.InvalidArgumentError(f"{op}: {e}") from None
    return from_array(np.asarray(result, dtype=object))


def _key_part(part):
    if isinstance(part, (StringTensor, str, bytes)):
        raise TypeError(f"string tensor indices must be ints, slices, ..., None or integer/bool arrays, got "
                        f"{safe_repr(part)}")
    if isinstance(part, (_C.Tensor, list)):
        return host_numeric(part, "string tensor indexing")
    return part


def _owned(result):
    """A NumPy indexing result (an array, or one bytes element) as a new StringTensor."""
    if not isinstance(result, np.ndarray):
        scalar = np.empty((), object)
        scalar[()] = result
        return from_array(scalar)
    return from_array(result.copy())


def getitem(tensor, key):
    """NumPy-style indexing of a string tensor (as ember.Tensor's __getitem__)."""
    parts = tuple(_key_part(p) for p in key) if isinstance(key, tuple) else _key_part(key)
    try:
        result = tensor._array[parts]
    except IndexError as e:
        raise IndexError(f"string tensor indexing: {e}") from None
    return _owned(result)


def compare(x, y, fn, op):
    """Element-wise == or != with broadcasting, as a bool ember tensor."""
    a, b = as_strings(x, op)._array, (y._array if type(y) is StringTensor else bytes_array(y))
    if b is None:
        raise TypeError(f"{op}: cannot compare a string tensor with {safe_repr(y)}")
    try:
        result = fn(a, b)
    except ValueError as e:
        raise errors.InvalidArgumentError(f"{op}: {e}") from None
    return _C.convert_to_tensor(np.asarray(result, dtype=np.bool_), None)


def reshape(tensor, shape):
    shape = _int_list(shape, "reshape", "shape")
    return _numpy_call("reshape", np.reshape, tensor._array, shape)


def expand_dims(tensor, axis):
    axis = int(host_numeric(axis, "expand_dims"))
    if not -tensor.ndim - 1 <= axis <= tensor.ndim:
        raise errors.InvalidArgumentError(f"expand_dims: axis {axis} is out of range for a tensor of rank "
                                          f"{tensor.ndim}")
    return _numpy_call("expand_dims", np.expand_dims, tensor._array, axis)


def squeeze(tensor, axis=None):
    if axis is not None:
        axis = tuple(_int_list(axis, "squeeze", "axis"))
    return _numpy_call("squeeze", np.squeeze, tensor._array, axis)


def transpose(tensor, perm=None):
    perm = None if perm is None else _int_list(perm, "transpose", "perm")
    return _numpy_call("transpose", np.transpose, tensor._array, perm)


def tile(tensor, multiples):
    multiples = _int_list(multiples, "tile", "multiples")
    if len(multiples) != tensor.ndim:
        raise errors.InvalidArgumentError(f"tile: multiples has {len(multiples)} entries for a tensor of rank "
                                          f"{tensor.ndim}")
    return _numpy_call("tile", np.tile, tensor._array, multiples)


def stack(values, axis=0):
    arrays = [as_strings(v, "stack")._array for v in values]
    if not arrays:
        raise ValueError("stack: needs at least one tensor")
    return _numpy_call("stack", np.stack, arrays, axis=int(host_numeric(axis, "stack")))


def unstack(value, axis=0):
    axis = _axis(axis, value.ndim, "unstack") if value.ndim else 0
    return [_owned(np.take(value._array, i, axis=axis)) for i in range(value._array.shape[axis])]


def concat(values, axis):
    arrays = [as_strings(v, "concat")._array for v in values]
    if not arrays:
        raise ValueError("concat: needs at least one tensor")
    if any(a.ndim == 0 for a in arrays):
        raise errors.InvalidArgumentError("concat: cannot concatenate scalars (use stack)")
    return _numpy_call("concat", np.concatenate, arrays, axis=_axis(axis, arrays[0].ndim, "concat"))


def gather(params, indices, axis=None, batch_dims=0):
    if batch_dims != 0:
        raise NotImplementedError("gather: batch_dims is not supported for string tensors")
    index = host_numeric(indices, "gather")
    if index.dtype.kind not in "iu":
        raise TypeError(f"gather: indices must be integers, got {index.dtype}")
    axis = _axis(0 if axis is None else axis, params.ndim, "gather")
    size = params._array.shape[axis]
    bad = index[(index < 0) | (index >= size)] if index.size else index
    if bad.size:
        raise errors.InvalidArgumentError(f"gather: index {int(bad.ravel()[0])} is not in [0, {size})")
    return from_array(np.take(params._array, index, axis=axis))


def shape(tensor, out_type):
    return _C.convert_to_tensor(np.array(tensor._array.shape, dtype=np.dtype(out_type.as_numpy_dtype)), None)


def size(tensor, out_type):
    return _C.convert_to_tensor(np.array(tensor._array.size, dtype=np.dtype(out_type.as_numpy_dtype)), None)


def rank(tensor):
    return _C.convert_to_tensor(np.int32(tensor.ndim), None)


def pad_strings(tensor, paddings, value):
    """tensor padded with `value` (bytes): paddings is [[before, after], ...] per dim."""
    out = np.full([b + d + a for d, (b, a) in zip(tensor._array.shape, paddings)], value, dtype=object)
    out[tuple(slice(b, b + d) for d, (b, _) in zip(tensor._array.shape, paddings))] = tensor._array
    return from_array(out)


# StringTensor's methods (Note [StringTensor methods] in _value.py).
def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (_owned(row) for row in self._array)


def _eq(self, other):
    return compare(self, other, np.equal, "equal")


def _ne(self, other):
    return compare(self, other, np.not_equal, "not_equal")


StringTensor.__iter__, StringTensor.__getitem__, StringTensor.__eq__, StringTensor.__ne__ = _iter, getitem, _eq, _ne

"""StringTensor: ember's host-side string tensor, a NumPy object array of bytes (Note [Host string dtype])."""

import numpy as np

from ember import _C
from ember._context import HostCallbackInTrace
from ember._tensor import Tensor
from ember._tensor_repr import _numpy_options
from ember._tensor_shape import TensorShape
from ember.dtypes import string


def _element_bytes(value):
    """One element as bytes (str is encoded as UTF-8), or None if it is not a string."""
    if isinstance(value, bytes):
        return bytes(value)  # np.bytes_ too
    if isinstance(value, str):
        return value.encode("utf-8")
    return None


_to_bytes = np.frompyfunc(_element_bytes, 1, 1)


def bytes_array(value, empty_ok=False):
    """value as an object array of bytes if it is string data (str, bytes, nested lists of
    them, NumPy S/U/object arrays of them), else None. Empty lists are string data only
    with `empty_ok` (when the caller asked for dtype=string)."""
    if isinstance(value, (str, bytes)):
        array = np.empty((), object)
        array[()] = _element_bytes(value)
        return array
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "SUO" and not (empty_ok and value.size == 0):
            return None
        array = value
    elif isinstance(value, (list, tuple)):
        try:
            array = np.array(value, dtype=object)
        except ValueError:  # ragged nesting
            return None
        if array.size == 0 and not empty_ok:
            return None  # an empty list is a float32 tensor, as in TensorFlow
    else:
        return None
    converted = np.asarray(_to_bytes(array), dtype=object).reshape(array.shape)
    if converted.size and any(v is None for v in converted.flat):
        return None  # some element is not a string (mixed values)
    return converted


def from_array(array):
    """A StringTensor that owns `array` (an object array of bytes, not copied)."""
    array.flags.writeable = False
    return StringTensor(array, _internal=True)


def host_numeric(value, op):
    """The NumPy value of a numeric tensor or array-like argument of string op `op`.

    A traced (symbolic) tensor has no value: the trace stops and the function runs eagerly
    at each call, as for py_function (Note [String tensors in functions])."""
    if isinstance(value, Tensor):
        if _C._is_symbolic(value):
            raise HostCallbackInTrace(op)
        return value.numpy()
    return np.asarray(value)


class StringTensor:
    """A tensor of byte strings (``dtype=ember.string``), held in host memory.

    Made by ``ember.constant`` / ``ember.convert_to_tensor`` from str, bytes and
    lists or NumPy arrays of them (str is encoded as UTF-8), and by the
    ``ember.strings`` and ``ember.io`` ops. ``numpy()`` gives bytes for a scalar
    and an object array of bytes otherwise, as TensorFlow does.
    """

    __slots__ = ("_array", "__weakref__")
    __array_priority__ = 200  # NumPy defers to our == and +
    __hash__ = None  # element-wise __eq__, as ember.Tensor

    def __init__(self, array, _internal=False):
        if not _internal:
            raise TypeError("StringTensor: make string tensors with ember.constant or ember.convert_to_tensor")
        self._array = array

    # --- Properties -----------------------------------------------------------

    @property
    def dtype(self):
        return string

    @property
    def shape(self):
        return TensorShape(self._array.shape)

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self._array.ndim

    @property
    def rank(self):
        return self._array.ndim

    @property
    def device(self):
        return "cpu:0"  # host memory: the C++ devices hold no strings

    def numpy(self):
        """bytes for a scalar, else a new object array of bytes."""
        if self._array.ndim == 0:
            return self._array[()]
        return self._array.copy()

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and np.dtype(dtype) != np.dtype(object):
            return self._array.astype(dtype)
        return self._array.copy() if copy or copy is None else self._array

    # --- Python protocols --------------------------------------------------

    def __len__(self):
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    # Note [StringTensor methods]: __iter__, __getitem__, __eq__ and __ne__ are
    # installed by _shape_ops.py, __add__ and __radd__ by _text_ops.py: they are
    # those modules' ops, which take StringTensor (as the generated bindings
    # install Tensor's operators). Element-wise == makes it unhashable, as Tensor.
    __hash__ = None

    def __bool__(self):
        if self._array.size != 1:
            raise ValueError("The truth value of a string tensor with other than one element is ambiguous")
        return bool(self._array.reshape(-1)[0])

    def __repr__(self):
        return (f"<ember.Tensor shape={self.shape} dtype=string device={self.device} "
                f"value={self._text(', ')}>")

    def __str__(self):
        return f"ember.Tensor({self._text(' ')}, shape={self.shape}, dtype=string)"

    def __format__(self, spec):
        if self._array.ndim == 0 and spec:
            return format(self._array[()], spec)
        return str(self)

    def _text(self, separator):
        if self._array.ndim == 0:
            return repr(self._array[()])
        with np.printoptions(**_numpy_options()):
            return np.array2string(self._array, separator=separator)

    # --- Note [Composite arguments] (ember/function.py) --------------------
    #
    # Note [String tensors in functions]: a graph cannot hold strings, so a
    # string tensor passed to an @ember.function is keyed by its shape and,
    # when the trace rebuilds the argument, stops the trace: the function then
    # runs eagerly at every call with such an argument, as for py_function.
    # A string tensor returned by a trace is a constant of the trace (string
    # ops stop the trace when an input is symbolic), carried with no parts.

    def _arg_key(self):
        return ("StringTensor", self._array.shape)

    def _arg_parts(self):
        return []

    def _from_arg_parts(self, parts):
        # Called only when a trace rebuilds its arguments: stop it (the function runs eagerly).
        raise HostCallbackInTrace("a string tensor argument")

    def _components(self):
        return []

    def _from_components(self, components):
        return self

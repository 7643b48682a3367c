"""ember.Tensor: the Python face of a tensor handle."""

import numpy as np

from ember import _C, _dlpack as dlpack, _graph_checks, _tensor_repr, _indexing as indexing


class _TensorMethods:
    """The pure-Python part of ember.Tensor, installed on the C++ type below.

    ember.Tensor is defined in C++ (csrc/python/tensor_object.cc) so that
    creating one per op output is cheap; its methods that need no speed
    live here.
    """

    # NumPy defers to our reflected operators (np_array + tensor -> Tensor).
    __array_priority__ = 100
    # Element-wise __eq__ makes tensors unhashable, as in TensorFlow.
    __hash__ = None

    # numpy() is a C method of ember.Tensor (csrc/python/tensor_object.cc).

    def __array__(self, dtype=None, copy=None):
        """NumPy's conversion protocol, with NumPy 2's ``copy``: None shares
        the buffer when it can (a read-only view), True always copies (a
        writable array), False never copies and raises ValueError when a copy
        is needed (another dtype, or a tensor outside host memory)."""
        if copy is False and self.__dlpack_device__()[0] != dlpack.DLDeviceType.kDLCPU:
            raise ValueError(f"converting a tensor on {self.device} to NumPy needs a copy to the host, "
                             "but copy=False")
        array = self._numpy()
        if dtype is not None and np.dtype(dtype) != array.dtype:
            if copy is False:
                raise ValueError(f"converting a {self.dtype.name} tensor to NumPy {np.dtype(dtype)} needs a copy, "
                                 "but copy=False")
            return array.astype(dtype)
        return array.copy() if copy else array

    __dlpack__ = dlpack._dlpack
    __dlpack_device__ = dlpack._dlpack_device

    def get_shape(self):
        """The static shape, an ember.TensorShape (the same as ``shape``)."""
        return self.shape

    @property
    def rank(self):
        return self.ndim

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __getitem__(self, key):
        """NumPy-style indexing: ints, slices, ``...``, ``None``, integer arrays, boolean masks
        (see ember/_indexing.py). Returns a new tensor."""
        return indexing.getitem(self, key)

    def __iter__(self):
        return indexing.iterate(self)

    def _scalar(self, kind):
        _graph_checks.reject_symbolic(self, "number")
        array = self._numpy()
        if array.size != 1:
            raise ValueError(f"only a tensor with one element can be converted to {kind.__name__}, "
                             f"got shape {self.shape}")
        return kind(array.reshape(()))

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __complex__(self):
        return self._scalar(complex)

    def __bool__(self):
        _graph_checks.reject_symbolic(self, "bool")
        # As tf.Tensor (which asks NumPy): one element decides; more are ambiguous.
        array = self._numpy()
        if array.size > 1:
            raise ValueError("The truth value of an array with more than one element is ambiguous. "
                             "Use a.any() or a.all()")
        if array.size == 0:
            raise ValueError("The truth value of an empty tensor is ambiguous: bool() needs one element")
        return bool(array.reshape(()))

    def __index__(self):
        # As NumPy and tf.Tensor: only an integer scalar is an index (not a
        # one-element vector, not a bool).
        _graph_checks.reject_symbolic(self, "number")
        if not self.dtype.is_integer or self.ndim != 0:
            raise TypeError(f"only integer scalar tensors can be converted to a scalar index, "
                            f"got a {self.dtype.name} tensor of shape {self.shape}")
        return int(self._numpy())

    # Note: repr and str never raise (ember/_tensor_repr.py): a failed
    # op's tensor shows its error, a traced one that it is symbolic.
    def __repr__(self):
        return _tensor_repr.tensor_repr(self)

    def __str__(self):
        return _tensor_repr.tensor_str(self)

    def _repr_html_(self):
        return _tensor_repr.tensor_html(self)

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._numpy().item(), spec)
        return str(self)


Tensor = _C.Tensor
Tensor.__doc__ = """A value produced by an op, possibly still being computed.

``shape``, ``dtype`` and ``device`` are known at once. Reading the value
(``numpy()``, ``print``, ``float()``, ``bool()``) waits for it, and raises
the error of the op that failed if it did.
"""
for _name, _value in vars(_TensorMethods).items():
    if _name not in ("__module__", "__dict__", "__weakref__", "__doc__", "__qualname__"):
        setattr(Tensor, _name, _value)
del _name, _value

"""ember.Tensor: the Python face of a tensor handle."""

import numpy as np

from ember import _C, _indexing as indexing


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

    def numpy(self):
        """Waits for the value; returns a read-only NumPy view of it (no copy).

        Use ``np.array(t)`` for a writable copy.
        """
        return self._numpy()

    def __array__(self, dtype=None, copy=None):
        array = self._numpy()
        if dtype is not None and np.dtype(dtype) != array.dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

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
        array = self._numpy()
        if array.size != 1:
            raise ValueError(f"only a tensor with one element can be converted to {kind.__name__}, "
                             f"got shape {self.shape}")
        return kind(array.reshape(()))

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __bool__(self):
        return self._scalar(bool)

    def __index__(self):
        if not self.dtype.is_integer:
            raise TypeError(f"only integer tensors can be used as an index, got {self.dtype.name}")
        return self._scalar(int)

    def __repr__(self):
        value = np.array2string(self._numpy(), separator=", ", threshold=100)
        return (f"<ember.Tensor shape={self.shape} dtype={self.dtype.name} device={self.device} "
                f"value={value}>")

    def __str__(self):
        return f"ember.Tensor({self._numpy()}, shape={self.shape}, dtype={self.dtype.name})"

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

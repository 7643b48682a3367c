"""Ember's element types: ``ember.float32`` and friends."""

import builtins

import numpy as np


class DType:
    """An element type. Compare with ``==`` against DTypes, names or NumPy dtypes."""

    __slots__ = ("name", "_code", "_numpy")

    def __init__(self, name, code, numpy_dtype):
        self.name = name
        self._code = code
        self._numpy = np.dtype(numpy_dtype)

    @property
    def as_numpy_dtype(self):
        return self._numpy.type

    @property
    def size(self):
        """Bytes per element."""
        return self._numpy.itemsize

    @property
    def is_floating(self):
        return self._numpy.kind == "f"

    @property
    def is_integer(self):
        return self._numpy.kind in "iu"

    @property
    def is_bool(self):
        return self._numpy.kind == "b"

    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other
        try:
            return as_dtype(other) is self
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"ember.{self.name}"

    def __reduce__(self):
        return as_dtype, (self.name,)


# The order matches the C++ enum DType (csrc/core/dtype.h).
bool = DType("bool", 0, np.bool_)  # noqa: A001 - TensorFlow's name
int32 = DType("int32", 1, np.int32)
int64 = DType("int64", 2, np.int64)
float32 = DType("float32", 3, np.float32)
float64 = DType("float64", 4, np.float64)

ALL_DTYPES = (bool, int32, int64, float32, float64)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({"float": float32, "double": float64})


def as_dtype(value):
    """Converts a DType, name, NumPy dtype or Python type to an ember DType."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError(f"unknown dtype {value!r}; expected one of {sorted(_BY_NAME)}")
    if value is builtins.bool:
        return bool
    if value is builtins.int:
        return int32
    if value is builtins.float:
        return float32
    try:
        name = np.dtype(value).name
    except TypeError:
        name = None
    if name in _BY_NAME:
        return _BY_NAME[name]
    raise TypeError(f"cannot interpret {value!r} as an ember dtype")

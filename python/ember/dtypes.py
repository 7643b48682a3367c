"""Ember's element types: ``ember.float32`` and friends.

bfloat16 values cross to and from NumPy as ``ml_dtypes.bfloat16`` arrays
(the ml_dtypes package registers that dtype with NumPy).

Note [ml_dtypes on demand]: ml_dtypes is imported the first time bfloat16
crosses to or from NumPy (``bfloat16.as_numpy_dtype``, a bfloat16 tensor
read as NumPy, Python values converted to bfloat16: csrc/python/
numpy_dtypes.cc), not with ember. Its import made 2.1 MiB of every ember
process resident and took 13 ms, and most programs never touch bfloat16;
bfloat16 ops between tensors need no NumPy dtype. A NumPy array of
bfloat16 needs ml_dtypes imported to exist, so the dtype is known whenever
one arrives; ``as_dtype`` matches it by name.
"""

import builtins as _builtins

import numpy as _np

from ember._checks import safe_repr as _safe_repr


def _ml_dtypes_bfloat16():
    """ml_dtypes.bfloat16, importing ml_dtypes now; None without it."""
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover - ml_dtypes is a declared dependency
        return None
    return ml_dtypes.bfloat16


class DType:
    """An element type. Compare with ``==`` against DTypes, names or NumPy dtypes."""

    __slots__ = ("name", "_code", "_numpy", "_numpy_loader", "_kind", "_size")

    def __init__(self, name, code, numpy_dtype, kind, size, numpy_loader=None):
        self.name = name
        self._code = code  # the C++ enum value (csrc/core/dtype.h)
        self._numpy = self._as_numpy(numpy_dtype)
        # Called once for the NumPy type when there is none yet: bfloat16's
        # (Note [ml_dtypes on demand]).
        self._numpy_loader = numpy_loader
        self._kind = kind  # "b", "i", "u", "f" or "c", as NumPy's dtype.kind; "s" for string
        self._size = size

    @staticmethod
    def _as_numpy(numpy_dtype):
        try:
            return None if numpy_dtype is None else _np.dtype(numpy_dtype)
        except (TypeError, ValueError, RecursionError):
            raise TypeError(f"DType: cannot interpret {_safe_repr(numpy_dtype)} as a NumPy dtype") from None

    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type (``ml_dtypes.bfloat16`` for bfloat16)."""
        if self._numpy is None and self._numpy_loader is not None:
            self._numpy = self._as_numpy(self._numpy_loader())
        if self._numpy is None:
            raise TypeError(f"{self.name} needs the ml_dtypes package, which could not be imported")
        return self._numpy.type

    @property
    def size(self):
        """Bytes per element."""
        return self._size

    @property
    def is_floating(self):
        return self._kind == "f"

    @property
    def is_integer(self):
        return self._kind in "iu"

    @property
    def is_unsigned(self):
        return self._kind in "ub"

    @property
    def is_complex(self):
        return self._kind == "c"

    @property
    def is_bool(self):
        return self._kind == "b"

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


# The order matches the C++ enum DType (csrc/core/dtype.h): new dtypes are
# appended, so existing codes never change.
bool = DType("bool", 0, _np.bool_, "b", 1)  # noqa: A001 - TensorFlow's name
int32 = DType("int32", 1, _np.int32, "i", 4)
int64 = DType("int64", 2, _np.int64, "i", 8)
float32 = DType("float32", 3, _np.float32, "f", 4)
float64 = DType("float64", 4, _np.float64, "f", 8)
float16 = DType("float16", 5, _np.float16, "f", 2)
bfloat16 = DType("bfloat16", 6, None, "f", 2, numpy_loader=_ml_dtypes_bfloat16)
int8 = DType("int8", 7, _np.int8, "i", 1)
int16 = DType("int16", 8, _np.int16, "i", 2)
uint8 = DType("uint8", 9, _np.uint8, "u", 1)
complex64 = DType("complex64", 10, _np.complex64, "c", 8)

ALL_DTYPES = (bool, int32, int64, float32, float64, float16, bfloat16, int8, int16, uint8, complex64)

# Note [Host string dtype]: the C++ core has no string dtype. `string` names
# the element type of ember's host-side string tensors (ember/_strings/),
# whose values are NumPy object arrays of bytes; it has no C++ code (None)
# and is not in ALL_DTYPES, the C++ enum's list.
string = DType("string", None, _np.object_, "s", 0)

_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME["string"] = string
_BY_NAME.update({"half": float16, "float": float32, "double": float64})


def as_dtype(type_value):
    """Converts a DType, name, NumPy dtype or Python type to an ember DType."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        if type_value in _BY_NAME:
            return _BY_NAME[type_value]
        raise TypeError(f"unknown dtype {_safe_repr(type_value)}; expected one of {sorted(_BY_NAME)}")
    if type_value is _builtins.bool:
        return bool
    if type_value is _builtins.int:
        return int32
    if type_value is _builtins.float:
        return float32
    if type_value is _builtins.complex:
        return complex64
    if type_value is _builtins.str or type_value is _builtins.bytes:
        return string
    try:
        numpy_dtype = _np.dtype(type_value)
        name = numpy_dtype.name
    except (TypeError, ValueError, RecursionError):  # NumPy recurses into nested lists
        numpy_dtype = name = None
    if numpy_dtype is not None and numpy_dtype.kind in "SUO":  # bytes, str, object: as tf.as_dtype
        return string
    if name in _BY_NAME:
        return _BY_NAME[name]
    raise TypeError(f"cannot interpret {_safe_repr(type_value)} as an ember dtype")

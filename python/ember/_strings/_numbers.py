"""ember.strings ops between strings and numbers: to_number, as_string, format."""

import re

import numpy as np

from ember import _C, errors
from ember._checks import safe_repr
from ember.dtypes import as_dtype, float32
from ember._strings._shape_ops import as_strings
from ember._strings._value import StringTensor, from_array, host_numeric

# What strtod and strtoll accept (decimal only), with the surrounding whitespace TensorFlow allows.
_FLOAT = re.compile(rb"\s*[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)\s*", re.IGNORECASE)
_INT = re.compile(rb"\s*[+-]?\d+\s*")


def to_number(input, out_type=float32, name=None):  # noqa: A002 - TensorFlow's name
    """Parses each string as a number of ``out_type`` (float32, float64, int32 or int64); a string
    that is not one, or an integer out of range, is an InvalidArgumentError."""
    del name
    out_type = as_dtype(out_type)
    if out_type.name not in ("float32", "float64", "int32", "int64"):
        raise TypeError(f"to_number: out_type must be float32, float64, int32 or int64, got {out_type.name}")
    tensor = as_strings(input, "to_number")
    numpy_type = np.dtype(out_type.as_numpy_dtype)
    pattern = _FLOAT if out_type.is_floating else _INT
    values = []
    for v in tensor._array.flat:
        if pattern.fullmatch(v) is None:
            raise errors.InvalidArgumentError(f"to_number: cannot convert {v!r} to {out_type.name}")
        if out_type.is_floating:
            values.append(float(v))
            continue
        number = int(v)
        info = np.iinfo(numpy_type)
        if not info.min <= number <= info.max:
            raise errors.InvalidArgumentError(f"to_number: {v!r} is out of range for {out_type.name}")
        values.append(number)
    array = np.array(values, dtype=numpy_type).reshape(tensor._array.shape)
    return _C.convert_to_tensor(array, None)


def _float_format(precision, scientific, shortest, flags, width):
    if scientific and shortest:
        raise ValueError("as_string: scientific and shortest cannot both be set")
    letter = "e" if scientific else "g" if shortest else "f"
    return f"%{flags}{width}{'' if precision < 0 else '.' + str(precision)}{letter}"


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """Each number as a string, as C's printf writes it: ``%f`` for floats (``%e`` with
    ``scientific``, ``%g`` with ``shortest``, ``precision`` digits), ``%d`` for integers,
    ``true``/``false`` for bools, ``(re,im)`` for complex values. ``width`` pads to that many
    characters with spaces, or with the printf flag in ``fill`` ('0', ' ', '+', '-' or '#')."""
    del name
    if isinstance(input, StringTensor):
        raise TypeError("as_string: input must be a numeric tensor, got a string tensor")
    array = host_numeric(input, "as_string")
    if array.dtype.kind not in "biufc" and array.dtype.name != "bfloat16":
        raise TypeError(f"as_string: input must be numeric, got {array.dtype}")
    if len(fill) > 1 or (fill and fill not in " +-0#"):
        raise ValueError(f"as_string: fill must be one of ' ', '+', '-', '0', '#' (or empty), got {safe_repr(fill)}")
    width = "" if width < 0 else str(width)
    if array.dtype.kind in "iub":
        if precision >= 0 or scientific or shortest:
            raise ValueError(f"as_string: precision, scientific and shortest apply to floating-point and complex "
                             f"inputs, not {array.dtype}")
        if array.dtype.kind == "b":
            def text(v):
                return f"%{fill}{width}s" % ("true" if v else "false")
        else:
            def text(v):
                return f"%{fill}{width}d" % int(v)
    elif array.dtype.kind == "c":
        number = _float_format(precision, scientific, shortest, "", "")
        pattern = f"({number},{number})"

        def text(v):
            return f"%{fill}{width}s" % (pattern % (float(v.real), float(v.imag)))
    else:
        pattern = _float_format(precision, scientific, shortest, fill, width)

        def text(v):
            return pattern % float(v)
    out = np.empty(array.shape, object)
    out.flat[:] = [text(v).encode("ascii") for v in array.flat]
    return from_array(out)


def _element_text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    if isinstance(value, (float, np.floating)):
        return np.format_float_positional(value, trim="-") if np.isfinite(value) else str(value)
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    return str(value)


def summarize_text(array, summarize, quote, depth=0):
    """A tensor's text as in tf.print: nested brackets, elements separated by spaces (rows by
    newlines, indented), at most `summarize` first and last entries per dimension (all for -1)."""
    def element(value):
        text = _element_text(value)
        return f'"{text}"' if quote else text

    if array.ndim == 0:
        return element(array[()])
    n = array.shape[0]
    shown = list(range(n))
    if 0 <= summarize and 2 * summarize < n:
        shown = list(range(summarize)) + [None] + list(range(n - summarize, n))
    items = ["..." if i is None else element(array[i]) if array.ndim == 1 else
             summarize_text(array[i], summarize, quote, depth + 1) for i in shown]
    separator = " " if array.ndim == 1 else "\n" * (array.ndim - 1) + " " * (depth + 1)
    return "[" + separator.join(items) + "]"


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 - TensorFlow's name
    """``template`` with each ``placeholder`` replaced by the text of the next tensor of ``inputs``
    (a scalar as its value, others as ``[1 2 3]``; strings inside tensors are quoted). Exactly one
    tensor per placeholder."""
    del name
    if isinstance(template, bytes):
        template = template.decode("utf-8")
    if not isinstance(template, str) or not isinstance(placeholder, str) or not placeholder:
        raise TypeError("format: template and placeholder must be strings (placeholder non-empty)")
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise errors.InvalidArgumentError(f"format: the template has {len(pieces) - 1} placeholders but "
                                          f"{len(inputs)} inputs were given")
    texts = []
    for value in inputs:
        if isinstance(value, StringTensor):
            array = value._array
        else:
            try:
                array = host_numeric(value, "format")
            except TypeError:
                array = as_strings(value, "format")._array
            if array.dtype.kind in "SU":
                array = as_strings(value, "format")._array
        texts.append(summarize_text(np.asarray(array), summarize, quote=array.ndim > 0 and array.dtype == object))
    out = np.empty((), object)
    out[()] = "".join(p + t for p, t in zip(pieces, texts + [""])).encode("utf-8")
    return from_array(out)

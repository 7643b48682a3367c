"""ember.strings ops on text: join, length, substr, case, strip, reduce_join, regexes."""

import re

import numpy as np

from ember import _C, errors
from ember._checks import safe_repr
from ember.dtypes import int32
from ember._strings._shape_ops import as_strings
from ember._strings._value import StringTensor, from_array, host_numeric


def map_bytes(fn, tensor, op):
    """fn applied to each element (bytes -> bytes) of a string tensor, same shape."""
    tensor = as_strings(tensor, op)
    out = np.empty(tensor._array.shape, object)
    out.flat[:] = [fn(v) for v in tensor._array.flat]
    return from_array(out)


def map_numeric(fn, tensor, op, dtype):
    """fn applied to each element (bytes -> number) of a string tensor, as an ember tensor of `dtype`."""
    tensor = as_strings(tensor, op)
    out = np.array([fn(v) for v in tensor._array.flat], dtype=np.dtype(dtype.as_numpy_dtype))
    return _C.convert_to_tensor(out.reshape(tensor._array.shape), None)


def _broadcast(arrays, op):
    try:
        return np.broadcast_arrays(*arrays)
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise errors.InvalidArgumentError(f"{op}: the input shapes {shapes} do not broadcast") from None


def _text(value, op, arg):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"{op}: {arg} must be a str, got {safe_repr(value)}")


def concat_elementwise(x, y):
    """x + y on string tensors: the element-wise concatenation, with broadcasting."""
    return join([x, y])


def join(inputs, separator="", name=None):
    """Joins the strings of the tensors in ``inputs`` element-wise (shapes broadcast)."""
    del name
    sep = _text(separator, "join", "separator")
    if isinstance(inputs, (StringTensor, str, bytes)):
        inputs = [inputs]
    arrays = [as_strings(v, "join")._array for v in inputs]
    if not arrays:
        raise ValueError("join: inputs must hold at least one tensor")
    arrays = _broadcast(arrays, "join")
    out = np.empty(arrays[0].shape, object)
    out.flat[:] = [sep.join(parts) for parts in zip(*(a.flat for a in arrays))]
    return from_array(out)


def _check_unit(unit, op):
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"{op}: unit must be 'BYTE' or 'UTF8_CHAR', got {safe_repr(unit)}")
    return unit


def _decode_utf8(value, op):
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as e:
        raise errors.InvalidArgumentError(f"{op}: {value!r} is not valid UTF-8 ({e.reason} at byte {e.start})") \
            from None


def utf8_char_count(value):
    """The number of UTF-8 characters, counted as TensorFlow does: every byte that is not a continuation
    byte (10xxxxxx) starts one, so invalid UTF-8 is counted without an error."""
    return sum(1 for b in value if b & 0xC0 != 0x80)


def length(input, unit="BYTE", name=None):  # noqa: A002 - TensorFlow's name
    """The length of each string as int32: bytes, or UTF-8 characters for ``unit="UTF8_CHAR"``."""
    del name
    count = len if _check_unit(unit, "length") == "BYTE" else utf8_char_count
    return map_numeric(count, input, "length", int32)


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 - TensorFlow's names
    """The substring of each string starting at ``pos`` with length ``len`` (cut at the end of the
    string). A negative pos counts from the end; a pos past the end is an InvalidArgumentError.
    ``pos`` and ``len`` broadcast against the input; ``unit="UTF8_CHAR"`` counts characters."""
    del name
    chars = _check_unit(unit, "substr") == "UTF8_CHAR"
    strings = as_strings(input, "substr")._array
    pos_a, len_a = host_numeric(pos, "substr"), host_numeric(len, "substr")
    for what, a in (("pos", pos_a), ("len", len_a)):
        if a.dtype.kind not in "iu":
            raise TypeError(f"substr: {what} must be integers, got {a.dtype}")
    strings, pos_a, len_a = _broadcast([strings, pos_a, len_a], "substr")
    out = np.empty(strings.shape, object)
    for i, (s, p, n) in enumerate(zip(strings.flat, pos_a.flat, len_a.flat)):
        text = _decode_utf8(s, "substr") if chars else s
        size = text.__len__()
        p, n = int(p), int(n)
        if n < 0:
            raise errors.InvalidArgumentError(f"substr: len must be non-negative, got {n}")
        if not -size <= p <= size:
            raise errors.InvalidArgumentError(f"substr: pos {p} is out of range for string {s!r} (length {size}) "
                                              f"at index {i}")
        p = p + size if p < 0 else p
        part = text[p:p + n]
        out.flat[i] = part.encode("utf-8") if chars else part
    return from_array(out)


def _check_encoding(encoding, op):
    if encoding not in ("", "utf-8", "UTF-8", "utf8"):
        raise ValueError(f"{op}: encoding must be '' (ASCII only) or 'utf-8', got {safe_repr(encoding)}")
    return encoding != ""


def lower(input, encoding="", name=None):  # noqa: A002
    """Lower-cases each string: ASCII letters only, or every letter with ``encoding="utf-8"``."""
    del name
    if _check_encoding(encoding, "lower"):
        return map_bytes(lambda v: _decode_utf8(v, "lower").lower().encode("utf-8"), input, "lower")
    return map_bytes(bytes.lower, input, "lower")  # bytes.lower changes ASCII letters only


def upper(input, encoding="", name=None):  # noqa: A002
    """Upper-cases each string: ASCII letters only, or every letter with ``encoding="utf-8"``."""
    del name
    if _check_encoding(encoding, "upper"):
        return map_bytes(lambda v: _decode_utf8(v, "upper").upper().encode("utf-8"), input, "upper")
    return map_bytes(bytes.upper, input, "upper")


def strip(input, name=None):  # noqa: A002
    """Removes leading and trailing ASCII whitespace from each string."""
    del name
    return map_bytes(bytes.strip, input, "strip")


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Joins the strings along ``axis`` (all of them for None) with ``separator``."""
    del name
    sep = _text(separator, "reduce_join", "separator")
    array = as_strings(inputs, "reduce_join")._array
    if axis is None:
        axes = tuple(range(array.ndim))
    else:
        axes = tuple(int(a) for a in np.ravel(host_numeric(axis, "reduce_join")))
        for a in axes:
            if not -array.ndim <= a < max(array.ndim, 1):
                raise errors.InvalidArgumentError(f"reduce_join: axis {a} is out of range for a tensor of rank "
                                                  f"{array.ndim}")
        axes = tuple(sorted({a % array.ndim for a in axes})) if array.ndim else ()
    kept = [d for d in range(array.ndim) if d not in axes]
    moved = np.transpose(array, kept + list(axes)) if array.ndim else array
    rows = moved.reshape([array.shape[d] for d in kept] + [-1])
    out = np.empty(rows.shape[:-1], object)
    for index in np.ndindex(out.shape):
        out[index] = sep.join(rows[index])
    if keepdims:
        out = out.reshape([1 if d in axes else array.shape[d] for d in range(array.ndim)])
    return from_array(out)


def _pattern(pattern, op):
    pattern = _text(pattern.numpy() if isinstance(pattern, StringTensor) else pattern, op, "pattern")
    try:
        return re.compile(pattern)
    except re.error as e:
        raise errors.InvalidArgumentError(f"{op}: invalid pattern {pattern!r}: {e}") from None


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches ``pattern`` (Python's ``re`` syntax, close to RE2's)."""
    del name
    compiled = _pattern(pattern, "regex_full_match")
    tensor = as_strings(input, "regex_full_match")
    out = np.array([compiled.fullmatch(v) is not None for v in tensor._array.flat], dtype=np.bool_)
    return _C.convert_to_tensor(out.reshape(tensor._array.shape), None)


_REWRITE_PART = re.compile(rb"\\(\\|[0-9])|\\")


def _rewriter(rewrite, groups, op):
    """RE2's rewrite string as a function of a match: \\0 to \\9 are groups, \\\\ is a backslash."""
    parts = []
    last = 0
    for m in _REWRITE_PART.finditer(rewrite):
        parts.append(rewrite[last:m.start()])
        if m.group(1) is None:
            raise errors.InvalidArgumentError(f"{op}: invalid rewrite {rewrite!r}: a backslash must be followed "
                                              "by a digit or a backslash")
        parts.append(b"\\" if m.group(1) == b"\\" else int(m.group(1)))
        if isinstance(parts[-1], int) and parts[-1] > groups:
            raise errors.InvalidArgumentError(f"{op}: rewrite {rewrite!r} refers to group {parts[-1]} but the "
                                              f"pattern has {groups}")
        last = m.end()
    parts.append(rewrite[last:])

    def expand(match):
        return b"".join(p if isinstance(p, bytes) else (match.group(p) or b"") for p in parts)

    return expand


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replaces the matches of ``pattern`` in each string by ``rewrite`` (``\\1`` is group 1, ``\\0`` the
    match), every match or only the first (``replace_global=False``)."""
    del name
    compiled = _pattern(pattern, "regex_replace")
    rewrite = _text(rewrite.numpy() if isinstance(rewrite, StringTensor) else rewrite, "regex_replace", "rewrite")
    expand = _rewriter(rewrite, compiled.groups, "regex_replace")
    count = 0 if replace_global else 1
    return map_bytes(lambda v: compiled.sub(expand, v, count=count), input, "regex_replace")


# StringTensor's + (Note [StringTensor methods] in _value.py).
def _radd(self, other):
    return concat_elementwise(other, self)


StringTensor.__add__, StringTensor.__radd__ = concat_elementwise, _radd

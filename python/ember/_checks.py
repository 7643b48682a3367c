"""Argument checks for hand-written Python entry points.

Bad arguments raise ``TypeError`` (wrong type) or ``ValueError`` (right type,
bad value) with a message that names the function and the argument, instead
of whatever a deeper layer (pybind11, NumPy) would say.
"""

import operator
import reprlib

_repr = reprlib.Repr()
_repr.maxlevel = 3
_repr.maxstring = 60
_repr.maxother = 60


def safe_repr(value):
    """A short repr for error messages: bounded in depth and length, so a
    deeply nested or huge argument cannot make the message itself fail."""
    try:
        return _repr.repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        return f"<{type(value).__name__} object>"


def check_int(value, func, arg, *, minimum=None, maximum=None):
    """Returns ``value`` as an int (bools and floats are refused)."""
    if isinstance(value, bool):
        raise TypeError(f"{func}: {arg} must be an int, got bool {value!r}")
    try:
        result = operator.index(value)
    except TypeError:
        raise TypeError(f"{func}: {arg} must be an int, got {type(value).__name__} {safe_repr(value)}") from None
    if minimum is not None and result < minimum:
        raise ValueError(f"{func}: {arg} must be at least {minimum}, got {result}")
    if maximum is not None and result > maximum:
        raise ValueError(f"{func}: {arg} must be at most {maximum}, got {result}")
    return result


def check_str(value, func, arg):
    """Returns ``value`` if it is a str that can be encoded as UTF-8."""
    if not isinstance(value, str):
        raise TypeError(f"{func}: {arg} must be a str, got {type(value).__name__} {safe_repr(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{func}: {arg} is not valid text (it cannot be encoded as UTF-8)") from None
    return value

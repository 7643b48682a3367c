"""Which outcomes of a call are acceptable, and the finding class of those that are not.

Bad input may raise TypeError, ValueError, IndexError, MemoryError,
NotImplementedError or OverflowError (Python's own error for an int too big
for a C type), or an ``ember.errors`` class, which subclasses one of those
or RuntimeError (FailedPreconditionError, CancelledError). A result is
acceptable too. Everything else is a finding:

- ``wrong-exception``: SystemError, AttributeError, KeyError, StopIteration,
  ZeroDivisionError, RecursionError, a plain RuntimeError, ... leaking from
  the internals, and ``ember.errors.InternalError`` / ``UnknownError``
  (a bug by definition);
- ``raw-cpp-message``: a RuntimeError carrying a bare C++ exception text
  (``basic_string``, ``bad_variant_access``, ``stoi``);
- ``wrong-message``: pybind11's "incompatible function arguments"
  TypeError, whose message names a private binding and not the function;
- ``bad-result``: a result whose NumPy value disagrees with its shape, or
  whose shape no buffer could hold (an element count past 2**40 bytes).

Crashes (signals) and hangs are found by the parent process, not here.
"""

import re

import numpy as np

ALLOWED = (TypeError, ValueError, IndexError, MemoryError, NotImplementedError, OverflowError)
# Text that only a C++ exception's what() or a pybind11 internal produces.
RAW_CPP = re.compile(r"basic_string|bad_variant_access|bad_optional_access|bad_alloc|bad_any_cast|stoi|stol|stoll|"
                     r"stod|vector::|_M_|std::|out_of_range|length_error|invalid_argument|"
                     r"Unable to cast Python instance|Unable to convert function return value")


def _ember_errors():
    try:
        from ember import errors
    except ImportError:  # an older build without ember.errors
        return None, ()
    bad = tuple(getattr(errors, n) for n in ("InternalError", "UnknownError") if hasattr(errors, n))
    return getattr(errors, "OpError", None), bad


def classify(exc):
    """None if `exc` is an acceptable answer to bad input, else the finding's kind."""
    op_error, bad_op_errors = _ember_errors()
    if bad_op_errors and isinstance(exc, bad_op_errors):
        return "wrong-exception"
    message = str(exc)
    if isinstance(exc, TypeError) and "incompatible function arguments" in message:
        return "wrong-message"
    if isinstance(exc, ALLOWED) or (op_error is not None and isinstance(exc, op_error)):
        if RAW_CPP.search(message) and not re.match(r"^[\w.]+: ", message):
            return "raw-cpp-message"
        return None
    if isinstance(exc, RuntimeError) and RAW_CPP.search(message):
        return "raw-cpp-message"
    return "wrong-exception"


def check_result(out):
    """A 'bad-result' text if a tensor in the result reads back with the wrong shape or dtype."""
    import ember

    if isinstance(out, (list, tuple)):
        for item in out:
            problem = check_result(item)
            if problem:
                return problem
        return None
    if isinstance(out, ember.Tensor):
        count = 1
        for d in out.shape:
            count *= d
        if count * out.dtype.size > 1 << 40:  # no such buffer exists: an overflowed or unchecked shape
            return f"returned a tensor of shape {tuple(out.shape)} ({count} elements)"
        array = out.numpy()
        if tuple(array.shape) != tuple(out.shape) or any(d < 0 for d in out.shape):
            return f"shape {tuple(out.shape)} reads back as an array of shape {array.shape}"
        if np.dtype(array.dtype) != np.dtype(out.dtype.as_numpy_dtype):
            return f"dtype {out.dtype.name} reads back as {array.dtype}"
    return None


def message_pattern(message):
    """The message with numbers, quoted text and addresses blanked, for grouping findings."""
    message = message.splitlines()[0] if message else ""
    message = re.sub(r"0x[0-9a-fA-F]+", "0x?", message)
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "'?'", message)
    message = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", message)
    message = re.sub(r"\[[N, ]*\]|\([N, ]*\)", "[..]", message)
    return message[:160]

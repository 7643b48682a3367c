"""Ember's exception classes, named as in ``tf.errors``.

Each class is also the built-in Python exception a Python programmer would
catch, so both ``except ember.errors.InvalidArgumentError`` and ``except
ValueError`` work. Errors from the C++ runtime are raised as these classes
(``csrc/python/status_to_python.cc``); which call raises which error is
described in docs/architecture.md ("Errors").
"""

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError", "NotFoundError", "AlreadyExistsError",
    "ResourceExhaustedError", "FailedPreconditionError", "OutOfRangeError", "UnimplementedError",
    "InternalError", "DataLossError", "OperatorNotAllowedInGraphError", "DeadlineExceededError",
    "UnavailableError",
]

# The numeric codes of tf.errors (and of absl::StatusCode).
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15


class OpError(Exception):
    """The base class of errors raised by ops and the runtime.

    ``OpError(message)``, or TensorFlow's ``OpError(node_def, op, message,
    error_code)``. ``message`` holds the text, which names the op first
    (``"gather: ..."``).
    """

    error_code = UNKNOWN

    def __init__(self, *args):
        if len(args) == 4:
            node_def, op, message, error_code = args
            self.node_def, self.op, self.error_code = node_def, op, error_code
        else:
            message = args[0] if args else ""
            self.node_def = self.op = None
        self.message = message
        super().__init__(message)

    def __reduce__(self):
        return type(self), (self.message,)


class CancelledError(OpError):
    """An operation was cancelled (for example by a KeyboardInterrupt)."""
    error_code = CANCELLED


class UnknownError(OpError):
    """An error of no other class."""
    error_code = UNKNOWN


class InvalidArgumentError(OpError, ValueError):
    """An op received an invalid argument: a bad shape, index, attribute or value."""
    error_code = INVALID_ARGUMENT


class DeadlineExceededError(OpError, TimeoutError):
    """An operation did not finish in time (a collective that other workers never joined)."""
    error_code = DEADLINE_EXCEEDED


class NotFoundError(OpError, LookupError):
    """Something requested (an op, a device, a function) does not exist."""
    error_code = NOT_FOUND


class AlreadyExistsError(OpError):
    """Something to be created (a file, a directory) exists already."""
    error_code = ALREADY_EXISTS


class ResourceExhaustedError(OpError, MemoryError):
    """Memory (or another resource) ran out; the runtime stays usable."""
    error_code = RESOURCE_EXHAUSTED


class FailedPreconditionError(OpError, RuntimeError):
    """The system is not in a state to run the operation (a failed device, say)."""
    error_code = FAILED_PRECONDITION


class OutOfRangeError(OpError, IndexError):
    """An index or iteration went past a valid range."""
    error_code = OUT_OF_RANGE


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not implemented for these arguments or this device."""
    error_code = UNIMPLEMENTED


class InternalError(OpError, RuntimeError):
    """An invariant of the runtime broke: a bug in Ember; please report it."""
    error_code = INTERNAL


class UnavailableError(OpError, ConnectionError):
    """A service or peer is gone: another worker of a multi-worker job was lost."""
    error_code = UNAVAILABLE


class DataLossError(OpError, ValueError):
    """Data was lost or corrupted: a file cut short or failing its checksum (a checkpoint, a TFRecord)."""
    error_code = DATA_LOSS


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation that needs a tensor's value (``if tensor:``,
    ``float(tensor)``) was applied to a symbolic tensor inside
    ``@ember.function``, as in TensorFlow. The message names the line and the
    op to use instead (``ember.cond``, ``ember.while_loop``)."""

"""ember.io.read_file and ember.io.write_file."""

import os

import numpy as np

from ember import errors
from ember._strings._shape_ops import as_strings
from ember._strings._value import from_array
from ember.io._tensor_proto import check_path
from ember._context import HostCallbackInTrace, current_trace


def _stop_trace(func):
    """File I/O happens at each call: inside a trace, stop it so the function runs eagerly
    (Note [py_function in functions]); reading at trace time would freeze the contents."""
    if current_trace() is not None:
        raise HostCallbackInTrace(func)


def read_file(filename, name=None):
    """The whole contents of a file as a scalar string tensor; NotFoundError if it does not exist."""
    del name
    _stop_trace("read_file")
    path = check_path(filename, "read_file")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(f"read_file: {path}: no such file") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(f"read_file: {path} is a directory") from None
    out = np.empty((), object)
    out[()] = data
    return from_array(out)


def write_file(filename, contents, name=None):
    """Writes a scalar string tensor (or bytes / str) to a file, replacing it; creates missing
    parent directories, as TensorFlow does."""
    del name
    _stop_trace("write_file")
    path = check_path(filename, "write_file")
    data = as_strings(contents, "write_file")
    if data.ndim != 0:
        raise errors.InvalidArgumentError(f"write_file: contents must be a scalar, got shape {data.shape}")
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.numpy())

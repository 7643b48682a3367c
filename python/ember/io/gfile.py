"""ember.io.gfile: files on the local file system (``tf.io.gfile``), with tf's _errors.

Paths are local paths (str or _os.PathLike); TensorFlow's other file systems
(gs://, s3://, hdfs://) are not supported. A missing file or directory
raises ``ember._errors.NotFoundError``.
"""

import builtins as _builtins
import contextlib as _contextlib
import glob as _glob
import os as _os
import shutil as _shutil

from ember import errors as _errors

__all__ = ["GFile", "copy", "exists", "glob", "isdir", "join", "listdir", "makedirs", "mkdir", "remove", "rename",
           "rmtree", "stat", "walk"]


def _path(path, func):
    path = _os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode("utf-8")
    if "://" in path:
        raise _errors.UnimplementedError(f"{func}: only local paths are supported, got {path!r}")
    return path


@_contextlib.contextmanager
def _os_errors(func, path):
    """OSErrors as tf.errors classes: a missing path is NotFoundError."""
    try:
        yield
    except FileNotFoundError:
        raise _errors.NotFoundError(f"{func}: {path}: no such file or directory") from None
    except FileExistsError:
        raise _errors.AlreadyExistsError(f"{func}: {path}: already exists") from None
    except OSError as e:
        raise _errors.FailedPreconditionError(f"{func}: {path}: {e.strerror or e}") from None


class GFile:
    """A file object (``tf.io.gfile.GFile``): ``mode`` 'r', 'w', 'a' with 'b' for bytes; text
    modes read and write str (UTF-8). Usable as a context manager and iterable by lines."""

    def __init__(self, name, mode="r"):
        self.name = _path(name, "GFile")
        self.mode = mode
        if mode.replace("b", "").replace("+", "") not in ("r", "w", "a"):
            raise _errors.InvalidArgumentError(f"GFile: mode must be 'r', 'w' or 'a' (with 'b' and '+'), got {mode!r}")
        with _os_errors("GFile", self.name):
            if "b" in mode:
                self._file = _builtins.open(self.name, mode)
            else:
                self._file = _builtins.open(self.name, mode, encoding="utf-8", newline="")

    def read(self, n=-1):
        return self._file.read(n)

    def readline(self):
        return self._file.readline()

    def readlines(self):
        return self._file.readlines()

    def write(self, file_content):
        if "b" in self.mode and isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        elif "b" not in self.mode and isinstance(file_content, bytes):
            file_content = file_content.decode("utf-8")
        self._file.write(file_content)

    def seek(self, offset=None, whence=0, position=None):
        self._file.seek(position if offset is None else offset, whence)
        return self.tell()

    def tell(self):
        return self._file.tell()

    def size(self):
        return _os.path.getsize(self.name)

    def flush(self):
        self._file.flush()

    def close(self):
        self._file.close()

    @property
    def closed(self):
        return self._file.closed

    def __iter__(self):
        return iter(self._file)

    def __next__(self):
        return next(self._file)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def exists(path):
    """Whether the path exists."""
    return _os.path.exists(_path(path, "exists"))


def isdir(path):
    """Whether the path is a directory."""
    return _os.path.isdir(_path(path, "isdir"))


def glob(pattern):
    """The paths matching a pattern (``*``, ``?``, ``[...]``), sorted."""
    return sorted(_glob.glob(_path(pattern, "glob")))


def listdir(path):
    """The names in a directory (not full paths), sorted; NotFoundError if it does not exist."""
    path = _path(path, "listdir")
    if not _os.path.isdir(path):
        raise _errors.NotFoundError(f"listdir: {path}: no such directory")
    with _os_errors("listdir", path):
        return sorted(_os.listdir(path))


def makedirs(path):
    """Creates a directory and its missing parents; an existing directory is fine."""
    path = _path(path, "makedirs")
    with _os_errors("makedirs", path):
        _os.makedirs(path, exist_ok=True)


def mkdir(path):
    """Creates one directory (its parent must exist)."""
    path = _path(path, "mkdir")
    with _os_errors("mkdir", path):
        _os.mkdir(path)


def remove(path):
    """Deletes a file; NotFoundError if it does not exist."""
    path = _path(path, "remove")
    with _os_errors("remove", path):
        _os.remove(path)


def rmtree(path):
    """Deletes a directory and everything under it."""
    path = _path(path, "rmtree")
    if not _os.path.exists(path):
        raise _errors.NotFoundError(f"rmtree: {path}: no such directory")
    with _os_errors("rmtree", path):
        _shutil.rmtree(path)


def rename(src, dst, overwrite=False):
    """Renames (moves) a file; an existing dst is an error unless ``overwrite``."""
    src, dst = _path(src, "rename"), _path(dst, "rename")
    if not overwrite and _os.path.exists(dst):
        raise _errors.AlreadyExistsError(f"rename: {dst}: already exists")
    with _os_errors("rename", src):
        _os.replace(src, dst)


def copy(src, dst, overwrite=False):
    """Copies a file; an existing dst is an error unless ``overwrite``."""
    src, dst = _path(src, "copy"), _path(dst, "copy")
    if not overwrite and _os.path.exists(dst):
        raise _errors.AlreadyExistsError(f"copy: {dst}: already exists")
    with _os_errors("copy", src):
        _shutil.copyfile(src, dst)


def walk(top, topdown=True, onerror=None):
    """(dirname, subdirs, files) for each directory under top, as _os.walk."""
    return _os.walk(_path(top, "walk"), topdown=topdown, onerror=onerror)


def stat(path):
    """An object with ``length`` (bytes), ``mtime_nsec`` and ``is_directory``."""
    path = _path(path, "stat")
    with _os_errors("stat", path):
        info = _os.stat(path)
    return _FileStatistics(info.st_size, info.st_mtime_ns, _os.path.isdir(path))


class _FileStatistics:
    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory


def join(path, *paths):
    """Joins path components (``_os.path.join``)."""
    return _os.path.join(path, *paths)

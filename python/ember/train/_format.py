# Ember's checkpoint file: reading, and atomic writing (format in docs/modules_and_checkpoints.md).

import json
import os
import struct
import tempfile
import zlib

import numpy as np

from ember.dtypes import as_dtype

MAGIC = b"EMBRCKPT"
VERSION = 1
SUFFIX = ".ckpt"
_HEADER = struct.Struct("<8sIQ")  # magic, format version, byte length of the JSON index
_ALIGN = 64


def file_for(prefix):
    """The file that holds the checkpoint named by ``prefix``."""
    return os.fspath(prefix) + SUFFIX


def write(prefix, object_graph, arrays):
    """Writes ``arrays`` ({key: NumPy array}) and the JSON-able ``object_graph`` as one file,
    atomically: a temporary file in the same directory, fsync'd, then renamed over the target."""
    index, chunks, offset = {}, [], 0
    for key, array in arrays.items():
        data = np.asarray(array)  # tobytes() below is C order
        if data.dtype.byteorder == ">":
            data = data.astype(data.dtype.newbyteorder("<"))
        raw = data.tobytes()
        index[key] = {"dtype": as_dtype(data.dtype).name, "shape": list(data.shape), "offset": offset,
                      "nbytes": len(raw), "crc32": zlib.crc32(raw)}
        pad = -len(raw) % _ALIGN  # each tensor starts 64-byte aligned
        chunks.append(raw + b"\0" * pad)
        offset += len(raw) + pad
    header = json.dumps({"version": VERSION, "object_graph": object_graph, "tensors": index},
                        sort_keys=True).encode("utf-8")
    header += b" " * (-(_HEADER.size + len(header)) % _ALIGN)
    atomic_write(file_for(prefix), [_HEADER.pack(MAGIC, VERSION, len(header)), header, *chunks])


def atomic_write(path, chunks):
    """Writes the byte strings ``chunks`` to ``path`` so that a crash leaves either the old file or the new one."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".tmp-" + os.path.basename(path) + "-")
    try:
        os.close(fd)
        with open(temp, "wb") as f:  # by name, so f.name says which file is being written
            for chunk in chunks:
                write_chunk(f, chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise
    _fsync_directory(directory)  # makes the rename itself durable


def write_chunk(f, chunk):
    # Its own function so a test can slow one write down and kill the writer mid-save.
    f.write(chunk)


def _fsync_directory(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # some platforms cannot open a directory
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read(prefix):
    """(object_graph, {key: NumPy array}) of the checkpoint named by ``prefix``."""
    path = file_for(prefix)
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except FileNotFoundError:
        raise FileNotFoundError(f"checkpoint {os.fspath(prefix)!r} not found: no file {path!r}") from None
    if len(blob) < _HEADER.size:
        raise ValueError(f"{path!r} is not an Ember checkpoint: the file is too short")
    magic, version, header_len = _HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise ValueError(f"{path!r} is not an Ember checkpoint (bad magic bytes)")
    if version > VERSION:
        raise ValueError(f"{path!r} has checkpoint format version {version}; this Ember reads up to {VERSION}")
    start = _HEADER.size + header_len
    header = json.loads(blob[_HEADER.size:start].decode("utf-8"))
    arrays = {}
    for key, entry in header["tensors"].items():
        raw = blob[start + entry["offset"]:start + entry["offset"] + entry["nbytes"]]
        if len(raw) != entry["nbytes"] or zlib.crc32(raw) != entry["crc32"]:
            raise ValueError(f"{path!r} is corrupt: the data of {key!r} is truncated or fails its checksum")
        dtype = np.dtype(as_dtype(entry["dtype"]).as_numpy_dtype).newbyteorder("<")
        arrays[key] = np.frombuffer(raw, dtype=dtype).reshape(entry["shape"])
    return header["object_graph"], arrays

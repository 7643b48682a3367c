# Reading TensorFlow's tensor bundle (a checkpoint's .index and .data-NNNNN-of-NNNNN files) into NumPy arrays.

import functools
import glob
import math
import os
import struct

import numpy as np

from ember._wire import crc32c
from ember._wire.protowire import Field, ProtoError, decode, read_varint
from ember.dtypes import bfloat16
from ember.errors import DataLossError, NotFoundError, UnimplementedError
from ember.train._bundle import table

# Note [Tensor bundle]: `<prefix>.index` is a table (Note [Table layout])
# from tensor names to BundleEntryProto messages: dtype, shape, which data
# file (shard), the byte offset and size there, and the masked CRC-32C of
# those bytes. The entry with the empty key is a BundleHeaderProto: the
# number of data files and the byte order of the tensor data. A numeric
# tensor's bytes are its elements in C order. A string tensor's bytes are
# each element's length as a varint, the masked CRC-32C of the lengths (each
# as a 4-byte integer, or 8 bytes if it does not fit in 4), then the
# elements' bytes; its entry's checksum covers the lengths (in that fixed-size
# form), the stored length checksum and the element bytes. A partitioned
# tensor's entry lists slices instead of data, and each slice has its own
# entry under a key that starts with a NUL byte.

_VERSION = {1: Field("producer", "int32"), 2: Field("min_consumer", "int32"),
            3: Field("bad_consumers", "int32", repeated=True)}
HEADER = {1: Field("num_shards", "int32"), 2: Field("endianness", "enum"),
           3: Field("version", "message", message=_VERSION)}
_DIM = {1: Field("size", "int64"), 2: Field("name", "string")}
_SHAPE = {2: Field("dim", "message", repeated=True, message=_DIM), 3: Field("unknown_rank", "bool")}
_EXTENT = {1: Field("start", "int64"), 2: Field("length", "int64")}
_SLICE = {1: Field("extent", "message", repeated=True, message=_EXTENT)}
ENTRY = {1: Field("dtype", "enum"), 2: Field("shape", "message", message=_SHAPE), 3: Field("shard_id", "int32"),
          4: Field("offset", "int64"), 5: Field("size", "int64"), 6: Field("crc32c", "fixed32"),
          7: Field("slices", "message", repeated=True, message=_SLICE)}

BUNDLE_VERSION = 1  # the format version this reader understands (TensorFlow's kTensorBundleVersion)
_BIG_ENDIAN = 1


# TensorFlow's DataType enum: number -> (name, NumPy dtype, or None for
# strings). bfloat16's NumPy dtype is ml_dtypes', imported at first use
# (Note [ml_dtypes on demand] in ember/dtypes.py), so the table is built by
# dtypes() on first call.
@functools.cache
def dtypes():
    return {
        1: ("float32", np.dtype(np.float32)), 2: ("float64", np.dtype(np.float64)), 3: ("int32", np.dtype(np.int32)),
        4: ("uint8", np.dtype(np.uint8)), 5: ("int16", np.dtype(np.int16)), 6: ("int8", np.dtype(np.int8)),
        7: ("string", None), 8: ("complex64", np.dtype(np.complex64)), 9: ("int64", np.dtype(np.int64)),
        10: ("bool", np.dtype(np.bool_)), 14: ("bfloat16", np.dtype(bfloat16.as_numpy_dtype)),
        17: ("uint16", np.dtype(np.uint16)),
        18: ("complex128", np.dtype(np.complex128)), 19: ("float16", np.dtype(np.float16)),
        22: ("uint32", np.dtype(np.uint32)), 23: ("uint64", np.dtype(np.uint64)),
    }


_OTHER_DTYPES = {0: "invalid", 11: "qint8", 12: "quint8", 13: "qint32", 15: "qint16", 16: "quint16",
                 20: "resource", 21: "variant"}


def index_file(prefix):
    return os.fspath(prefix) + ".index"


def data_file(prefix, shard, num_shards):
    return f"{os.fspath(prefix)}.data-{shard:05d}-of-{num_shards:05d}"


def remove_bundle(prefix):
    """Deletes the bundle's files, the index first (so no reader sees an index without data)."""
    data_files = sorted(glob.glob(glob.escape(os.fspath(prefix)) + ".data-?????-of-?????"))
    for path in [index_file(prefix)] + data_files:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


def is_bundle(prefix):
    """Whether ``prefix`` names a tensor bundle (its .index file exists)."""
    return os.path.isfile(index_file(prefix))


class BundleReader:
    """The tensors of the bundle named by ``prefix``; the index is read and checked at once, data on request."""

    def __init__(self, prefix):
        self.prefix = os.fspath(prefix)
        self.index_path = index_file(self.prefix)
        try:
            with open(self.index_path, "rb") as f:
                blob = f.read()
        except FileNotFoundError:
            raise NotFoundError(f"checkpoint {self.prefix!r} not found: no file {self.index_path!r}") from None
        rows = table.read_table(self.index_path, blob)
        if not rows or rows[0][0] != b"":
            raise DataLossError(f"{self.index_path!r} has no bundle header entry (not a TensorFlow checkpoint?)")
        header = self._decode(rows[0][1], HEADER, "the bundle header")
        self.num_shards = header["num_shards"]
        self.big_endian = header["endianness"] == _BIG_ENDIAN
        version = header["version"] or {"producer": 0, "min_consumer": 0, "bad_consumers": []}
        if version["min_consumer"] > BUNDLE_VERSION or BUNDLE_VERSION in version["bad_consumers"]:
            raise UnimplementedError(f"{self.index_path!r} needs a reader of bundle format version "
                                     f"{version['min_consumer']} or later; Ember reads version {BUNDLE_VERSION}")
        if self.num_shards < 1 and len(rows) > 1:
            raise DataLossError(f"{self.index_path!r}: the bundle header says {self.num_shards} data files")
        self._entries = {}
        for key, value in rows[1:]:
            if key.startswith(b"\0"):
                continue  # the data of one slice of a partitioned tensor (Note [Tensor bundle])
            try:
                name = key.decode("utf-8")
            except UnicodeDecodeError:
                raise DataLossError(f"{self.index_path!r}: tensor name {key!r} is not UTF-8") from None
            self._entries[name] = self._decode(value, ENTRY, f"the entry of {name!r}")

    def _decode(self, blob, schema, what):
        try:
            return decode(blob, schema)
        except ProtoError as e:
            raise DataLossError(f"{self.index_path!r}: {what} is corrupt: {e}") from None

    def keys(self):
        return list(self._entries)

    def __contains__(self, key):
        return key in self._entries

    def __getitem__(self, key):
        return self.tensor(key)

    def _entry(self, key):
        try:
            return self._entries[key]
        except KeyError:
            raise NotFoundError(f"key {key!r} not found in checkpoint {self.prefix!r}") from None

    def dtype_name(self, key):
        """TensorFlow's name of the tensor's dtype ("float32", "string", ...)."""
        number = self._entry(key)["dtype"]
        if number in dtypes():
            return dtypes()[number][0]
        return _OTHER_DTYPES.get(number, f"DataType {number}")

    def shape(self, key):
        """The tensor's shape, a tuple of ints."""
        shape = self._entry(key)["shape"] or {"dim": [], "unknown_rank": False}
        dims = tuple(d["size"] for d in shape["dim"])
        if shape["unknown_rank"] or any(d < 0 for d in dims):
            raise DataLossError(f"{self.index_path!r}: {key!r} has an invalid shape {dims}")
        return dims

    def tensor(self, key):
        """The tensor as a NumPy array (strings: an object array of bytes; 0-d: bytes)."""
        entry = self._entry(key)
        shape = self.shape(key)
        if entry["slices"]:
            raise UnimplementedError(
                f"{self.index_path!r}: {key!r} is saved as {len(entry['slices'])} slices (a partitioned "
                f"variable); Ember reads only tensors saved whole")
        number = entry["dtype"]
        if number not in dtypes():
            raise UnimplementedError(f"{self.index_path!r}: {key!r} has dtype {self.dtype_name(key)}, which "
                                     f"Ember cannot read from a checkpoint")
        dtype = dtypes()[number][1]
        count = math.prod(shape)
        if dtype is not None and entry["size"] != count * dtype.itemsize:
            raise DataLossError(f"{self.index_path!r}: {key!r} states {entry['size']} bytes of data, but "
                                f"{count} {dtypes()[number][0]} elements take {count * dtype.itemsize}")
        raw, path = self._read(key, entry)
        if dtype is None:
            return self._strings(key, entry, raw, count, shape, path)
        if raw and crc32c.value(raw) != crc32c.unmask(entry["crc32c"]):
            raise DataLossError(f"{path!r} is corrupt: the data of {key!r} ({entry['size']} bytes at offset "
                                f"{entry['offset']}) fails its CRC-32C checksum")
        array = np.frombuffer(raw, dtype.newbyteorder(">" if self.big_endian else "<")).reshape(shape)
        return array.astype(dtype, copy=True)  # native byte order, writable

    def _read(self, key, entry):
        """(the entry's data bytes, the data file's path)."""
        shard = entry["shard_id"]
        if not 0 <= shard < self.num_shards:
            raise DataLossError(f"{self.index_path!r}: {key!r} is in data file {shard}, but the bundle has "
                                f"{self.num_shards}")
        path = data_file(self.prefix, shard, self.num_shards)
        offset, size = entry["offset"], entry["size"]
        if offset < 0 or size < 0:
            raise DataLossError(f"{self.index_path!r}: {key!r} has a negative offset or size")
        try:
            with open(path, "rb") as f:
                if offset + size > os.fstat(f.fileno()).st_size:  # checked first: a corrupt size may be huge
                    raise DataLossError(f"{path!r} is truncated: {key!r} needs bytes {offset} to {offset + size}, "
                                        f"but the file has {os.fstat(f.fileno()).st_size}")
                f.seek(offset)
                raw = f.read(size)
        except FileNotFoundError:
            raise NotFoundError(f"checkpoint {self.prefix!r} is missing its data file {path!r} (it holds "
                                f"{key!r}); copy all {self.num_shards} .data files with the .index") from None
        if len(raw) != size:
            raise DataLossError(f"{path!r} changed while it was read ({key!r})")
        return raw, path

    def _strings(self, key, entry, raw, count, shape, path):
        corrupt = f"{path!r} is corrupt: the data of string tensor {key!r}"
        if not raw:  # TensorFlow writes nothing at all for some empty string tensors
            return np.empty(shape, dtype=object)
        lengths, pos, crc = [], 0, 0
        order = ">" if self.big_endian else "<"
        try:
            for _ in range(count):
                length, pos = read_varint(raw, pos)
                lengths.append(length)
                crc = crc32c.value(struct.pack(order + ("I" if length <= 0xFFFFFFFF else "Q"), length), crc)
        except ProtoError:
            raise DataLossError(f"{corrupt} ends inside its element lengths") from None
        if pos + 4 + sum(lengths) != len(raw):
            raise DataLossError(f"{corrupt} has {len(raw)} bytes, but its lengths need {pos + 4 + sum(lengths)}")
        (stored,) = struct.unpack_from(order + "I", raw, pos)
        if crc32c.unmask(stored) != crc:
            raise DataLossError(f"{corrupt} fails the checksum of its element lengths")
        crc = crc32c.value(raw[pos:], crc)  # the stored checksum and the element bytes
        if crc != crc32c.unmask(entry["crc32c"]):
            raise DataLossError(f"{corrupt} fails its CRC-32C checksum")
        out, pos = np.empty(count, dtype=object), pos + 4
        for i, length in enumerate(lengths):
            out[i] = raw[pos:pos + length]
            pos += length
        out = out.reshape(shape)
        return out[()] if out.ndim == 0 else out

# Writing a TensorFlow tensor bundle (one data file and an .index), so TensorFlow can read Ember's variables.

import functools
import glob
import os

import numpy as np

from ember._wire import crc32c
from ember._wire.protowire import encode, write_varint
from ember.train import _format
from ember.train._bundle import table
from ember.train._bundle.bundle import BUNDLE_VERSION, ENTRY, HEADER, data_file, dtypes, index_file

_STRING = 7


@functools.cache
def _enum_of():
    """NumPy dtype -> TensorFlow's DataType number."""
    return {dtype: number for number, (_, dtype) in dtypes().items() if dtype is not None}


def write_bundle(prefix, tensors):
    """Writes ``tensors`` ({key: NumPy array; strings as object arrays of bytes}) as the bundle ``prefix``:
    the data file first, then the index (which makes the bundle visible), each written atomically.
    Data files of an older bundle under the same prefix are removed afterwards."""
    prefix = os.fspath(prefix)
    data, rows = bytearray(), []
    for key in sorted(tensors, key=lambda k: k.encode("utf-8")):
        number, shape, raw, crc = _serialize(key, tensors[key])
        entry = {"dtype": number, "shape": {"dim": [{"size": d} for d in shape]}, "shard_id": 0,
                 "offset": len(data), "size": len(raw), "crc32c": crc32c.mask(crc)}
        data += raw
        rows.append((key.encode("utf-8"), encode(entry, ENTRY)))
    header = {"num_shards": 1, "endianness": 0, "version": {"producer": BUNDLE_VERSION}}
    index = table.build_table([(b"", encode(header, HEADER))] + rows)
    ours = data_file(prefix, 0, 1)
    _format.atomic_write(ours, [bytes(data)])
    _format.atomic_write(index_file(prefix), [index])
    for stale in glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        if stale != ours:
            os.remove(stale)


def _serialize(key, value):
    """(dtype number, shape, bytes, unmasked CRC-32C) of one tensor (Note [Tensor bundle])."""
    if isinstance(value, (bytes, str)) or (isinstance(value, np.ndarray) and value.dtype == object):
        strings = np.asarray(value, dtype=object)
        items = [s.encode("utf-8") if isinstance(s, str) else bytes(s) for s in strings.flat]
        lengths, crc = bytearray(), 0
        for item in items:
            lengths += write_varint(len(item))
            crc = crc32c.value(len(item).to_bytes(4 if len(item) <= 0xFFFFFFFF else 8, "little"), crc)
        checksum = crc32c.mask(crc).to_bytes(4, "little")
        body = b"".join(items)
        crc = crc32c.value(body, crc32c.value(checksum, crc))
        return _STRING, strings.shape, bytes(lengths) + checksum + body, crc
    array = np.asarray(value)
    number = _enum_of().get(array.dtype.newbyteorder("="))
    if number is None:
        raise TypeError(f"cannot write {key!r} to a TensorFlow checkpoint: dtype {array.dtype} has no "
                        f"TensorFlow counterpart Ember writes")
    raw = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return number, array.shape, raw, crc32c.value(raw)

# LevelDB-format tables (a TensorFlow checkpoint's .index file): reading every key and value with checksums
# verified, and writing one (uncompressed, as TensorFlow does).

import struct

from ember._wire import crc32c
from ember._wire.protowire import ProtoError, read_varint, write_varint
from ember.errors import DataLossError
from ember.train._bundle import snappy

# Note [Table layout]: the file is a sequence of blocks, then a 48-byte
# footer: the metaindex block's handle, the index block's handle (a handle
# is two varints, offset and size), zero padding to 40 bytes and the magic
# number. Each block is followed by a 5-byte trailer: its compression type
# (0 none, 1 Snappy) and the masked CRC-32C of the stored block and the
# type byte. A block holds entries (varints: bytes shared with the previous
# key, bytes not shared, value size; then the key's unshared bytes and the
# value), then the uint32 offsets of its restart points (entries that share
# nothing) and their count. The index block maps the last key of each data
# block to that block's handle; keys are sorted. TensorFlow writes
# uncompressed blocks; LevelDB's own writer compresses with Snappy.

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
_TRAILER_SIZE = 5
_COMPRESSION = {0: "none", 1: "snappy"}
_BLOCK_SIZE = 4096  # LevelDB's default: a data block is closed once it holds this many bytes
_RESTART_INTERVAL = 16


def read_table(path, data):
    """[(key, value)] of the table file ``path`` whose bytes are ``data``, in key order."""
    if len(data) < FOOTER_SIZE:
        raise DataLossError(f"{path!r} is truncated or not a checkpoint index: {len(data)} bytes, shorter "
                            f"than a table footer ({FOOTER_SIZE} bytes)")
    footer = data[-FOOTER_SIZE:]
    if struct.unpack_from("<Q", footer, FOOTER_SIZE - 8)[0] != MAGIC:
        raise DataLossError(f"{path!r} is not a checkpoint index (a LevelDB table): its last 8 bytes are not "
                            f"the table magic number (a truncated or overwritten file?)")
    try:
        metaindex, pos = _handle(footer, 0)
        index = _handle(footer, pos)[0]
    except ProtoError:
        raise DataLossError(f"{path!r}: the table footer is corrupt") from None
    body_end = len(data) - FOOTER_SIZE
    # TensorFlow puts nothing in the metaindex block (LevelDB: filter names); it is only checked.
    _entries(path, _block(path, data, metaindex, body_end, "the metaindex block"), "the metaindex block")
    entries, last = [], None
    for _, handle in _entries(path, _block(path, data, index, body_end, "the index block"), "the index block"):
        try:
            block_handle = _handle(handle, 0)[0]
        except ProtoError:
            raise DataLossError(f"{path!r}: the index block holds a corrupt block handle") from None
        what = f"the data block at offset {block_handle[0]}"
        for key, value in _entries(path, _block(path, data, block_handle, body_end, what), what):
            if last is not None and key <= last:
                raise DataLossError(f"{path!r}: keys out of order in {what} ({last!r} then {key!r})")
            entries.append((key, value))
            last = key
    return entries


def _handle(buf, pos):
    offset, pos = read_varint(buf, pos)
    size, pos = read_varint(buf, pos)
    return (offset, size), pos


def _block(path, data, handle, body_end, what):
    """The contents of the block at ``handle``, checksum verified and decompressed."""
    offset, size = handle
    if offset + size + _TRAILER_SIZE > body_end:
        raise DataLossError(f"{path!r} is truncated: {what} ({size} bytes at offset {offset}) runs past the "
                            f"end of the file's {body_end} bytes before the footer")
    stored = data[offset:offset + size + 1]  # with the compression type byte
    (expected,) = struct.unpack_from("<I", data, offset + size + 1)
    if crc32c.value(stored) != crc32c.unmask(expected):
        raise DataLossError(f"{path!r} is corrupt: {what} fails its CRC-32C checksum")
    kind = stored[-1]
    if kind not in _COMPRESSION:
        raise DataLossError(f"{path!r}: {what} has unknown compression type {kind}")
    if kind == 1:
        try:
            return snappy.decompress(stored[:-1])
        except snappy.SnappyError as e:
            raise DataLossError(f"{path!r}: {what} is not valid Snappy data: {e}") from None
    return stored[:-1]


def _entries(path, block, what):
    """[(key, value)] of one block's contents."""
    if len(block) < 4:
        raise DataLossError(f"{path!r}: {what} is too short to hold its restart count")
    (restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    end = len(block) - 4 - 4 * restarts
    if restarts == 0 or end < 0:
        raise DataLossError(f"{path!r}: {what} has an impossible restart count ({restarts})")
    out, pos, key = [], 0, b""
    try:
        while pos < end:
            shared, pos = read_varint(block, pos)
            unshared, pos = read_varint(block, pos)
            size, pos = read_varint(block, pos)
            if shared > len(key) or pos + unshared + size > end:
                raise ProtoError("entry out of bounds")
            key = key[:shared] + block[pos:pos + unshared]
            pos += unshared
            out.append((bytes(key), bytes(block[pos:pos + size])))
            pos += size
    except ProtoError:
        raise DataLossError(f"{path!r}: {what} holds a corrupt entry") from None
    return out


def build_table(entries):
    """The bytes of a table holding ``entries`` ([(key, value)] bytes, keys strictly increasing)."""
    out, index, block, last = bytearray(), [], [], None
    for key, value in entries:
        if last is not None and key <= last:
            raise ValueError(f"table keys must be strictly increasing: {last!r} then {key!r}")
        block.append((key, value))
        last = key
        if sum(len(k) + len(v) for k, v in block) >= _BLOCK_SIZE:
            index.append((key, _emit(out, _build_block(block, _RESTART_INTERVAL))))
            block = []
    if block:
        index.append((block[-1][0], _emit(out, _build_block(block, _RESTART_INTERVAL))))
    metaindex = _emit(out, _build_block([], _RESTART_INTERVAL))
    index_handle = _emit(out, _build_block(index, 1))
    footer = metaindex + index_handle
    out += footer + bytes(FOOTER_SIZE - 8 - len(footer)) + struct.pack("<Q", MAGIC)
    return bytes(out)


def _emit(out, contents):
    """Appends an uncompressed block and its trailer to ``out``; returns the block's handle."""
    handle = write_varint(len(out)) + write_varint(len(contents))
    stored = contents + b"\0"
    out += stored + struct.pack("<I", crc32c.mask(crc32c.value(stored)))
    return handle


def _build_block(entries, restart_interval):
    out, restarts, previous = bytearray(), [], b""
    for i, (key, value) in enumerate(entries):
        shared = 0
        if i % restart_interval == 0:
            restarts.append(len(out))
        else:
            limit = min(len(previous), len(key))
            while shared < limit and previous[shared] == key[shared]:
                shared += 1
        out += write_varint(shared) + write_varint(len(key) - shared) + write_varint(len(value))
        out += key[shared:] + value
        previous = key
    restarts = restarts or [0]
    out += struct.pack(f"<{len(restarts) + 1}I", *restarts, len(restarts))
    return bytes(out)

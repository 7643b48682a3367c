# Snappy decompression (the raw block format, as LevelDB tables use it), for Snappy-compressed .index blocks.


class SnappyError(ValueError):
    """The input is not valid Snappy data."""


def _varint(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 28:
            raise SnappyError("bad length preamble")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos


def decompress(data):
    """The bytes that the Snappy block ``data`` holds.

    A block is the uncompressed length (a varint), then elements, each a tag
    byte whose low two bits say what follows: 0, a literal (its length-1 in
    the tag's upper six bits, or in the next 1-4 bytes when those bits are
    60-63); 1, 2 and 3, a copy of earlier output (length and offset in the
    tag and 1, 2 or 4 following bytes). A copy may overlap its own output
    (offset < length), which repeats a pattern.
    """
    data = bytes(data)
    expected, pos = _varint(data, 0)
    out = bytearray()
    end = len(data)
    while pos < end:
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                if pos + extra > end:
                    raise SnappyError("truncated literal length")
                length = int.from_bytes(data[pos:pos + extra], "little")
                pos += extra
            length += 1
            if pos + length > end:
                raise SnappyError("literal runs past the end of the input")
            if len(out) + length > expected:
                raise SnappyError("output longer than its stated length")
            out += data[pos:pos + length]
            pos += length
            continue
        if kind == 1:
            if pos + 1 > end:
                raise SnappyError("truncated copy")
            length = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | data[pos]
            pos += 1
        else:
            width = 2 if kind == 2 else 4
            if pos + width > end:
                raise SnappyError("truncated copy")
            length = (tag >> 2) + 1
            offset = int.from_bytes(data[pos:pos + width], "little")
            pos += width
        if offset == 0 or offset > len(out):
            raise SnappyError(f"copy offset {offset} outside the {len(out)} bytes decoded so far")
        if len(out) + length > expected:
            raise SnappyError("output longer than its stated length")
        start = len(out) - offset
        if offset >= length:
            out += out[start:start + length]
        else:  # overlapping: the last `offset` bytes repeat
            pattern = bytes(out[start:])
            out += (pattern * (length // offset + 1))[:length]
    if len(out) != expected:
        raise SnappyError(f"decoded {len(out)} bytes, but the block states {expected}")
    return bytes(out)

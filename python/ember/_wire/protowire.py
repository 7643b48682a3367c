# Protocol-buffer messages decoded and encoded by a small schema, without the protobuf package.

import struct
from typing import NamedTuple, Optional


class ProtoError(ValueError):
    """The bytes are not a valid encoding of the expected message."""


class Field(NamedTuple):
    """One field of a schema: its name, its kind and whether it repeats.

    Kinds: "int32", "int64", "uint32", "uint64", "bool", "enum" (varints),
    "fixed32", "float" (32-bit), "double" (64-bit), "string", "bytes", and
    "message" (with ``message``, the sub-schema: {field number: Field}).
    """
    name: str
    kind: str
    repeated: bool = False
    message: Optional[dict] = None


_VARINT_KINDS = {"int32", "int64", "uint32", "uint64", "bool", "enum"}
_DEFAULTS = {"string": "", "bytes": b"", "fixed32": 0, "float": 0.0, "double": 0.0, "message": None}
# The fixed-width kinds: (wire type, struct format of one value).
_FIXED = {"fixed32": (5, "I"), "float": (5, "f"), "double": (1, "d")}


def read_varint(buf, pos):
    """(value, next position) of the varint at ``buf[pos]``."""
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ProtoError("a varint runs past the end of the data")
        if shift >= 70:
            raise ProtoError("a varint is longer than 10 bytes")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos


def _scalar(kind, raw):
    if kind in ("int32", "int64", "enum"):
        raw &= (1 << 64) - 1  # negative numbers are sign-extended to 64 bits, even int32s
        return raw - (1 << 64) if raw >> 63 else raw
    if kind == "uint32":
        return raw & 0xFFFFFFFF
    if kind == "bool":
        return raw != 0
    return raw


def decode(buf, schema):
    """A dict with one item per schema field (proto3 defaults for absent ones); unknown fields are skipped."""
    buf = bytes(buf)
    out = {f.name: [] if f.repeated else _DEFAULTS.get(f.kind, 0) for f in schema.values()}
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            payload, pos = read_varint(buf, pos)
        elif wire == 1:
            payload, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = read_varint(buf, pos)
            payload, pos = buf[pos:pos + length], pos + length
        elif wire == 5:
            payload, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ProtoError(f"field {number} has wire type {wire}, which this reader does not decode")
        if pos > end:
            raise ProtoError(f"field {number} runs past the end of the data")
        field = schema.get(number)
        if field is None or number == 0:
            continue
        values = _field_values(field, wire, payload)
        if field.repeated:
            out[field.name].extend(values)
        else:
            out[field.name] = values[-1]
    return out


def _field_values(field, wire, payload):
    kind = field.kind
    if kind in _VARINT_KINDS:
        if wire == 0:
            return [_scalar(kind, payload)]
        if wire == 2 and field.repeated:  # packed
            values, pos = [], 0
            while pos < len(payload):
                raw, pos = read_varint(payload, pos)
                values.append(_scalar(kind, raw))
            return values
    elif kind in _FIXED:
        fixed_wire, code = _FIXED[kind]
        size = struct.calcsize(code)
        if wire == fixed_wire:
            return [struct.unpack("<" + code, payload)[0]]
        if wire == 2 and field.repeated and len(payload) % size == 0:
            return list(struct.unpack(f"<{len(payload) // size}{code}", payload))
    elif wire == 2:
        if kind == "bytes":
            return [payload]
        if kind == "string":
            try:
                return [payload.decode("utf-8")]
            except UnicodeDecodeError:
                raise ProtoError(f"field {field.name!r} is not valid UTF-8") from None
        if kind == "message":
            return [decode(payload, field.message)]
    raise ProtoError(f"field {field.name!r} ({kind}) has the wrong wire type {wire}")


def write_varint(value):
    """The varint bytes of a non-negative int, or of a negative one as its 64-bit two's complement."""
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode(message, schema):
    """The bytes of ``message`` (a dict as ``decode`` returns; missing keys and proto3 defaults are
    left out), fields in number order, repeated scalars packed."""
    out = bytearray()
    for number in sorted(schema):
        field = schema[number]
        value = message.get(field.name)
        if value is None or (not field.repeated and field.kind != "message" and not value):
            continue
        values = value if field.repeated else [value]
        if field.repeated and (field.kind in _VARINT_KINDS or field.kind in _FIXED):
            if values:
                if field.kind in _FIXED:
                    packed = struct.pack(f"<{len(values)}{_FIXED[field.kind][1]}", *values)
                else:
                    packed = b"".join(write_varint(int(v)) for v in values)
                out += write_varint(number << 3 | 2) + write_varint(len(packed)) + packed
            continue
        for v in values:
            if field.kind in _VARINT_KINDS:
                out += write_varint(number << 3) + write_varint(int(v))
            elif field.kind in _FIXED:
                wire, code = _FIXED[field.kind]
                out += write_varint(number << 3 | wire) + struct.pack("<" + code, v)
            else:
                payload = (v.encode("utf-8") if field.kind == "string"
                           else encode(v, field.message) if field.kind == "message" else bytes(v))
                out += write_varint(number << 3 | 2) + write_varint(len(payload)) + payload
    return bytes(out)

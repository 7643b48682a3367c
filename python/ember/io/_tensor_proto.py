"""serialize_tensor and parse_tensor, in TensorFlow's TensorProto wire format, and decode_raw.

Note [Serialized tensor format]: serialize_tensor writes a TensorProto
message as protocol buffers encode it, the bytes tf.io.serialize_tensor
writes: field 1 the dtype (a varint, TensorFlow's DataType number), field 2
a TensorShapeProto (field 2 per dim, each a message with field 1 its size),
then either field 4 tensor_content (the elements, little-endian, row-major)
or, for strings, field 8 once per element. parse_tensor also reads the
typed repeated fields (float_val, int_val, ...) other writers use, where a
single value fills the whole shape.
"""

import numpy as np

from ember import _C, errors
from ember._checks import safe_repr
from ember._wire.protowire import ProtoError, read_varint, write_varint
from ember.dtypes import as_dtype, string
from ember._strings._shape_ops import as_strings
from ember._strings._value import StringTensor, from_array, host_numeric
from ember._creation import convert_to_tensor

# TensorFlow's DataType enum (types.proto) for the dtypes ember has.
_DT = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7, "complex64": 8,
       "int64": 9, "bool": 10, "bfloat16": 14, "float16": 19}
_DT_NAME = {v: k for k, v in _DT.items()}


def _field(number, wire_type, payload):
    key = write_varint((number << 3) | wire_type)
    if wire_type == 0:
        return key + write_varint(payload)
    return key + write_varint(len(payload)) + payload


def serialize_tensor(tensor, name=None):
    """The tensor as a scalar string tensor of TensorProto bytes (Note [Serialized tensor format])."""
    del name
    if not isinstance(tensor, StringTensor):
        tensor = convert_to_tensor(tensor)
    if isinstance(tensor, StringTensor):
        array, dtype = tensor._array, string
    else:
        array, dtype = host_numeric(tensor, "serialize_tensor"), tensor.dtype
    shape = b"".join(_field(2, 2, _field(1, 0, d) if d else b"") for d in array.shape)
    message = _field(1, 0, _DT[dtype.name]) + _field(2, 2, shape)
    if dtype == string:
        message += b"".join(_field(8, 2, v) for v in array.flat)
    elif array.size:
        little = array.astype(array.dtype.newbyteorder("<"), copy=False)
        message += _field(4, 2, np.ascontiguousarray(little).tobytes())
    out = np.empty((), object)
    out[()] = message
    return from_array(out)


def _read_varint(data, at):
    try:
        return read_varint(data, at)
    except ProtoError:
        raise errors.InvalidArgumentError("parse_tensor: the bytes are not a TensorProto (bad varint)") from None


def _fields(data):
    """(number, wire_type, value) of each field of a protocol buffer message."""
    at = 0
    while at < len(data):
        key, at = _read_varint(data, at)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, at = _read_varint(data, at)
        elif wire_type == 2:
            size, at = _read_varint(data, at)
            if at + size > len(data):
                raise errors.InvalidArgumentError("parse_tensor: the bytes are not a TensorProto (truncated field)")
            value, at = data[at:at + size], at + size
        elif wire_type in (1, 5):
            size = 8 if wire_type == 1 else 4
            value, at = data[at:at + size], at + size
        else:
            raise errors.InvalidArgumentError(f"parse_tensor: the bytes are not a TensorProto (wire type {wire_type})")
        yield number, wire_type, value


# The typed repeated fields: float_val, double_val, int_val, int64_val, bool_val, half_val.
_VALUE_FIELDS = (5, 6, 7, 10, 11, 13)


def _typed_values(number, wire_type, value, out):
    if number in (5, 6):
        kind = "<f4" if number == 5 else "<f8"
        out.extend(np.frombuffer(value, kind).tolist() if wire_type == 2 else [np.frombuffer(value, kind)[0]])
    elif wire_type == 2:  # packed varints
        at = 0
        while at < len(value):
            v, at = _read_varint(value, at)
            out.append(v)
    else:
        out.append(value)


def parse_tensor(serialized, out_type, name=None):
    """The tensor in TensorProto bytes (a scalar string); ``out_type`` must be its dtype."""
    del name
    out_type = as_dtype(out_type)
    data = as_strings(serialized, "parse_tensor")
    if data.ndim != 0:
        raise errors.InvalidArgumentError(f"parse_tensor: serialized must be a scalar, got shape {data.shape}")
    data = data.numpy()
    dtype_code, dims, content, strings, values = None, [], None, [], []
    for number, wire_type, value in _fields(data):
        if number == 1:
            dtype_code = value
        elif number == 2:
            for dim_number, _, dim in _fields(value):
                if dim_number == 2:
                    size = 0
                    for f, _, v in _fields(dim):
                        if f == 1:
                            size = v
                    dims.append(size)
        elif number == 4:
            content = value
        elif number == 8:
            strings.append(bytes(value))
        elif number in _VALUE_FIELDS:
            _typed_values(number, wire_type, value, values)
    name_ = _DT_NAME.get(dtype_code)
    if name_ is None:
        raise errors.InvalidArgumentError(f"parse_tensor: unsupported or missing dtype code {dtype_code}")
    if name_ != out_type.name:
        raise errors.InvalidArgumentError(f"parse_tensor: the serialized tensor is {name_}, but out_type is "
                                          f"{out_type.name}")
    count = int(np.prod(dims, dtype=np.int64))
    if out_type == string:
        if len(strings) not in (count, 1) and count:
            raise errors.InvalidArgumentError(f"parse_tensor: {len(strings)} strings for shape {tuple(dims)}")
        array = np.empty(count, object)
        array[:] = strings if len(strings) == count else strings * count
        return from_array(array.reshape(dims))
    numpy_type = np.dtype(out_type.as_numpy_dtype)
    if content is not None:
        if len(content) != count * numpy_type.itemsize:
            raise errors.InvalidArgumentError(f"parse_tensor: tensor_content has {len(content)} bytes; shape "
                                              f"{tuple(dims)} of {out_type.name} needs {count * numpy_type.itemsize}")
        array = np.frombuffer(content, numpy_type.newbyteorder("<")).astype(numpy_type)
    elif values:
        if len(values) not in (1, count):
            raise errors.InvalidArgumentError(f"parse_tensor: {len(values)} values for shape {tuple(dims)}")
        if out_type.name in ("float16", "bfloat16"):  # half_val holds the bits
            array = np.array(values, np.uint16).view(numpy_type)
        else:  # varints hold negative ints as 64-bit two's complement
            array = np.array([v - (1 << 64) if isinstance(v, int) and v >= 1 << 63 else v for v in values])
            array = array.astype(numpy_type)
        array = np.broadcast_to(array, (count,)) if len(values) == 1 else array
    else:
        array = np.zeros(count, numpy_type)
    return _C.convert_to_tensor(np.array(array).reshape(dims), None)


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Reinterprets the bytes of each string as a vector of ``out_type`` numbers; the result has
    the input's shape plus one dim. Every string must have the same length (a multiple of the
    type's size), or ``fixed_length`` bytes are read from each (zero-padded)."""
    del name
    out_type = as_dtype(out_type)
    if out_type == string or out_type.as_numpy_dtype is None:
        raise TypeError(f"decode_raw: out_type must be a numeric dtype, got {out_type.name}")
    tensor = as_strings(input_bytes, "decode_raw")
    numpy_type = np.dtype(out_type.as_numpy_dtype)
    numpy_type = numpy_type.newbyteorder("<" if little_endian else ">") if numpy_type.itemsize > 1 else numpy_type
    items = list(tensor._array.flat)
    if fixed_length is not None:
        fixed_length = int(fixed_length)
        if fixed_length % numpy_type.itemsize:
            raise errors.InvalidArgumentError(f"decode_raw: fixed_length {fixed_length} is not a multiple of the "
                                              f"{out_type.name} size {numpy_type.itemsize}")
        items = [v[:fixed_length].ljust(fixed_length, b"\0") for v in items]
    sizes = {len(v) for v in items}
    if len(sizes) > 1:
        raise errors.InvalidArgumentError(f"decode_raw: the strings have different lengths {sorted(sizes)}; every "
                                          "element must have the same number of bytes")
    size = sizes.pop() if sizes else (fixed_length or 0)
    if size % numpy_type.itemsize:
        raise errors.InvalidArgumentError(f"decode_raw: a string of {size} bytes is not a whole number of "
                                          f"{out_type.name} values ({numpy_type.itemsize} bytes each)")
    flat = np.frombuffer(b"".join(items), numpy_type).astype(np.dtype(out_type.as_numpy_dtype))
    shape = tensor._array.shape + (size // numpy_type.itemsize,)
    return _C.convert_to_tensor(flat.reshape(shape), None)


def check_path(value, func):
    if isinstance(value, StringTensor):
        if value.ndim != 0:
            raise errors.InvalidArgumentError(f"{func}: filename must be a scalar, got shape {value.shape}")
        value = value.numpy()
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if not isinstance(value, str):
        import os

        if isinstance(value, os.PathLike):
            return os.fspath(value)
        raise TypeError(f"{func}: filename must be a string, got {safe_repr(value)}")
    return value


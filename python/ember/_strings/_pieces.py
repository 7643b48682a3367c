"""ember.strings ops that cut strings into pieces: split, bytes_split, unicode_decode (and
unicode_encode, which joins code points back). Rank >= 1 inputs give RaggedTensors."""

import numpy as np

from ember import _C, errors
from ember._checks import safe_repr
from ember._strings._shape_ops import as_strings
from ember._strings._value import StringTensor, from_array, host_numeric
from ember.ragged._ragged_tensor import RaggedTensor


def _strings_array(pieces):
    out = np.empty(len(pieces), object)
    out[:] = pieces
    return from_array(out)


def ragged_from_pieces(pieces, outer_shape, make_values):
    """The pieces of each element (row-major lists) as a tensor: for a scalar input, the one
    list as a dense vector; else a RaggedTensor of shape outer_shape + [None]."""
    if not outer_shape:
        return make_values(pieces[0])
    flat = [p for piece in pieces for p in piece]
    result = RaggedTensor.from_row_lengths(make_values(flat), np.array([len(p) for p in pieces], np.int64))
    size = len(pieces)
    for dim in reversed(outer_shape[1:]):  # uniform outer dims as rows of equal length
        size //= dim if dim else 1
        result = RaggedTensor.from_row_lengths(result, np.full(size, dim, np.int64))
    return result


def _int32_values(codes):
    return _C.convert_to_tensor(np.array(codes, dtype=np.int32), None)


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002 - TensorFlow's name
    """Splits each string at ``sep`` (at runs of whitespace, dropping empty pieces, when sep is None
    or empty), at most ``maxsplit`` times (-1: no limit). A scalar gives a vector; a tensor of rank
    k gives a RaggedTensor of rank k + 1."""
    del name
    tensor = as_strings(input, "split")
    if isinstance(sep, StringTensor):
        sep = sep.numpy()
    if isinstance(sep, str):
        sep = sep.encode("utf-8")
    if sep is not None and not isinstance(sep, bytes):
        raise TypeError(f"split: sep must be a str or None, got {safe_repr(sep)}")
    maxsplit = int(maxsplit)
    sep = sep or None
    pieces = [v.split(sep, maxsplit) for v in tensor._array.flat]  # as Python: "".split(",") is [""]
    return ragged_from_pieces(pieces, list(tensor._array.shape), _strings_array)


def bytes_split(input, name=None):  # noqa: A002
    """Each string as its single bytes (a vector for a scalar, a RaggedTensor otherwise)."""
    del name
    tensor = as_strings(input, "bytes_split")
    pieces = [[v[i:i + 1] for i in range(len(v))] for v in tensor._array.flat]
    return ragged_from_pieces(pieces, list(tensor._array.shape), _strings_array)


_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def _codec(encoding, op):
    codec = _CODECS.get(str(encoding).upper())
    if codec is None:
        raise ValueError(f"{op}: encoding must be one of {sorted(_CODECS)}, got {safe_repr(encoding)}")
    return codec


def _check_errors(mode, replacement_char, op):
    if mode not in ("strict", "replace", "ignore"):
        raise ValueError(f"{op}: errors must be 'strict', 'replace' or 'ignore', got {safe_repr(mode)}")
    if not 0 <= int(replacement_char) <= 0x10FFFF:
        raise ValueError(f"{op}: replacement_char must be a Unicode code point, got {replacement_char}")


def _is_control(code):
    return code < 0x20 or 0x7F <= code < 0xA0


def _decode_codes(data, codec, mode, replacement, control, op):
    """The code points of `data`: each maximal invalid subsequence (as Python's decoder reports it)
    becomes `replacement`, is dropped, or raises, by `mode`."""
    codes = []
    rest = data
    while True:
        try:
            codes.extend(map(ord, rest.decode(codec)))
            break
        except UnicodeDecodeError as e:
            codes.extend(map(ord, rest[:e.start].decode(codec)))
            if mode == "strict":
                raise errors.InvalidArgumentError(f"{op}: invalid {codec} in {data!r} at byte "
                                                  f"{len(data) - len(rest) + e.start}: {e.reason}") from None
            if mode == "replace":
                codes.append(replacement)
            rest = rest[e.end:]
    if control:
        codes = [replacement if _is_control(c) else c for c in codes]
    return codes


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """The Unicode code points (int32) of each string, decoded from ``input_encoding`` (UTF-8,
    UTF-16-BE or UTF-32-BE): a vector for a scalar, a RaggedTensor otherwise. Invalid input is
    replaced by ``replacement_char``, skipped, or raises (``errors``)."""
    del name
    codec = _codec(input_encoding, "unicode_decode")
    _check_errors(errors, replacement_char, "unicode_decode")
    tensor = as_strings(input, "unicode_decode")
    pieces = [_decode_codes(v, codec, errors, int(replacement_char), replace_control_characters, "unicode_decode")
              for v in tensor._array.flat]
    return ragged_from_pieces(pieces, list(tensor._array.shape), _int32_values)


def _encode_codes(codes, codec, mode, replacement, op):
    chars = []
    for c in codes:
        c = int(c)
        if 0 <= c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF:
            chars.append(chr(c))
        elif mode == "strict":
            raise errors.InvalidArgumentError(f"{op}: {c} is not a valid Unicode code point")
        elif mode == "replace":
            chars.append(chr(replacement))
    return "".join(chars).encode(codec)


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """Encodes each innermost row of code points (an int32 tensor of rank >= 1, or a
    RaggedTensor) as one string in ``output_encoding``; the result drops that dimension."""
    del name
    codec = _codec(output_encoding, "unicode_encode")
    _check_errors(errors, replacement_char, "unicode_encode")

    def encode(codes):
        return _encode_codes(codes, codec, errors, int(replacement_char), "unicode_encode")

    if isinstance(input, RaggedTensor):
        values = host_numeric(input.flat_values, "unicode_encode")
        splits = [s.numpy() for s in input.nested_row_splits]
        inner = splits[-1]
        encoded = _strings_array([encode(values[inner[i]:inner[i + 1]]) for i in range(len(inner) - 1)])
        if len(splits) == 1:
            return encoded
        result = encoded
        for outer in reversed(splits[:-1]):
            result = RaggedTensor.from_row_splits(result, outer)
        return result
    array = host_numeric(input, "unicode_encode")
    if array.ndim == 0 or array.dtype.kind not in "iu":
        raise TypeError(f"unicode_encode: input must be an integer tensor of rank >= 1 or a RaggedTensor, got "
                        f"{safe_repr(input)}")
    out = np.empty(array.shape[:-1], object)
    for index in np.ndindex(out.shape):
        out[index] = encode(array[index])
    return from_array(out)

"""ember.io.decode_csv and the CSV record parser shared with ember.data's CSV datasets."""

import re

import numpy as np

from ember import _C, errors
from ember._checks import safe_repr
from ember.dtypes import DType, as_dtype, float32, float64, int32, int64, string
from ember._strings._shape_ops import as_strings
from ember._strings._value import StringTensor, from_array

CSV_DTYPES = (float32, float64, int32, int64, string)
_INT = re.compile(rb"\s*[+-]?\d+\s*")
_FLOAT = re.compile(rb"\s*[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)\s*", re.IGNORECASE)


class Column:
    """A column's dtype and default (None: the field is required)."""

    __slots__ = ("dtype", "default")

    def __init__(self, dtype, default):
        self.dtype, self.default = dtype, default


def column_of(value, func, index):
    """A record_defaults entry as a Column: a DType (required), a tensor or list with one value
    (the default) or none (required), or a Python scalar (float -> float32, int -> int32, str ->
    string)."""
    if isinstance(value, DType) or (isinstance(value, type) and value in (int, float, str, bytes)):
        dtype = as_dtype(value)
        values = []
    elif isinstance(value, StringTensor):
        dtype, values = string, list(value._array.reshape(-1))
    elif isinstance(value, _C.Tensor):
        dtype, values = value.dtype, value.numpy().reshape(-1).tolist()
    else:
        values = list(value) if isinstance(value, (list, tuple, np.ndarray)) else [value]
        if not values:
            raise ValueError(f"{func}: record_defaults[{index}] is an empty list with no dtype; use a DType or "
                             "an empty tensor of the column's dtype for a required column")
        first = values[0]
        if isinstance(first, (str, bytes)):
            dtype = string
        elif isinstance(first, (bool, np.bool_)):
            dtype = None
        elif isinstance(first, (int, np.integer)):
            dtype = int32 if isinstance(first, int) else as_dtype(np.asarray(first).dtype)
        elif isinstance(first, (float, np.floating)):
            dtype = float32 if isinstance(first, float) else as_dtype(np.asarray(first).dtype)
        else:
            dtype = None
        if dtype is None:
            raise TypeError(f"{func}: record_defaults[{index}] must be a float, int or string default, got "
                            f"{safe_repr(first)}")
    if dtype not in CSV_DTYPES:
        raise TypeError(f"{func}: record_defaults[{index}] has dtype {dtype.name}; CSV columns are float32, float64, "
                        "int32, int64 or string")
    if len(values) > 1:
        raise ValueError(f"{func}: record_defaults[{index}] must hold at most one value, got {len(values)}")
    default = None
    if values:
        default = values[0]
        if dtype == string and isinstance(default, str):
            default = default.encode("utf-8")
    return Column(dtype, default)


def split_record(record, delim, use_quote, func, where):
    """The fields (bytes) of one CSV record. Quoted fields ("a,b" with "" for a quote) when
    use_quote; a quote inside an unquoted field, or text after a closing quote, is an error."""
    fields = []
    i, n = 0, len(record)
    while True:
        if use_quote and i < n and record[i:i + 1] == b'"':
            parts = []
            i += 1
            while True:
                j = record.find(b'"', i)
                if j < 0:
                    raise errors.InvalidArgumentError(f"{func}: quoted field {len(fields)} has no closing quote "
                                                      f"{where}: {record!r}")
                parts.append(record[i:j])
                if record[j + 1:j + 2] == b'"':
                    parts.append(b'"')
                    i = j + 2
                    continue
                i = j + 1
                break
            fields.append(b"".join(parts))
            if i < n and record[i:i + len(delim)] != delim:
                raise errors.InvalidArgumentError(f"{func}: quoted field {len(fields) - 1} must be followed by the "
                                                  f"delimiter {where}: {record!r}")
        else:
            j = record.find(delim, i)
            field = record[i:] if j < 0 else record[i:j]
            if use_quote and b'"' in field:
                raise errors.InvalidArgumentError(f"{func}: unquoted field {len(fields)} contains a quote {where}: "
                                                  f"{record!r}")
            fields.append(field)
            i = n if j < 0 else j
        if i >= n:
            return fields
        i += len(delim)
        if i == n:
            fields.append(b"")
            return fields


def convert_field(field, column, na_value, func, where):
    """One field as a value of its column's type (its default when empty or na_value)."""
    if field == b"" or field == na_value:
        if column.default is None:
            raise errors.InvalidArgumentError(f"{func}: {where} is required but missing")
        return column.default
    dtype = column.dtype
    if dtype == string:
        return field
    pattern = _INT if dtype.is_integer else _FLOAT
    if pattern.fullmatch(field) is None:
        raise errors.InvalidArgumentError(f"{func}: {where} is not a valid {dtype.name}: {field!r}")
    if dtype.is_integer:
        value = int(field)
        info = np.iinfo(dtype.as_numpy_dtype)
        if not info.min <= value <= info.max:
            raise errors.InvalidArgumentError(f"{func}: {where} is out of range for {dtype.name}: {field!r}")
        return value
    return float(field)


def to_tensor(values, dtype, shape):
    """A column's values (a list) as an ember tensor of `dtype` and `shape`."""
    if dtype == string:
        out = np.empty(len(values), object)
        out[:] = values
        return from_array(out.reshape(shape))
    return _C.convert_to_tensor(np.array(values, dtype=np.dtype(dtype.as_numpy_dtype)).reshape(shape), None)


def _bytes_arg(value, func, arg):
    if isinstance(value, str):
        value = value.encode("utf-8")
    if not isinstance(value, bytes):
        raise TypeError(f"{func}: {arg} must be a str, got {safe_repr(value)}")
    return value


def parse_options(field_delim, na_value, func):
    delim = _bytes_arg(field_delim, func, "field_delim")
    if len(delim) != 1:
        raise ValueError(f"{func}: field_delim must be one character, got {field_delim!r}")
    return delim, _bytes_arg(na_value, func, "na_value")


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, na_value="", select_cols=None,
               name=None):
    """Parses CSV records (a string tensor) into one tensor per column, each of the records'
    shape (``tf.io.decode_csv``). ``record_defaults`` gives each column's type and default: a
    one-value list or tensor (``[0.0]`` is float32, ``[0]`` int32, ``[""]`` string) or an empty
    tensor / a DType for a required column. ``select_cols`` (sorted indices) parses only those."""
    del name
    func = "decode_csv"
    delim, na = parse_options(field_delim, na_value, func)
    columns = [column_of(v, func, i) for i, v in enumerate(record_defaults)]
    if not columns:
        raise ValueError("decode_csv: record_defaults must name at least one column")
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])) or (select_cols and select_cols[0] < 0):
            raise ValueError(f"decode_csv: select_cols must be sorted, distinct and non-negative, got {select_cols}")
        if len(select_cols) != len(columns):
            raise ValueError(f"decode_csv: {len(select_cols)} select_cols but {len(columns)} record_defaults")
    tensor = as_strings(records, func)
    outputs = [[] for _ in columns]
    for r, record in enumerate(tensor._array.flat):
        fields = split_record(record, delim, use_quote_delim, func, f"in record {r}")
        if select_cols is None and len(fields) != len(columns):
            raise errors.InvalidArgumentError(f"{func}: expected {len(columns)} fields but record {r} has "
                                              f"{len(fields)}: {record!r}")
        if select_cols is not None and len(fields) <= select_cols[-1]:
            raise errors.InvalidArgumentError(f"{func}: record {r} has {len(fields)} fields, fewer than select_cols "
                                              f"needs ({select_cols[-1] + 1}): {record!r}")
        chosen = fields if select_cols is None else [fields[c] for c in select_cols]
        for c, (field, column) in enumerate(zip(chosen, columns)):
            outputs[c].append(convert_field(field, column, na, func, f"field {c} of record {r}"))
    shape = tensor._array.shape
    return [to_tensor(values, column.dtype, shape) for values, column in zip(outputs, columns)]

"""CSV files as datasets: ember.data.experimental.CsvDataset and make_csv_dataset.

Each line of a file is one record (a quoted field cannot span lines);
blank lines are skipped. Fields are parsed as ember.io.decode_csv does.
"""

import collections
import re

import numpy as np

from ember import errors
from ember._checks import check_int
from ember.data._dataset import AUTOTUNE, UNKNOWN_CARDINALITY, Dataset
from ember.data._files import Filenames, _lines, list_files, matching_files
from ember.function import TensorSpec
from ember.io._csv import column_of, convert_field, parse_options, split_record, to_tensor
from ember.io._tfrecord import compression_of


class CsvDataset(Dataset):
    """The records of CSV files, each a tuple with one scalar per selected column
    (``tf.data.experimental.CsvDataset``). ``record_defaults`` types the columns as in
    ``ember.io.decode_csv``; ``header=True`` skips each file's first line; ``select_cols`` or
    ``exclude_cols`` (sorted indices) pick the columns parsed."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None, name=None):
        del buffer_size, name
        func = "CsvDataset"
        self._files = Filenames(filenames, func)
        self._compression = compression_of(compression_type, func)
        self._columns = [column_of(v, func, i) for i, v in enumerate(record_defaults)]
        if not self._columns:
            raise ValueError("CsvDataset: record_defaults must name at least one column")
        self._delim, self._na = parse_options(field_delim, na_value, func)
        self._quote, self._header = bool(use_quote_delim), bool(header)
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("CsvDataset: give select_cols or exclude_cols, not both")
        self._select = self._indices(select_cols, "select_cols")
        self._exclude = self._indices(exclude_cols, "exclude_cols")
        if self._select is not None and len(self._select) != len(self._columns):
            raise ValueError(f"CsvDataset: {len(self._select)} select_cols but {len(self._columns)} record_defaults")

    @staticmethod
    def _indices(cols, arg):
        if cols is None:
            return None
        cols = [check_int(c, "CsvDataset", arg, minimum=0) for c in cols]
        if any(b <= a for a, b in zip(cols, cols[1:])):
            raise ValueError(f"CsvDataset: {arg} must be sorted and distinct, got {cols}")
        return cols

    def _chosen(self, fields, where):
        if self._select is not None:
            if len(fields) <= self._select[-1]:
                raise errors.InvalidArgumentError(f"CsvDataset: {where} has {len(fields)} fields, fewer than "
                                                  f"select_cols needs ({self._select[-1] + 1})")
            return [fields[c] for c in self._select]
        if self._exclude is not None:
            excluded = set(self._exclude)
            fields = [f for i, f in enumerate(fields) if i not in excluded]
        if len(fields) != len(self._columns):
            raise errors.InvalidArgumentError(f"CsvDataset: expected {len(self._columns)} fields but {where} has "
                                              f"{len(fields)}")
        return fields

    def _iterate(self):
        for path in self._files:
            for number, line in enumerate(_lines(path, self._compression, "CsvDataset"), 1):
                if (number == 1 and self._header) or not line.strip():
                    continue
                where = f"record {number} of {path}"
                fields = self._chosen(split_record(line, self._delim, self._quote, "CsvDataset", f"in {where}"),
                                      where)
                yield tuple(self._scalar(f, c, f"field {i} of {where}") for i, (f, c) in
                            enumerate(zip(fields, self._columns)))

    def _scalar(self, field, column, where):
        return to_tensor([convert_field(field, column, self._na, "CsvDataset", where)], column.dtype, ())

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _element_spec(self):
        return tuple(TensorSpec((), c.dtype) for c in self._columns)


_INT_TEXT = re.compile(rb"\s*[+-]?\d+\s*")
_FLOAT_TEXT = re.compile(rb"\s*[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)\s*", re.IGNORECASE)


def _infer_default(values, na_value):
    """A column's default inferred from sample values, as make_csv_dataset infers it: the narrowest of
    int32, int64, float32 and string that holds every value (empty and na_value ones say nothing),
    with 0 or "" as the default."""
    rank = 0  # int32, int64, float32, string
    for v in values:
        if v == b"" or v == na_value:
            continue
        if _INT_TEXT.fullmatch(v):
            rank = max(rank, 0 if -2 ** 31 <= int(v) < 2 ** 31 else 1 if -2 ** 63 <= int(v) < 2 ** 63 else 2)
        elif _FLOAT_TEXT.fullmatch(v):
            rank = max(rank, 2)
        else:
            return [""]
    return [[0], [np.int64(0)], [0.0], [""]][rank]


def _header_names(path, compression, delim, quote):
    for line in _lines(path, compression, "make_csv_dataset"):
        fields = split_record(line, delim, quote, "make_csv_dataset", f"in the header of {path}")
        return [f.decode("utf-8") for f in fields]
    raise ValueError(f"make_csv_dataset: {path} is empty, so it has no header to read column names from")


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """Batches of (features, label) from CSV files (``tf.data.experimental.make_csv_dataset``):
    features is a dict from column name to a batch of values, label the ``label_name`` column
    (without it, elements are just the dict). Column names come from the header unless given;
    column types come from ``column_defaults`` or are inferred from the first
    ``num_rows_for_inference`` rows (int32, int64, float32 or string, with 0 or "" for missing
    fields).
    The files are shuffled and their records shuffled (``shuffle``, ``shuffle_seed``), repeated
    ``num_epochs`` times (None: forever) and batched."""
    del sloppy, encoding
    if ignore_errors:
        raise NotImplementedError("make_csv_dataset: ignore_errors=True is not supported")
    batch_size = check_int(batch_size, "make_csv_dataset", "batch_size", minimum=1)
    compression = compression_of(compression_type, "make_csv_dataset")
    delim, _ = parse_options(field_delim, na_value, "make_csv_dataset")
    paths = matching_files(file_pattern, "make_csv_dataset")
    files = list_files(paths, shuffle=shuffle, seed=shuffle_seed)
    if column_names is None:
        if not header:
            raise ValueError("make_csv_dataset: column_names are needed when the files have no header")
        column_names = _header_names(paths[0], compression, delim, use_quote_delim)
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError(f"make_csv_dataset: column names must be unique, got {column_names}")
    select = None
    if select_columns is not None:
        select = sorted(column_names.index(c) if isinstance(c, str) else check_int(c, "make_csv_dataset",
                                                                                   "select_columns")
                        for c in _checked_columns(select_columns, column_names))
    names = column_names if select is None else [column_names[i] for i in select]
    if label_name is not None and label_name not in names:
        raise ValueError(f"make_csv_dataset: label_name {label_name!r} is not one of the columns {names}")
    if column_defaults is None:
        na = na_value.encode("utf-8") if isinstance(na_value, str) else na_value
        defaults = _inferred_defaults(paths, compression, delim, use_quote_delim, na, header, select, len(names),
                                      num_rows_for_inference)
    else:
        defaults = list(column_defaults)
        if len(defaults) != len(names):
            raise ValueError(f"make_csv_dataset: {len(defaults)} column_defaults for {len(names)} columns")

    def read(path):
        return CsvDataset(path, defaults, compression, header=header, field_delim=field_delim,
                          use_quote_delim=use_quote_delim, na_value=na_value, select_cols=select)

    cycle = 1 if num_parallel_reads is None else (len(paths) if num_parallel_reads == AUTOTUNE
                                                  else num_parallel_reads)
    dataset = files.interleave(read, cycle_length=cycle)

    def to_features(*values):
        features = collections.OrderedDict(zip(names, values))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    dataset = dataset.map(to_features)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size)
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


def _checked_columns(select_columns, column_names):
    for c in select_columns:
        if isinstance(c, str) and c not in column_names:
            raise ValueError(f"make_csv_dataset: select_columns names {c!r}, which is not a column: {column_names}")
        yield c


def _inferred_defaults(paths, compression, delim, quote, na_value, header, select, count, rows):
    samples = [[] for _ in range(count)]
    seen = 0
    for path in paths:
        for number, line in enumerate(_lines(path, compression, "make_csv_dataset"), 1):
            if (number == 1 and header) or not line.strip():
                continue
            fields = split_record(line, delim, quote, "make_csv_dataset", f"in record {number} of {path}")
            if select is not None:
                fields = [fields[i] for i in select if i < len(fields)]
            for column, value in zip(samples, fields):
                column.append(value)
            seen += 1
            if seen >= rows:
                break
        if seen >= rows:
            break
    return [_infer_default(values, na_value) for values in samples]

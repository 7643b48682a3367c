"""File dataset sources: TextLineDataset, TFRecordDataset and Dataset.list_files.

Files are opened when a pass reaches them and read on the consumer's
thread (or a prefetch thread), one after another; elements are scalar
string tensors (ember/_strings/).
"""

import gzip
import zlib

import numpy as np

from ember import errors
from ember._checks import check_int, safe_repr
from ember.data._dataset import UNKNOWN_CARDINALITY, Dataset, check_parallelism
from ember.dtypes import string
from ember.function import TensorSpec
from ember.io._tfrecord import compression_of, open_for_reading, read_records
from ember._strings._value import StringTensor, from_array
from ember.io import gfile


def scalar_string(value):
    out = np.empty((), object)
    out[()] = value
    return from_array(out)


def _path_text(value, func):
    if isinstance(value, StringTensor):
        value = value.numpy()
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, str):
        return value
    raise TypeError(f"{func}: filenames must be strings, got {safe_repr(value)}")


class Filenames:
    """A source's `filenames`: a str, a list or string tensor of them, or a dataset of scalar strings."""

    def __init__(self, filenames, func):
        self._func = func
        if isinstance(filenames, Dataset):
            spec = filenames.element_spec
            if not isinstance(spec, TensorSpec) or spec.dtype != string or len(spec.shape) != 0:
                raise TypeError(f"{func}: a dataset of filenames must have scalar string elements, got {spec}")
            self._dataset, self._names = filenames, None
            return
        if isinstance(filenames, StringTensor):
            names = [filenames.numpy()] if filenames.ndim == 0 else list(filenames.numpy().reshape(-1))
        elif isinstance(filenames, (list, tuple)):
            names = list(filenames)
        else:
            names = [filenames]
        self._dataset, self._names = None, [_path_text(n, func) for n in names]

    def __iter__(self):
        if self._names is not None:
            return iter(self._names)
        return (_path_text(n, self._func) for n in self._dataset._iterate())


class _FileDataset(Dataset):
    _func = "file dataset"

    def __init__(self, filenames, compression_type, buffer_size, num_parallel_reads):
        self._files = Filenames(filenames, self._func)
        self._compression = compression_of(compression_type, self._func)
        if buffer_size is not None:
            check_int(buffer_size, self._func, "buffer_size", minimum=0)
        check_parallelism(num_parallel_reads, self._func, "num_parallel_reads")

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _element_spec(self):
        return TensorSpec((), string)


def _lines(path, compression, func):
    f = open_for_reading(path, compression, func)
    try:
        while True:
            try:
                line = f.readline()
            except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as e:
                raise errors.DataLossError(f"{func}: cannot decompress {path}: {e}") from None
            if not line:
                return
            if line.endswith(b"\n"):
                line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
            yield line
    finally:
        f.close()


class TextLineDataset(_FileDataset):
    """The lines of text files, one scalar string per line without its line ending
    (``tf.data.TextLineDataset``); ``compression_type`` '', 'GZIP' or 'ZLIB'. Use ``.skip(1)``
    to drop a header line (of a single file; ``flat_map`` or ``interleave`` for each file)."""

    _func = "TextLineDataset"

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        del name
        super().__init__(filenames, compression_type, buffer_size, num_parallel_reads)

    def _iterate(self):
        for path in self._files:
            for line in _lines(path, self._compression, self._func):
                yield scalar_string(line)


class TFRecordDataset(_FileDataset):
    """The records of TFRecord files, one scalar string each (``tf.data.TFRecordDataset``);
    a record that is cut short or fails its checksum raises ``ember.errors.DataLossError``
    naming the file and the record's offset."""

    _func = "TFRecordDataset"

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        del name
        super().__init__(filenames, compression_type, buffer_size, num_parallel_reads)

    def _iterate(self):
        for path in self._files:
            for record in read_records(path, self._compression, self._func):
                yield scalar_string(record)


def matching_files(file_pattern, func):
    """The sorted, distinct paths matching a glob or a list of globs; none is an error."""
    if isinstance(file_pattern, StringTensor):
        patterns = [file_pattern.numpy()] if file_pattern.ndim == 0 else list(file_pattern.numpy().reshape(-1))
    elif isinstance(file_pattern, (list, tuple)):
        patterns = list(file_pattern)
    else:
        patterns = [file_pattern]
    patterns = [_path_text(p, func) for p in patterns]
    names = sorted({path for p in patterns for path in gfile.glob(p)})
    if not names:
        raise errors.InvalidArgumentError(f"{func}: no files matched the pattern(s) {patterns}")
    return names


def list_files(file_pattern, shuffle=None, seed=None, name=None):
    """The files matching ``file_pattern`` (a glob, or a list of them) as scalar strings; shuffled
    (each pass anew, by ``seed``) unless ``shuffle=False``, else sorted. No match is an error."""
    del name
    names = matching_files(file_pattern, "list_files")
    array = np.empty(len(names), object)
    array[:] = [n.encode("utf-8") for n in names]
    dataset = Dataset.from_tensor_slices(from_array(array))
    if shuffle is None or shuffle:
        dataset = dataset.shuffle(len(names), seed=seed)
    return dataset

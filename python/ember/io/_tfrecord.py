"""TFRecord files: TFRecordWriter, TFRecordOptions and the record reader behind TFRecordDataset.

Each record is framed as TensorFlow frames it:
  uint64 length (little-endian) | uint32 masked CRC-32C of those 8 bytes |
  data | uint32 masked CRC-32C of data.
A whole file may be compressed (GZIP or ZLIB).
"""

import gzip
import struct
import zlib

from ember import errors
from ember._checks import safe_repr
from ember._wire import crc32c
from ember.io import gfile


def _masked_crc(data):
    """The checksum TFRecord stores: the CRC-32C of `data`, masked."""
    return crc32c.mask(crc32c.value(data))


_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")


def compression_of(value, func):
    """A compression_type argument ('', None, 'GZIP', 'ZLIB' or TFRecordOptions) as '', 'GZIP' or 'ZLIB'."""
    if isinstance(value, TFRecordOptions):
        value = value.compression_type
    if value is None or value == "":
        return ""
    if isinstance(value, str) and value.upper() in ("GZIP", "ZLIB"):
        return value.upper()
    raise ValueError(f"{func}: compression_type must be '', 'GZIP' or 'ZLIB', got {safe_repr(value)}")


class TFRecordOptions:
    """Options of a TFRecord file: ``compression_type`` '', 'GZIP' or 'ZLIB' (``tf.io.TFRecordOptions``);
    ``compression_level`` is zlib's 0-9 (-1 for the default)."""

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        del flush_mode, input_buffer_size, output_buffer_size, window_bits, compression_method, mem_level
        del compression_strategy
        self.compression_type = compression_of(compression_type, "TFRecordOptions")
        self.compression_level = -1 if compression_level is None else int(compression_level)


def frame(record):
    """One record's bytes as they are written to the file."""
    header = struct.pack("<Q", len(record))
    return header + struct.pack("<I", _masked_crc(header)) + record + _FOOTER.pack(_masked_crc(record))


class TFRecordWriter:
    """Writes records (bytes, or str as UTF-8) to a TFRecord file (``tf.io.TFRecordWriter``); use
    it as a context manager or call ``close()``."""

    def __init__(self, path, options=None):
        options = options if isinstance(options, TFRecordOptions) else TFRecordOptions(options)
        self._path = str(path)
        raw = gfile.GFile(self._path, "wb")._file
        if options.compression_type == "GZIP":
            level = 9 if options.compression_level < 0 else options.compression_level
            self._file = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=level, mtime=0)
        elif options.compression_type == "ZLIB":
            self._file = _ZlibWriter(raw, options.compression_level)
        else:
            self._file = raw
        self._raw = raw

    def write(self, record):
        """Appends one record."""
        if self._file is None:
            raise ValueError(f"TFRecordWriter: {self._path} is closed")
        if hasattr(record, "numpy"):
            record = record.numpy()
        if isinstance(record, str):
            record = record.encode("utf-8")
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(f"TFRecordWriter.write: record must be bytes or str, got {safe_repr(record)}")
        self._file.write(frame(bytes(record)))

    def flush(self):
        self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            if self._raw is not self._file:
                self._raw.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


class _ZlibWriter:
    def __init__(self, raw, level):
        self._raw, self._compressor = raw, zlib.compressobj(level)

    def write(self, data):
        self._raw.write(self._compressor.compress(data))

    def flush(self):
        self._raw.write(self._compressor.flush(zlib.Z_SYNC_FLUSH))

    def close(self):
        self._raw.write(self._compressor.flush())


def open_for_reading(path, compression, func):
    """A binary file object over the (decompressed) contents of path."""
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except FileNotFoundError:
        raise errors.NotFoundError(f"{func}: {path}: no such file") from None
    except OSError as e:
        raise errors.NotFoundError(f"{func}: {path}: {e.strerror}") from None
    if compression == "GZIP":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if compression == "ZLIB":
        return _ZlibReader(raw)
    return raw


class _ZlibReader:
    def __init__(self, raw):
        self._raw, self._d, self._buffer = raw, zlib.decompressobj(), b""

    def _fill(self, done):
        while not done() and not self._d.eof:
            chunk = self._raw.read(1 << 16)
            if not chunk:
                break
            self._buffer += self._d.decompress(chunk)

    def read(self, n):
        self._fill(lambda: len(self._buffer) >= n)
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def readline(self):
        self._fill(lambda: b"\n" in self._buffer)
        end = self._buffer.find(b"\n")
        end = len(self._buffer) if end < 0 else end + 1
        out, self._buffer = self._buffer[:end], self._buffer[end:]
        return out

    def close(self):
        self._raw.close()


def _read_exact(f, n, path, offset, what):
    try:
        data = f.read(n)
    except (OSError, EOFError, zlib.error) as e:
        raise errors.DataLossError(f"TFRecord file {path}: cannot decompress at record offset {offset}: {e}") \
            from None
    if len(data) != n:
        raise errors.DataLossError(f"TFRecord file {path}: truncated record at offset {offset} ({what}: "
                                   f"expected {n} bytes, found {len(data)})")
    return data


def read_records(path, compression="", func="TFRecordDataset"):
    """The records of one TFRecord file, in order; DataLossError names the file and the byte offset
    (in the uncompressed stream) of a record that is cut short or whose checksum does not match."""
    f = open_for_reading(path, compression, func)
    try:
        offset = 0
        while True:
            try:
                first = f.read(1)
            except (OSError, EOFError, zlib.error) as e:
                raise errors.DataLossError(f"TFRecord file {path}: cannot decompress at offset {offset}: {e}") \
                    from None
            if not first:
                return
            header = first + _read_exact(f, _HEADER.size - 1, path, offset, "header")
            length, length_crc = _HEADER.unpack(header)
            if _masked_crc(header[:8]) != length_crc:
                raise errors.DataLossError(f"TFRecord file {path}: corrupted record at offset {offset} (the "
                                           "length's checksum does not match)")
            data = _read_exact(f, length, path, offset, "data")
            (data_crc,) = _FOOTER.unpack(_read_exact(f, _FOOTER.size, path, offset, "checksum"))
            if _masked_crc(data) != data_crc:
                raise errors.DataLossError(f"TFRecord file {path}: corrupted record at offset {offset} (the data's "
                                           "checksum does not match)")
            yield data
            offset += _HEADER.size + length + _FOOTER.size
    finally:
        f.close()

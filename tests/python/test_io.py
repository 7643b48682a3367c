"""ember.io: files, gfile, decode_csv, serialized tensors, decode_raw and TFRecord framing, against
references written here from the formats' definitions."""

import csv
import gzip
import io
import os
import struct

import numpy as np
import pytest

import ember
from ember import errors


# --- CRC-32C and TFRecord framing ------------------------------------------------------


def bitwise_crc32c(data):
    """CRC-32C one bit at a time, straight from the definition (reflected Castagnoli polynomial)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def framed(record):
    length = struct.pack("<Q", len(record))
    return (length + struct.pack("<I", masked(bitwise_crc32c(length))) + record
            + struct.pack("<I", masked(bitwise_crc32c(record))))


def test_crc32c_check_value():
    from ember._wire.crc32c import value as crc32c

    assert crc32c(b"123456789") == 0xE3069283  # the standard check value
    assert bitwise_crc32c(b"123456789") == 0xE3069283
    rng = np.random.default_rng(0)
    for n in (0, 1, 7, 8, 9, 63, 64, 65, 1000):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert crc32c(data) == bitwise_crc32c(data)
        assert crc32c(data[n // 3:], crc32c(data[:n // 3])) == bitwise_crc32c(data)


def test_tfrecord_writer_framing(tmp_path):
    records = [b"", b"a", b"hello world", bytes(range(256)) * 3]
    path = tmp_path / "r.tfrecord"
    with ember.io.TFRecordWriter(str(path)) as writer:
        for r in records[:-1]:
            writer.write(r)
        writer.write(ember.constant(records[-1]))
    assert path.read_bytes() == b"".join(framed(r) for r in records)


def test_tfrecord_dataset_reads_independent_bytes(tmp_path):
    records = [b"x" * n for n in (0, 3, 100)]
    path = tmp_path / "hand.tfrecord"
    path.write_bytes(b"".join(framed(r) for r in records))
    got = [t.numpy() for t in ember.data.TFRecordDataset(str(path))]
    assert got == records


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_tfrecord_compressed(tmp_path, compression):
    path = str(tmp_path / f"r.{compression}")
    records = [b"one", b"two" * 50]
    with ember.io.TFRecordWriter(path, ember.io.TFRecordOptions(compression_type=compression)) as writer:
        for r in records:
            writer.write(r)
    raw = open(path, "rb").read()
    plain = gzip.decompress(raw) if compression == "GZIP" else __import__("zlib").decompress(raw)
    assert plain == b"".join(framed(r) for r in records)
    got = list(ember.data.TFRecordDataset(path, compression_type=compression).as_numpy_iterator())
    assert got == records


@pytest.mark.parametrize("where", ["length_crc", "data", "data_crc"])
def test_tfrecord_corruption_is_data_loss(tmp_path, where):
    good, bad = framed(b"first"), bytearray(framed(b"second record"))
    position = {"length_crc": 9, "data": 14, "data_crc": len(bad) - 1}[where]
    bad[position] ^= 0x01
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(good + bytes(bad))
    iterator = iter(ember.data.TFRecordDataset(str(path)))
    assert next(iterator).numpy() == b"first"
    with pytest.raises(errors.DataLossError, match=rf"bad\.tfrecord.*offset {len(good)}"):
        next(iterator)


def test_tfrecord_truncated_is_data_loss(tmp_path):
    path = tmp_path / "cut.tfrecord"
    path.write_bytes(framed(b"abc") + framed(b"defgh")[:-3])
    with pytest.raises(errors.DataLossError, match="truncated"):
        list(ember.data.TFRecordDataset(str(path)))


def test_tfrecord_missing_file(tmp_path):
    with pytest.raises(errors.NotFoundError, match="nothere"):
        list(ember.data.TFRecordDataset(str(tmp_path / "nothere")))


def test_tfrecord_writer_rejects_non_bytes(tmp_path):
    with ember.io.TFRecordWriter(str(tmp_path / "w")) as writer:
        with pytest.raises(TypeError, match="record"):
            writer.write(3)


# --- read_file, write_file, gfile -------------------------------------------------------


def test_read_write_file(tmp_path):
    path = tmp_path / "sub" / "f.bin"
    data = bytes(range(256))
    ember.io.write_file(str(path), ember.constant(data))
    assert path.read_bytes() == data
    t = ember.io.read_file(str(path))
    assert t.dtype == ember.string and t.shape == () and t.numpy() == data
    ember.io.write_file(ember.constant(str(path)), "text é")
    assert path.read_bytes() == "text é".encode()
    with pytest.raises(errors.NotFoundError, match="missing"):
        ember.io.read_file(str(tmp_path / "missing"))
    with pytest.raises(errors.InvalidArgumentError, match="scalar"):
        ember.io.write_file(str(path), ["a", "b"])


def test_gfile(tmp_path):
    gfile = ember.io.gfile
    d = str(tmp_path / "a" / "b")
    gfile.makedirs(d)
    gfile.makedirs(d)  # existing is fine
    assert gfile.isdir(d) and gfile.exists(d)
    f = os.path.join(d, "x.txt")
    with gfile.GFile(f, "w") as out:
        out.write("line1\nline2\n")
    with gfile.GFile(f) as inp:
        assert inp.read() == "line1\nline2\n"
    with gfile.GFile(f, "rb") as inp:
        assert list(inp) == [b"line1\n", b"line2\n"]
    with gfile.GFile(f, "ab") as out:
        out.write(b"more")
    assert open(f, "rb").read() == b"line1\nline2\nmore"
    assert gfile.listdir(d) == ["x.txt"]
    assert gfile.glob(os.path.join(d, "*.txt")) == [f]
    assert gfile.stat(f).length == len(b"line1\nline2\nmore")
    gfile.copy(f, f + ".2")
    with pytest.raises(errors.AlreadyExistsError):
        gfile.copy(f, f + ".2")
    gfile.remove(f)
    assert not gfile.exists(f) and not gfile.isdir(f)
    with pytest.raises(errors.NotFoundError):
        gfile.remove(f)
    with pytest.raises(errors.NotFoundError):
        gfile.GFile(f, "r")
    with pytest.raises(errors.NotFoundError):
        gfile.listdir(f)
    gfile.rmtree(str(tmp_path / "a"))
    assert not gfile.exists(d)
    with pytest.raises(errors.UnimplementedError):
        gfile.exists("gs://bucket/x")


# --- decode_csv --------------------------------------------------------------------------


def test_decode_csv_types_and_defaults():
    records = ["1,2.5,x,7", ",,,", "-3,1e3,\"q,\"\"r\"\"\",9000000000"]
    defaults = [[0], [1.5], ["dflt"], ember.constant([5], dtype=ember.int64)]
    cols = ember.io.decode_csv(records, defaults)
    assert [c.dtype for c in cols] == [ember.int32, ember.float32, ember.string, ember.int64]
    rows = list(csv.reader(io.StringIO("\n".join(records))))
    expected = [[int(r[0]) if r[0] else 0 for r in rows],
                [np.float32(r[1]) if r[1] else np.float32(1.5) for r in rows],
                [r[2].encode() if r[2] else b"dflt" for r in rows],
                [int(r[3]) if r[3] else 5 for r in rows]]
    assert [c.numpy().tolist() for c in cols] == expected


def test_decode_csv_shapes_and_options():
    records = ember.constant([["1;2", "3;4"]])
    a, b = ember.io.decode_csv(records, [[0], [0]], field_delim=";")
    assert a.shape == (1, 2) and a.numpy().tolist() == [[1, 3]] and b.numpy().tolist() == [[2, 4]]
    (s,) = ember.io.decode_csv("NA", [["d"]], na_value="NA")
    assert s.numpy() == b"d"
    x, z = ember.io.decode_csv(["1,2,3"], [[0], [0]], select_cols=[0, 2])
    assert (x.numpy().tolist(), z.numpy().tolist()) == ([1], [3])
    (q,) = ember.io.decode_csv(['"a"'], [[""]], use_quote_delim=False)
    assert q.numpy().tolist() == [b'"a"']
    (e,) = ember.io.decode_csv(ember.constant(np.empty((0,), object)), [[0.0]])
    assert e.shape == (0,) and e.dtype == ember.float32


@pytest.mark.parametrize("records,defaults,match", [
    (["1,"], [[0], ember.constant([], dtype=ember.float32)], "required"),
    (["1"], [[0], [0]], "expected 2 fields"),
    (["1,2,3"], [[0], [0]], "expected 2 fields"),
    (["abc"], [[0]], "not a valid int32"),
    (["1.5"], [[0]], "not a valid int32"),
    (["3000000000"], [[0]], "out of range"),
    (["x"], [[0.0]], "not a valid float32"),
    (['"abc'], [[""]], "closing quote"),
    (['"a"b'], [[""]], "followed by the delimiter"),
    (['a"b'], [[""]], "contains a quote"),
])
def test_decode_csv_malformed(records, defaults, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        ember.io.decode_csv(records, defaults)


def test_decode_csv_bad_defaults():
    with pytest.raises(TypeError, match="record_defaults"):
        ember.io.decode_csv(["1"], [[True]])
    with pytest.raises(TypeError, match="record_defaults"):
        ember.io.decode_csv(["1"], [ember.constant([1], dtype=ember.int8)])
    with pytest.raises(ValueError, match="at most one"):
        ember.io.decode_csv(["1"], [[1, 2]])


# --- serialize_tensor / parse_tensor --------------------------------------------------------


def _varint(v):
    out = b""
    while True:
        out += bytes([(v & 0x7F) | (0x80 if v > 0x7F else 0)])
        v >>= 7
        if not v:
            return out


def _len_field(number, payload):
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _tensor_proto(dtype_code, shape, content=None, strings=()):
    """TensorProto bytes written from its schema: dtype (1), tensor_shape (2: dim (2): size (1)),
    tensor_content (4), string_val (8)."""
    dims = b"".join(_len_field(2, (_varint(1 << 3) + _varint(d)) if d else b"") for d in shape)
    out = _varint(1 << 3) + _varint(dtype_code) + _len_field(2, dims)
    if content:
        out += _len_field(4, content)
    return out + b"".join(_len_field(8, s) for s in strings)


def test_serialize_tensor_matches_tensorproto_schema():
    value = np.array([[1, -2, 3]], np.int32)
    got = ember.io.serialize_tensor(ember.constant(value))
    assert got.dtype == ember.string and got.shape == ()
    assert got.numpy() == _tensor_proto(3, [1, 3], value.astype("<i4").tobytes())
    strings = [b"ab", b"", b"c"]
    assert ember.io.serialize_tensor(ember.constant(strings)).numpy() == _tensor_proto(7, [3], strings=strings)
    assert ember.io.serialize_tensor(ember.constant(2.5)).numpy() == _tensor_proto(
        1, [], np.float32(2.5).tobytes())


@pytest.mark.parametrize("value", [np.float32(1.5), np.arange(6, dtype=np.float64).reshape(2, 3),
                                   np.array([-1, 2**40], np.int64), np.array([True, False]),
                                   np.zeros((0, 3), np.int16), np.array([[1 + 2j]], np.complex64),
                                   np.array([255, 0], np.uint8), np.array([0.5], np.float16)])
def test_serialize_parse_roundtrip(value):
    t = ember.constant(value)
    back = ember.io.parse_tensor(ember.io.serialize_tensor(t), t.dtype)
    assert back.dtype == t.dtype and back.shape == t.shape
    np.testing.assert_array_equal(back.numpy(), value)


def test_parse_tensor_of_strings_and_typed_fields():
    s = ember.io.parse_tensor(_tensor_proto(7, [2, 1], strings=[b"x", b"yz"]), ember.string)
    assert s.numpy().tolist() == [[b"x"], [b"yz"]]
    # float_val (field 5, packed): one value fills the shape, as TensorProto allows.
    proto = _tensor_proto(1, [2]) + _len_field(5, struct.pack("<f", 4.0))
    assert ember.io.parse_tensor(proto, ember.float32).numpy().tolist() == [4.0, 4.0]
    # int_val (field 7, packed varints, negative as 64-bit two's complement).
    proto = _tensor_proto(3, [2]) + _len_field(7, _varint(5) + _varint((1 << 64) - 3))
    assert ember.io.parse_tensor(proto, ember.int32).numpy().tolist() == [5, -3]


def test_parse_tensor_errors():
    data = ember.io.serialize_tensor(ember.constant([1, 2]))
    with pytest.raises(errors.InvalidArgumentError, match="int32.*float32"):
        ember.io.parse_tensor(data, ember.float32)
    with pytest.raises(errors.InvalidArgumentError, match="parse_tensor"):
        ember.io.parse_tensor(b"\x08", ember.int32)
    with pytest.raises(errors.InvalidArgumentError, match="tensor_content"):
        ember.io.parse_tensor(_tensor_proto(3, [3], b"\0" * 8), ember.int32)


# --- decode_raw -----------------------------------------------------------------------------


def test_decode_raw():
    values = np.array([[1, -2], [300, 4]], np.int32)
    rows = [r.tobytes() for r in values]
    got = ember.io.decode_raw(rows, ember.int32)
    assert got.shape == (2, 2) and got.numpy().tolist() == values.tolist()
    big = ember.io.decode_raw(values[0].astype(">i4").tobytes(), ember.int32, little_endian=False)
    assert big.numpy().tolist() == values[0].tolist()
    assert ember.io.decode_raw(b"\x01\x02\x03", ember.uint8).numpy().tolist() == [1, 2, 3]
    f = np.array([1.5, -0.25], np.float32)
    assert ember.io.decode_raw([f.tobytes()], ember.float32).numpy().tolist() == [f.tolist()]
    padded = ember.io.decode_raw([b"\x01", b"\x02\x00\x03\x00"], ember.int16, fixed_length=4)
    assert padded.numpy().tolist() == [[1, 0], [2, 3]]
    with pytest.raises(errors.InvalidArgumentError, match="different lengths"):
        ember.io.decode_raw([b"ab", b"c"], ember.uint8)
    with pytest.raises(errors.InvalidArgumentError, match="whole number"):
        ember.io.decode_raw([b"abc"], ember.int16)
    with pytest.raises(TypeError, match="numeric"):
        ember.io.decode_raw([b"abc"], ember.string)


def test_io_in_a_function_runs_at_each_call(tmp_path):
    path = str(tmp_path / "f.txt")

    @ember.function
    def roundtrip(x):
        ember.io.write_file(path, ember.strings.as_string(x))
        return ember.strings.to_number(ember.io.read_file(path), ember.int32)

    assert int(roundtrip(ember.constant(4))) == 4
    assert int(roundtrip(ember.constant(9))) == 9
    assert open(path).read() == "9"

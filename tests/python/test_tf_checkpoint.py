# Tests reading (and writing) TensorFlow's tensor-bundle checkpoints: fixtures TensorFlow wrote, read without it.

import json
import os
import shutil
import struct

import numpy as np
import pytest

import ember
from ember._wire import crc32c
from ember._wire.protowire import Field, ProtoError, decode
from ember.errors import DataLossError, NotFoundError, UnimplementedError
from ember.train._bundle import snappy, table
from ember.train._bundle.bundle import BundleReader

DATA = os.path.join(os.path.dirname(__file__), "data", "tf_checkpoints")
EXPECTED = np.load(os.path.join(DATA, "expected.npz"))
with open(os.path.join(DATA, "expected.json")) as _f:
    META = json.load(_f)["tensors"]
GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
# fixture name in expected.* -> checkpoint prefix
FIXTURES = {"module": "module", "raw": "raw", "snappy": "snappy", "optimizer": "optimizer",
            "keras_optimizer": "keras_optimizer", "manager": os.path.join("manager", "ckpt-3")}


def _expected(fixture):
    """{key: (dtype name, shape, value)} that TensorFlow read back when it wrote the fixture."""
    out = {}
    for name, record in META.items():
        prefix, _, key = name.partition(":")
        if prefix == fixture:
            out[key] = (record["dtype"], tuple(record["shape"]), EXPECTED[name])
    return out


def _same(dtype_name, got, want):
    got = np.array(got, dtype=object) if isinstance(got, bytes) else np.asarray(got)  # a 0-d string is bytes
    if dtype_name == "bfloat16":
        got = got.view(np.uint16)  # expected.npz keeps the bit patterns
    if dtype_name == "string":
        assert got.dtype == object and all(isinstance(b, bytes) for b in got.flat)
        got = got.astype(np.bytes_) if got.size else np.zeros(got.shape, np.bytes_)
        return got.shape == want.shape and np.array_equal(got, want)
    return got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


# --- Reading every tensor ------------------------------------------------------------------------

@pytest.mark.parametrize("fixture", sorted(FIXTURES))
def test_reads_every_tensor_as_tensorflow_did(fixture):
    expected = _expected(fixture)
    assert expected, "the fixture has expected values"
    reader = ember.train.load_checkpoint(os.path.join(DATA, FIXTURES[fixture]))
    shapes, dtypes = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
    assert set(shapes) - {GRAPH_KEY} == set(expected)
    for key, (dtype_name, shape, want) in expected.items():
        assert getattr(dtypes[key], "name", dtypes[key]) == dtype_name, key
        assert tuple(shapes[key]) == shape, key
        got = reader.get_tensor(key)
        assert _same(dtype_name, got, want), (key, got, want)
        assert reader.has_tensor(key)
    assert not reader.has_tensor("no/such/key")


def test_dtypes_map_to_ember_dtypes_where_ember_has_them():
    dtypes = ember.train.load_checkpoint(os.path.join(DATA, "raw")).get_variable_to_dtype_map()
    assert dtypes["num/float32"] == ember.float32 and dtypes["num/bfloat16"] == ember.bfloat16
    assert dtypes["num/bool"] == ember.bool and dtypes["num/int64"] == ember.int64
    assert dtypes["num/uint32"] == "uint32" and dtypes["str/scalar"] == "string"


def test_string_tensors_read_as_bytes():
    reader = ember.train.load_checkpoint(os.path.join(DATA, "raw"))
    assert reader.get_tensor("str/scalar") == b"hello, bundle"
    matrix = reader.get_tensor("str/matrix")
    assert matrix.shape == (2, 2) and matrix[1, 0] == b"b\x00c" and matrix[1, 1] == b"x" * 300
    assert reader.get_tensor("str/empty").shape == (0,)


def test_list_variables_and_a_directory():
    listed = ember.train.list_variables(os.path.join(DATA, "manager"))  # the directory: its latest checkpoint
    assert listed == sorted(listed)
    assert dict(listed)["model/w/.ATTRIBUTES/VARIABLE_VALUE"] == [2, 2]
    assert dict(listed)[GRAPH_KEY] == []
    assert [k for k, _ in listed if k != GRAPH_KEY] == sorted(_expected("manager"))


def test_the_snappy_fixture_really_has_compressed_blocks():
    path = os.path.join(DATA, "snappy.index")
    with open(path, "rb") as f:
        data = f.read()
    index_handle = table._handle(data[-table.FOOTER_SIZE:], table._handle(data[-table.FOOTER_SIZE:], 0)[1])[0]
    index = table._entries(path, table._block(path, data, index_handle, len(data) - 48, "index"), "index")
    kinds = [data[sum(table._handle(h, 0)[0])] for _, h in index]
    assert len(kinds) > 3 and set(kinds) == {1}  # several data blocks, all Snappy


def test_a_missing_key_is_not_found():
    reader = ember.train.load_checkpoint(os.path.join(DATA, "module"))
    with pytest.raises(NotFoundError, match="'model/nope' not found"):
        reader.get_tensor("model/nope")


def test_load_checkpoint_reads_embers_own_format_and_refuses_nothing(tmp_path):
    path = ember.train.Checkpoint(v=ember.Variable([1.0, 2.0])).write(os.path.join(tmp_path, "e"))
    reader = ember.train.load_checkpoint(path)
    np.testing.assert_array_equal(reader.get_tensor("v"), [1.0, 2.0])
    assert reader.get_variable_to_dtype_map()["v"] == ember.float32
    with pytest.raises(NotFoundError, match="no checkpoint"):
        ember.train.load_checkpoint(os.path.join(tmp_path, "missing"))
    os.mkdir(os.path.join(tmp_path, "empty"))
    with pytest.raises(ValueError, match="Couldn't find"):
        ember.train.load_checkpoint(os.path.join(tmp_path, "empty"))


# --- Restoring into Ember objects ----------------------------------------------------------------

class Dense(ember.Module):
    def __init__(self, n_in, n_out, build=True):
        super().__init__()
        self.n_in, self.n_out = n_in, n_out
        self.w = ember.Variable(np.zeros([n_in, n_out], np.float32)) if build else None
        self.b = ember.Variable(np.zeros([n_out], np.float32))

    def build(self):
        self.w = ember.Variable(np.zeros([self.n_in, self.n_out], np.float32))


def _zeros(dtype, shape):
    return ember.Variable(ember.zeros(shape, dtype=dtype))


class Model(ember.Module):
    """The structure of make_fixtures.py's Model, by attribute name; every value zero."""

    def __init__(self, build_last=True, w_shape=(3, 2), i32_dtype=ember.int32, skip=()):
        super().__init__()
        self.layers = [Dense(*w_shape), Dense(2, 1, build=build_last)]
        self.table = {"f64": _zeros(ember.float64, [2, 2]), "i32": _zeros(i32_dtype, [3]),
                      "i64": _zeros(ember.int64, []), "flag": _zeros(ember.bool, [3])}
        self.half = _zeros(ember.float16, [4])
        self.bf16 = _zeros(ember.bfloat16, [3])
        self.small_ints = [_zeros(ember.int8, [4]), _zeros(ember.int16, [2, 2]), _zeros(ember.uint8, [5])]
        if "c64" not in skip:
            self.c64 = _zeros(ember.complex64, [2])
        self.scalar = _zeros(ember.float32, [])
        self.empty = _zeros(ember.float32, [0, 3])
        self.step = _zeros(ember.int64, [])


def _check_model(model):
    expected = _expected("module")
    checked = 0
    for var_path, var in _variables_by_tf_key(model).items():
        dtype_name, _, want = expected[var_path]
        assert _same(dtype_name, var.numpy(), want), var_path
        checked += 1
    return checked


def _variables_by_tf_key(model):
    from ember.train import _object_graph as graph
    variables, _ = graph.walk(model)
    return {"model/" + "/".join(str(p) for p in path) + "/.ATTRIBUTES/VARIABLE_VALUE": v for path, v in variables}


def test_restore_into_an_equivalent_module():
    model = Model()
    status = ember.train.Checkpoint(model=model).restore(os.path.join(DATA, "module"))
    status.assert_consumed()
    assert _check_model(model) == len(_expected("module")) == 17


def test_read_restores_too_and_values_are_independent_of_the_file():
    model = Model()
    ember.train.Checkpoint(model=model).read(os.path.join(DATA, "module")).assert_existing_objects_matched()
    model.scalar.assign(9.0)
    assert float(ember.train.load_checkpoint(os.path.join(DATA, "module"))
                 .get_tensor("model/scalar/.ATTRIBUTES/VARIABLE_VALUE")) == 2.5


def test_deferred_restore_of_a_variable_made_later():
    model = Model(build_last=False)
    status = ember.train.Checkpoint(model=model).restore(os.path.join(DATA, "module"))
    with pytest.raises(AssertionError, match="layers/1/w"):
        status.assert_consumed()
    model.layers[1].build()  # the attribute set assigns the waiting value
    want = _expected("module")["model/layers/1/w/.ATTRIBUTES/VARIABLE_VALUE"][2]
    np.testing.assert_array_equal(model.layers[1].w.numpy(), want)
    status.assert_consumed()


def test_values_with_no_variable_fail_assert_consumed_until_expect_partial():
    model = Model(skip=("c64",))
    status = ember.train.Checkpoint(model=model).restore(os.path.join(DATA, "module"))
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="c64"):
        status.assert_consumed()
    status.expect_partial()
    assert _check_model(model) == 16


def test_optimizer_slots_are_reported_not_restored():
    model = Dense(2, 2)
    status = ember.train.Checkpoint(model=model).restore(os.path.join(DATA, "optimizer"))
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="optimizer slot 'momentum'.*model/w"):
        status.assert_consumed()
    expected = _expected("optimizer")
    np.testing.assert_array_equal(model.w.numpy(), expected["model/w/.ATTRIBUTES/VARIABLE_VALUE"][2])
    np.testing.assert_array_equal(model.b.numpy(), expected["model/b/.ATTRIBUTES/VARIABLE_VALUE"][2])


def test_keras3_optimizer_state_waits_unmatched():
    model, optimizer = Dense(2, 2), ember.optimizers.Adam(0.1)
    status = ember.train.Checkpoint(model=model, optimizer=optimizer).restore(os.path.join(DATA, "keras_optimizer"))
    with pytest.raises(AssertionError, match="optimizer/iterations"):  # Keras names it _iterations
        status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="optimizer/_iterations.*optimizer/_variables/2"):
        status.assert_consumed()
    status.expect_partial()
    np.testing.assert_array_equal(model.w.numpy(),
                                  _expected("keras_optimizer")["model/w/.ATTRIBUTES/VARIABLE_VALUE"][2])


def test_a_shape_mismatch_names_the_key_and_both_shapes():
    with pytest.raises(ValueError, match=r"layers/0/w.*shape \(3, 2\) in the checkpoint.*\(4, 2\)"):
        ember.train.Checkpoint(model=Model(w_shape=(4, 2))).restore(os.path.join(DATA, "module"))


def test_a_dtype_mismatch_names_the_key():
    with pytest.raises(TypeError, match="table/i32.*int32.*int64"):
        ember.train.Checkpoint(model=Model(i32_dtype=ember.int64)).restore(os.path.join(DATA, "module"))


def test_a_bundle_without_object_graph_cannot_be_restored_by_structure():
    with pytest.raises(NotFoundError, match="no object graph.*load_checkpoint"):
        ember.train.Checkpoint(v=ember.Variable(1.0)).restore(os.path.join(DATA, "raw"))


def test_sliced_tensors_are_refused_clearly():
    reader = ember.train.load_checkpoint(os.path.join(DATA, "sliced"))
    assert reader.get_variable_to_shape_map() == {"part": [4, 3], "whole": [2]}
    np.testing.assert_array_equal(reader.get_tensor("whole"), [1.0, 2.0])
    with pytest.raises(UnimplementedError, match=r"sliced\.index.*'part' is saved as 2 slices"):
        reader.get_tensor("part")


def test_tensorflow_manager_directory(tmp_path):
    directory = os.path.join(tmp_path, "run")
    shutil.copytree(os.path.join(DATA, "manager"), directory)
    assert ember.train.latest_checkpoint(directory) == os.path.join(directory, "ckpt-3")
    model, step = Dense(2, 2), ember.Variable(np.int64(0))
    ckpt = ember.train.Checkpoint(model=model, step=step)
    manager = ember.train.CheckpointManager(ckpt, directory, max_to_keep=2)
    assert manager.checkpoints == [os.path.join(directory, "ckpt-2"), os.path.join(directory, "ckpt-3")]
    assert manager.restore_or_initialize() == os.path.join(directory, "ckpt-3")
    assert int(step.numpy()) == 3 and int(ckpt.save_counter.numpy()) == 3
    np.testing.assert_array_equal(model.w.numpy(), _expected("manager")["model/w/.ATTRIBUTES/VARIABLE_VALUE"][2])
    assert manager.save() == os.path.join(directory, "ckpt-4")  # in Ember's format; the oldest TF one goes
    assert sorted(os.listdir(directory)) == ["checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index",
                                             "ckpt-4.ckpt"]
    assert ember.train.latest_checkpoint(directory) == os.path.join(directory, "ckpt-4")


def test_tensorflow_state_file_with_absolute_paths_and_escapes(tmp_path):
    shutil.copy(os.path.join(DATA, "module.index"), os.path.join(tmp_path, 'we"ird.index'))
    with open(os.path.join(tmp_path, "checkpoint"), "w") as f:
        f.write(f'model_checkpoint_path: "{tmp_path}/we\\"ird"\nall_model_checkpoint_paths: "{tmp_path}/we\\"ird"\n')
    assert ember.train.latest_checkpoint(tmp_path) == os.path.join(tmp_path, 'we"ird')
    with open(os.path.join(tmp_path, "checkpoint"), "w") as f:
        f.write("model_checkpoint_path ckpt-1\n")
    with pytest.raises(ValueError, match="line 1 is neither JSON nor TensorFlow's"):
        ember.train.latest_checkpoint(tmp_path)


# --- Damaged files -------------------------------------------------------------------------------

def _copy(fixture, tmp_path):
    """A copy of the fixture's files in tmp_path; returns its prefix."""
    for name in os.listdir(DATA):
        if name.startswith(fixture + "."):
            shutil.copy(os.path.join(DATA, name), tmp_path)
    return os.path.join(tmp_path, fixture)


def _read_all(prefix):
    reader = ember.train.load_checkpoint(prefix)
    return {key: reader.get_tensor(key) for key in reader.get_variable_to_shape_map()}


def _flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0x40]))


def test_a_corrupt_index_block_fails_its_checksum(tmp_path):
    prefix = _copy("module", tmp_path)
    _flip(prefix + ".index", 30)  # inside the first data block
    with pytest.raises(DataLossError, match=r"module\.index' is corrupt: the data block at offset 0 fails its CRC"):
        ember.train.load_checkpoint(prefix)
    with pytest.raises(DataLossError, match="CRC"):
        ember.train.Checkpoint(model=Model()).restore(prefix)


def test_corrupt_tensor_data_fails_its_checksum(tmp_path):
    prefix = _copy("module", tmp_path)
    reader = BundleReader(prefix)
    entry = reader._entries["model/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE"]
    _flip(prefix + ".data-00000-of-00001", entry["offset"] + 5)
    with pytest.raises(DataLossError, match=r"module\.data-00000-of-00001' is corrupt: the data of "
                                            r"'model/layers/0/w/\.ATTRIBUTES/VARIABLE_VALUE'.*CRC-32C"):
        ember.train.load_checkpoint(prefix).get_tensor("model/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE")
    with pytest.raises(DataLossError, match="layers/0/w"):
        ember.train.Checkpoint(model=Model()).restore(prefix)


def test_corrupt_string_data_fails_its_checksum(tmp_path):
    prefix = _copy("raw", tmp_path)
    entry = BundleReader(prefix)._entries["str/matrix"]
    path = f"{prefix}.data-{entry['shard_id']:05d}-of-00002"
    _flip(path, entry["offset"] + entry["size"] - 3)  # inside the element bytes
    with pytest.raises(DataLossError, match=r"'str/matrix' fails its CRC-32C"):
        ember.train.load_checkpoint(prefix).get_tensor("str/matrix")
    _flip(path, entry["offset"] + entry["size"] - 3)
    _flip(path, entry["offset"])  # a length
    with pytest.raises(DataLossError, match="str/matrix"):
        ember.train.load_checkpoint(prefix).get_tensor("str/matrix")


@pytest.mark.parametrize("keep", [0, 10, 47, 48, 200, 1000])
def test_a_truncated_index_is_refused(tmp_path, keep):
    prefix = _copy("module", tmp_path)
    with open(prefix + ".index", "r+b") as f:
        f.truncate(keep)
    with pytest.raises(DataLossError, match=r"module\.index.*(truncated|not a checkpoint index)"):
        ember.train.load_checkpoint(prefix)


def test_a_truncated_data_file_is_refused(tmp_path):
    prefix = _copy("module", tmp_path)
    with open(prefix + ".data-00000-of-00001", "r+b") as f:
        f.truncate(100)
    reader = ember.train.load_checkpoint(prefix)
    with pytest.raises(DataLossError, match=r"module\.data-00000-of-00001' is truncated: "):
        _read_all(prefix)
    assert reader.get_tensor("model/table/i64/.ATTRIBUTES/VARIABLE_VALUE").shape == ()  # within the first 100


def test_a_missing_data_shard_is_named(tmp_path):
    prefix = _copy("raw", tmp_path)
    os.remove(prefix + ".data-00001-of-00002")
    reader = ember.train.load_checkpoint(prefix)
    in_first = [k for k in reader.get_variable_to_shape_map() if BundleReader(prefix)._entries[k]["shard_id"] == 0]
    for key in in_first:
        reader.get_tensor(key)
    with pytest.raises(NotFoundError, match=r"missing its data file '.*raw\.data-00001-of-00002'"):
        _read_all(prefix)


@pytest.mark.parametrize("fixture", ["module", "snappy"])
def test_every_single_byte_flip_of_an_index_is_caught_or_harmless(tmp_path, fixture):
    """No flipped byte makes the reader crash, hang or return wrong values."""
    prefix = _copy(fixture, tmp_path)
    want = _read_all(prefix)
    with open(prefix + ".index", "rb") as f:
        original = f.read()
    harmless = []
    for offset in range(len(original)):
        damaged = bytearray(original)
        damaged[offset] ^= 0x40
        with open(prefix + ".index", "wb") as f:
            f.write(damaged)
        try:
            got = _read_all(prefix)
        except (DataLossError, NotFoundError, UnimplementedError):
            continue
        harmless.append(offset)
        assert got.keys() == want.keys(), offset
        for key in want:
            assert np.array_equal(np.asarray(got[key]), np.asarray(want[key])), (offset, key)
    footer_padding = range(len(original) - table.FOOTER_SIZE + 4, len(original) - 8)  # after two short handles
    assert harmless and all(offset in footer_padding for offset in harmless), harmless


def test_every_single_byte_flip_of_a_data_file_is_caught(tmp_path):
    prefix = _copy("module", tmp_path)
    path = prefix + ".data-00000-of-00001"
    with open(path, "rb") as f:
        original = f.read()
    for offset in range(0, len(original), 7):
        _flip(path, offset)
        with pytest.raises(DataLossError, match="fails"):
            _read_all(prefix)
        _flip(path, offset)


def test_a_crafted_entry_with_a_huge_size_is_refused_without_allocating_it(tmp_path):
    from ember._wire import protowire
    from ember.train._bundle import bundle
    prefix = os.path.join(tmp_path, "x")
    header = protowire.encode({"num_shards": 1}, bundle.HEADER)
    entry = protowire.encode({"dtype": 7, "shape": {"dim": [{"size": 1}]}, "size": 1 << 60}, bundle.ENTRY)
    with open(prefix + ".index", "wb") as f:
        f.write(table.build_table([(b"", header), (b"s", entry)]))
    with open(prefix + ".data-00000-of-00001", "wb") as f:
        f.write(b"\0" * 10)
    with pytest.raises(DataLossError, match=r"x\.data-00000-of-00001' is truncated: 's' needs bytes 0 to "):
        ember.train.load_checkpoint(prefix).get_tensor("s")


def test_a_big_endian_bundle_is_converted(tmp_path):
    from ember._wire import protowire
    from ember.train._bundle import bundle
    values = np.array([[1.5, -2.0, 3.25]], dtype=">f4")
    raw = values.tobytes()
    strings = [b"ab", b"c"]  # lengths and their checksum are big-endian too
    lengths_crc = crc32c.value(struct.pack(">I", 2) + struct.pack(">I", 1))
    stored_crc = struct.pack(">I", crc32c.mask(lengths_crc))
    text = bytes([2, 1]) + stored_crc + b"abc"
    text_crc = crc32c.value(stored_crc + b"abc", lengths_crc)
    rows = [(b"", protowire.encode({"num_shards": 1, "endianness": 1}, bundle.HEADER))]
    rows.append((b"f", protowire.encode({"dtype": 1, "shape": {"dim": [{"size": 1}, {"size": 3}]}, "size": len(raw),
                                         "crc32c": crc32c.mask(crc32c.value(raw))}, bundle.ENTRY)))
    rows.append((b"s", protowire.encode({"dtype": 7, "shape": {"dim": [{"size": 2}]}, "offset": len(raw),
                                         "size": len(text), "crc32c": crc32c.mask(text_crc)}, bundle.ENTRY)))
    prefix = os.path.join(tmp_path, "be")
    with open(prefix + ".index", "wb") as f:
        f.write(table.build_table(rows))
    with open(prefix + ".data-00000-of-00001", "wb") as f:
        f.write(raw + text)
    reader = ember.train.load_checkpoint(prefix)
    got = reader.get_tensor("f")
    assert got.dtype == np.float32 and got.dtype.isnative
    np.testing.assert_array_equal(got, values.astype(np.float32))
    assert list(reader.get_tensor("s")) == strings


# --- The format's pieces ---------------------------------------------------------------------------

def test_crc32c_known_values_and_the_vectorized_path():
    assert crc32c.value(b"123456789") == 0xE3069283
    assert crc32c.value(b"") == 0
    assert crc32c.value(b"\0" * 32) == 0x8A9136AA
    rng = np.random.default_rng(0)
    for n in (4095, 4096, 4097, 10_007, 1 << 16, 123_457):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        whole = crc32c.value(data)
        assert whole == crc32c._feed_bytes(data, 0xFFFFFFFF) ^ 0xFFFFFFFF, n
        assert crc32c.value(data[n // 3:], crc32c.value(data[:n // 3])) == whole, n
    for crc in (0, 1, 0xFFFFFFFF, 0xE3069283):
        assert crc32c.unmask(crc32c.mask(crc)) == crc
        assert crc32c.mask(crc) != crc


def test_snappy_matches_the_reference_library():
    vectors = np.load(os.path.join(DATA, "snappy_vectors.npz"))
    names = sorted({k.split(":")[0] for k in vectors.files})
    assert len(names) >= 5
    for name in names:
        raw, compressed = vectors[f"{name}:raw"].tobytes(), vectors[f"{name}:compressed"].tobytes()
        assert snappy.decompress(compressed) == raw, name


def test_snappy_copies_and_bad_input():
    # 6 bytes: literal "abc", a 2-byte-offset copy of 3 back (overlapping), a 4-byte-offset copy.
    block = bytes([12, 2 << 2]) + b"abc" + bytes([(5 << 2) | 2]) + struct.pack("<H", 3) \
        + bytes([(2 << 2) | 3]) + struct.pack("<I", 9)
    assert snappy.decompress(block) == b"abcabcabcabc"
    for bad, why in [(b"", "preamble"), (bytes([5, 8]) + b"ab", "past the end"),
                     (bytes([4, 1 << 2 | 1, 9]), "offset"), (bytes([3, 0]) + b"a", "states 3"),
                     (bytes([2, 2 << 2]) + b"abc", "longer")]:
        with pytest.raises(snappy.SnappyError, match=why):
            snappy.decompress(bad)


def test_protowire_decoding():
    schema = {1: Field("a", "int32"), 2: Field("b", "int64", repeated=True), 3: Field("s", "string"),
              4: Field("m", "message", message={1: Field("x", "uint64")}), 5: Field("f", "fixed32")}
    blob = (bytes([0x08]) + b"\xff" * 9 + b"\x01"  # a = -1, as a 10-byte varint
            + bytes([0x12, 3, 1, 2, 0x7F])  # b packed: 1, 2, 127
            + bytes([0x10, 5])  # b unpacked: 5
            + bytes([0x1A, 2]) + b"hi" + bytes([0x22, 2, 0x08, 7]) + bytes([0x2D]) + struct.pack("<I", 9)
            + bytes([0x38, 1]))  # field 7: unknown, skipped
    assert decode(blob, schema) == {"a": -1, "b": [1, 2, 127, 5], "s": "hi", "m": {"x": 7}, "f": 9}
    assert decode(b"", schema) == {"a": 0, "b": [], "s": "", "m": None, "f": 0}
    for bad in (b"\x08", b"\x1a\x05ab", b"\x0b", b"\x1a\x02\xff\xfe"):
        with pytest.raises(ProtoError):
            decode(bad, schema)


# --- Writing TensorFlow's format -------------------------------------------------------------------
# check_tensorflow_reads_ember.py (run by hand, with TensorFlow) checks that TensorFlow reads these files;
# here each tensor's stored bytes and checksum are compared with what TensorFlow wrote for the same value.

def _stored(prefix):
    """{key: (dtype, shape, masked crc, data bytes)} of a bundle's entries."""
    reader = BundleReader(prefix)
    out = {}
    for key in reader.keys():
        entry = reader._entries[key]
        raw, _ = reader._read(key, entry)
        out[key] = (entry["dtype"], reader.shape(key), entry["crc32c"], raw)
    return out


def test_written_tensors_are_stored_as_tensorflow_stores_them(tmp_path):
    model = Model()
    ember.train.Checkpoint(model=model).restore(os.path.join(DATA, "module")).assert_consumed()
    prefix = ember.train.Checkpoint(model=model).write(os.path.join(tmp_path, "out"), file_format="tensorflow")
    assert prefix == os.path.join(tmp_path, "out")
    assert sorted(os.listdir(tmp_path)) == ["out.data-00000-of-00001", "out.index"]
    ours, theirs = _stored(prefix), _stored(os.path.join(DATA, "module"))
    assert set(ours) == set(theirs) | {"save_counter/.ATTRIBUTES/VARIABLE_VALUE"}
    for key in theirs:
        if key != GRAPH_KEY:
            assert ours[key] == theirs[key], key

    fresh = Model()
    ember.train.Checkpoint(model=fresh).restore(prefix).assert_consumed()
    assert _check_model(fresh) == 17


def test_written_strings_are_stored_as_tensorflow_stores_them(tmp_path):
    from ember.train._bundle.writer import write_bundle
    theirs = _stored(os.path.join(DATA, "raw"))
    reader = ember.train.load_checkpoint(os.path.join(DATA, "raw"))
    keys = [k for k in theirs if k.startswith("str/") or k.startswith("num/")]
    write_bundle(os.path.join(tmp_path, "s"), {k: reader.get_tensor(k) for k in keys})
    ours = _stored(os.path.join(tmp_path, "s"))
    for key in keys:
        assert ours[key] == theirs[key], key


def test_shared_variables_and_escaped_names_survive_a_roundtrip(tmp_path):
    shared = ember.Variable([1.0, 2.0])
    box = {"a.b/c": shared, "d": [shared, ember.Variable(np.int64(3))]}
    prefix = ember.train.Checkpoint(box=box).write(os.path.join(tmp_path, "s"), file_format="tensorflow")
    keys = set(ember.train.load_checkpoint(prefix).get_variable_to_shape_map())
    assert keys == {GRAPH_KEY, "box/a..b.Sc/.ATTRIBUTES/VARIABLE_VALUE", "box/d/1/.ATTRIBUTES/VARIABLE_VALUE",
                    "save_counter/.ATTRIBUTES/VARIABLE_VALUE"}  # the shared variable is stored once
    shared2 = ember.Variable([0.0, 0.0])
    box2 = {"a.b/c": shared2, "d": [shared2, ember.Variable(np.int64(0))]}
    ember.train.Checkpoint(box=box2).restore(prefix).assert_consumed()
    np.testing.assert_array_equal(shared2.numpy(), [1.0, 2.0])
    assert int(box2["d"][1].numpy()) == 3


def test_writing_one_format_replaces_the_other(tmp_path):
    v = ember.Variable([1.0])
    ckpt = ember.train.Checkpoint(v=v)
    prefix = os.path.join(tmp_path, "p")
    ckpt.write(prefix)
    v.assign([2.0])
    ckpt.write(prefix, file_format="tensorflow")
    assert sorted(os.listdir(tmp_path)) == ["p.data-00000-of-00001", "p.index"]
    v.assign([0.0])
    ckpt.restore(prefix).assert_consumed()
    assert float(v.numpy()[0]) == 2.0
    v.assign([3.0])
    ckpt.write(prefix)
    assert sorted(os.listdir(tmp_path)) == ["p.ckpt"]
    v.assign([0.0])
    ckpt.restore(prefix).assert_consumed()
    assert float(v.numpy()[0]) == 3.0
    with pytest.raises(ValueError, match="file_format must be"):
        ckpt.write(prefix, file_format="tf")

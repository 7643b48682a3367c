"""Writes the TensorFlow checkpoints that tests/python/test_tf_checkpoint.py reads (run once; outputs are committed).

TensorFlow is not a test dependency: run this in a separate environment,

    python -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu cramjam
    /tmp/tfvenv/bin/python tests/python/data/tf_checkpoints/make_fixtures.py

It writes, next to itself:
  module.*         tf.train.Checkpoint(model=<nested tf.Modules>).write("module"): variables of
                   many dtypes in submodules, a list and a dict, a 0-d scalar and an empty tensor.
  raw.*            tf.raw_ops.SaveV2 twice, merged into one two-shard bundle: every numeric dtype
                   and string tensors (no object graph).
  sliced.*         a bundle with a partitioned (sliced) tensor, which Ember refuses.
  snappy.*         a checkpoint of 80 variables whose .index this script rewrites with small,
                   Snappy-compressed blocks (TensorFlow writes it uncompressed), then checks that
                   TensorFlow still reads every value back from the rewritten file.
  optimizer.*      a model and tf.compat.v1.train.MomentumOptimizer after one step: slot variables.
  keras_optimizer.*  the same with a Keras 3 Adam: its state as plain variables of the optimizer.
  manager/         tf.train.CheckpointManager(max_to_keep=2) after three saves: ckpt-2, ckpt-3 and
                   TensorFlow's text `checkpoint` state file.
  expected.npz     every tensor's value, keyed "<fixture>:<checkpoint key>"; bfloat16 values are
                   stored as their uint16 bit patterns and strings as fixed-width bytes.
  expected.json    {"<fixture>:<key>": {"dtype": TensorFlow dtype name, "shape": [...]}} and the
                   TensorFlow version.
  snappy_vectors.npz  raw/compressed pairs from the reference Snappy library (via cramjam).
"""

import json
import os
import shutil
import struct
import sys
import tempfile

import cramjam
import google_crc32c
import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(25)


def values(name, dtype, shape):
    """Deterministic test values of any dtype."""
    size = int(np.prod(shape))
    if dtype == tf.bool:
        return RNG.integers(0, 2, size).astype(bool).reshape(shape)
    if dtype.is_complex:
        real = RNG.standard_normal(size) + 1j * RNG.standard_normal(size)
        return real.astype(dtype.as_numpy_dtype).reshape(shape)
    if dtype.is_integer:
        info = np.iinfo(dtype.as_numpy_dtype)
        low, high = max(info.min, -1000), min(info.max, 1000)
        out = RNG.integers(low, high, size, endpoint=True).astype(dtype.as_numpy_dtype)
        if size >= 2:  # the extremes too
            out[0], out[-1] = info.min, info.max
        return out.reshape(shape)
    return (RNG.standard_normal(size) * 3).astype(dtype.as_numpy_dtype).reshape(shape)


class Dense(tf.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(values("w", tf.float32, [n_in, n_out]), name="w")
        self.b = tf.Variable(values("b", tf.float32, [n_out]), name="b")


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(3, 2), Dense(2, 1)]
        self.table = {
            "f64": tf.Variable(values("f64", tf.float64, [2, 2])),
            "i32": tf.Variable(values("i32", tf.int32, [3])),
            "i64": tf.Variable(np.int64(-(2 ** 40) - 7)),
            "flag": tf.Variable(np.array([True, False, True])),
        }
        self.half = tf.Variable(values("half", tf.float16, [4]))
        self.bf16 = tf.Variable(values("bf16", tf.bfloat16, [3]))
        self.small_ints = [tf.Variable(values("i8", tf.int8, [4])), tf.Variable(values("i16", tf.int16, [2, 2])),
                           tf.Variable(values("u8", tf.uint8, [5]))]
        self.c64 = tf.Variable(values("c64", tf.complex64, [2]))
        self.scalar = tf.Variable(2.5)
        self.empty = tf.Variable(np.zeros([0, 3], np.float32))
        self.step = tf.Variable(np.int64(7), trainable=False)


RAW_DTYPES = [tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8,
              tf.uint16, tf.uint32, tf.uint64, tf.bool, tf.complex64, tf.complex128]
STRINGS = {
    "str/scalar": np.array(b"hello, bundle"),
    "str/matrix": np.array([[b"", b"a"], [b"b\x00c", b"x" * 300]]),  # a 2-byte length varint
    "str/empty": np.zeros([0], dtype="S1"),
}


def encode(value, dtype):
    """(array for expected.npz, expected.json record) of a tensor value."""
    array = np.asarray(value)
    record = {"dtype": dtype.name, "shape": list(array.shape)}
    if dtype == tf.bfloat16:
        array = array.view(np.uint16)
    if dtype == tf.string:  # no element ends in a NUL byte, which fixed-width bytes would drop
        array = array.astype(np.bytes_)
    return array, record


def write_module(expected, meta):
    model = Model()
    ckpt = tf.train.Checkpoint(model=model)
    prefix = ckpt.write(os.path.join(HERE, "module"))
    record_all("module", prefix, expected, meta)


def record_all(fixture, prefix, expected, meta):
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    for key in sorted(dtypes):
        if key == "_CHECKPOINTABLE_OBJECT_GRAPH":
            continue
        array, record = encode(reader.get_tensor(key), dtypes[key])
        expected[f"{fixture}:{key}"] = array
        meta[f"{fixture}:{key}"] = record


def write_raw(expected, meta):
    tmp = tempfile.mkdtemp()
    parts = [{}, {}]
    for i, dtype in enumerate(RAW_DTYPES):
        parts[i % 2][f"num/{dtype.name}"] = (values(dtype.name, dtype, [2, 3]), dtype)
    parts[0]["num/float32_scalar"] = (np.float32(-0.0), tf.float32)
    parts[1]["num/int32_empty"] = (np.zeros([2, 0], np.int32), tf.int32)
    for key, value in STRINGS.items():
        parts[1][key] = (value, tf.string)
    prefixes = []
    for n, part in enumerate(parts):
        p = os.path.join(tmp, f"part{n}")
        names = sorted(part)
        tf.raw_ops.SaveV2(prefix=p, tensor_names=names, shape_and_slices=[""] * len(names),
                          tensors=[tf.constant(part[k][0], dtype=part[k][1]) for k in names])
        prefixes.append(p)
    tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=prefixes, destination_prefix=os.path.join(HERE, "raw"),
                                  delete_old_dirs=False)
    shutil.rmtree(tmp)
    record_all("raw", os.path.join(HERE, "raw"), expected, meta)


def write_sliced():
    # One [4, 3] tensor saved as two row slices (a partitioned variable), plus an ordinary one.
    prefix = os.path.join(HERE, "sliced")
    full = values("sliced", tf.float32, [4, 3])
    tmp = tempfile.mkdtemp()
    parts = []
    for n, (rows, spec) in enumerate([(full[:2], "4 3 0,2:-"), (full[2:], "4 3 2,2:-")]):
        p = os.path.join(tmp, f"s{n}")
        names, specs, tensors = ["part"], [spec], [tf.constant(rows)]
        if n == 0:
            names, specs, tensors = ["part", "whole"], [spec, ""], [tf.constant(rows), tf.constant([1.0, 2.0])]
        tf.raw_ops.SaveV2(prefix=p, tensor_names=names, shape_and_slices=specs, tensors=tensors)
        parts.append(p)
    tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=parts, destination_prefix=prefix, delete_old_dirs=False)
    shutil.rmtree(tmp)
    got = tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=["part"], shape_and_slices=[""], dtypes=[tf.float32])
    assert np.array_equal(got[0].numpy(), full), "TensorFlow did not read the sliced tensor back"


# --- Rewriting an .index with Snappy-compressed blocks (LevelDB table format) -----------------

def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def read_varint(buf, pos):
    shift = result = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos


def masked_crc(data):
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def block_entries(block):
    """[(key, value)] of an uncompressed block's contents (without the trailer)."""
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    end = len(block) - 4 - 4 * num_restarts
    pos, key, out = 0, b"", []
    while pos < end:
        shared, pos = read_varint(block, pos)
        unshared, pos = read_varint(block, pos)
        size, pos = read_varint(block, pos)
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        out.append((key, block[pos:pos + size]))
        pos += size
    return out


def build_block(entries, restart_interval):
    out, restarts, last = bytearray(), [], b""
    for i, (key, value) in enumerate(entries):
        shared = 0
        if i % restart_interval == 0:
            restarts.append(len(out))
        else:
            while shared < min(len(last), len(key)) and last[shared] == key[shared]:
                shared += 1
        out += varint(shared) + varint(len(key) - shared) + varint(len(value)) + key[shared:] + value
        last = key
    for r in restarts or [0]:
        out += struct.pack("<I", r)
    out += struct.pack("<I", len(restarts or [0]))
    return bytes(out)


def table_entries(path):
    with open(path, "rb") as f:
        data = f.read()
    footer = data[-48:]
    assert footer[-8:] == struct.pack("<Q", 0xDB4775248B80FB57)
    pos = 0
    _, pos = read_varint(footer, pos)
    _, pos = read_varint(footer, pos)
    index_offset, pos = read_varint(footer, pos)
    index_size, pos = read_varint(footer, pos)
    out = []
    for _, handle in block_entries(data[index_offset:index_offset + index_size]):
        offset, p = read_varint(handle, 0)
        size, _ = read_varint(handle, p)
        assert data[offset + size] == 0, "expected TensorFlow's uncompressed blocks"
        out += block_entries(data[offset:offset + size])
    return out


def write_table(path, entries, block_bytes, restart_interval):
    """A LevelDB-format table whose data blocks are Snappy-compressed (type 1)."""
    out, index = bytearray(), []

    def emit(contents, kind):
        handle = varint(len(out)) + varint(len(contents))
        out.extend(contents + bytes([kind]) + struct.pack("<I", masked_crc(contents + bytes([kind]))))
        return handle

    def emit_compressed(chunk):
        index.append((chunk[-1][0], emit(bytes(cramjam.snappy.compress_raw(build_block(chunk, restart_interval))), 1)))

    chunk = []
    for key, value in entries:
        chunk.append((key, value))
        if sum(len(k) + len(v) for k, v in chunk) >= block_bytes:
            emit_compressed(chunk)
            chunk = []
    if chunk:
        emit_compressed(chunk)
    meta_handle = emit(build_block([], restart_interval), 0)
    index_handle = emit(build_block(index, 1), 0)
    footer = meta_handle + index_handle
    footer += b"\0" * (40 - len(footer)) + struct.pack("<Q", 0xDB4775248B80FB57)
    out.extend(footer)
    with open(path, "wb") as f:
        f.write(out)


def write_snappy(expected, meta):
    module = tf.Module()
    module.v = [tf.Variable(np.full([2], i, np.float32) + values("v", tf.float32, [2])) for i in range(80)]
    prefix = tf.train.Checkpoint(weights=module).write(os.path.join(HERE, "snappy"))
    entries = table_entries(prefix + ".index")
    write_table(prefix + ".index", entries, block_bytes=700, restart_interval=4)
    record_all("snappy", prefix, expected, meta)  # TensorFlow reads the rewritten index back
    assert len(meta) and sum(k.startswith("snappy:") for k in meta) == len(entries) - 2  # less header, graph


def write_optimizer(expected, meta):
    # A TF1-style optimizer's slots are recorded as slot variables in the object graph.
    model = Dense(2, 2)
    optimizer = tf.compat.v1.train.MomentumOptimizer(0.1, momentum=0.9)
    optimizer.minimize(lambda: tf.reduce_sum(model.w * model.w) + tf.reduce_sum(model.b),
                       var_list=[model.w, model.b])
    prefix = tf.train.Checkpoint(model=model, optimizer=optimizer).write(os.path.join(HERE, "optimizer"))
    record_all("optimizer", prefix, expected, meta)


def write_keras_optimizer(expected, meta):
    # A Keras 3 optimizer keeps its state as the positional list optimizer/_variables/N.
    model = Dense(2, 2)
    optimizer = tf.keras.optimizers.Adam(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model.w * model.w) + tf.reduce_sum(model.b)
    optimizer.apply_gradients(zip(tape.gradient(loss, [model.w, model.b]), [model.w, model.b]))
    prefix = tf.train.Checkpoint(model=model, optimizer=optimizer).write(os.path.join(HERE, "keras_optimizer"))
    record_all("keras_optimizer", prefix, expected, meta)


def write_manager(expected, meta):
    directory = os.path.join(HERE, "manager")
    shutil.rmtree(directory, ignore_errors=True)
    model = Dense(2, 2)
    step = tf.Variable(np.int64(0))
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model, step=step), directory, max_to_keep=2)
    for _ in range(3):
        step.assign_add(1)
        model.w.assign_add(tf.ones_like(model.w))
        manager.save()
    assert sorted(os.listdir(directory))[0] == "checkpoint"
    record_all("manager", manager.latest_checkpoint, expected, meta)


def write_snappy_vectors():
    cases = {
        "empty": b"",
        "short": b"abc",
        "text": b"the quick brown fox jumps over the lazy dog " * 40,
        "runs": b"a" * 1000 + b"b" * 70 + bytes(range(256)) * 3,
        "random": RNG.integers(0, 256, 5000, dtype=np.uint8).tobytes(),
        "blocks": (b"0123456789abcdef" * 4096 + RNG.integers(0, 256, 300, dtype=np.uint8).tobytes()) * 2,  # > 64 KiB
    }
    arrays = {}
    for name, raw in cases.items():
        arrays[f"{name}:raw"] = np.frombuffer(raw, np.uint8)
        arrays[f"{name}:compressed"] = np.frombuffer(bytes(cramjam.snappy.compress_raw(raw)), np.uint8)
    np.savez_compressed(os.path.join(HERE, "snappy_vectors.npz"), **arrays)


def main():
    for name in os.listdir(HERE):
        if name.split(".")[0] in ("module", "raw", "sliced", "snappy", "optimizer", "keras_optimizer"):
            os.remove(os.path.join(HERE, name))
    expected, meta = {}, {}
    write_module(expected, meta)
    write_raw(expected, meta)
    write_sliced()
    write_snappy(expected, meta)
    write_optimizer(expected, meta)
    write_keras_optimizer(expected, meta)
    write_manager(expected, meta)
    write_snappy_vectors()
    np.savez_compressed(os.path.join(HERE, "expected.npz"), **expected)
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "tensors": meta}, f, indent=1, sort_keys=True)
    print(f"wrote {len(meta)} tensors with TensorFlow {tf.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()

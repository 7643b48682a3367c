"""File datasets and the dataset combinators: TextLineDataset, TFRecordDataset, CsvDataset,
make_csv_dataset, list_files, interleave, flat_map, window, shard, sample_from_datasets,
choose_from_datasets, and string elements through map, batch, shuffle and prefetch."""

import csv
import gzip

import numpy as np
import pytest

import ember
from ember import errors

Dataset = ember.data.Dataset


def values(dataset):
    """The elements as Python values (bytes for strings, lists for arrays)."""
    def plain(v):
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, tuple):
            return tuple(plain(x) for x in v)
        return v.tolist() if isinstance(v, np.ndarray) else (v.item() if isinstance(v, np.generic) else v)
    return [plain(e) for e in dataset.as_numpy_iterator()]


# --- TextLineDataset ----------------------------------------------------------------------


def test_text_lines(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"header\nl1\r\nl2\n\nlast")
    b.write_bytes("ü1\nü2\n".encode())
    expected_a = a.read_bytes().replace(b"\r\n", b"\n").split(b"\n")
    expected_b = b.read_bytes().split(b"\n")[:-1]
    ds = ember.data.TextLineDataset([str(a), str(b)])
    assert ds.element_spec == ember.TensorSpec((), ember.string)
    assert values(ds) == expected_a + expected_b
    assert values(ember.data.TextLineDataset(str(a)).skip(1)) == expected_a[1:]
    names = ember.constant([str(b), str(a)])
    assert values(ember.data.TextLineDataset(names)) == expected_b + expected_a
    assert values(ember.data.TextLineDataset(Dataset.from_tensor_slices([str(b)]))) == expected_b


def test_text_lines_gzip(tmp_path):
    path = tmp_path / "t.gz"
    lines = [f"line {i}".encode() for i in range(100)]
    path.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    assert values(ember.data.TextLineDataset(str(path), compression_type="GZIP")) == lines
    with pytest.raises(errors.DataLossError, match="t.gz"):
        path.write_bytes(path.read_bytes()[:20])
        values(ember.data.TextLineDataset(str(path), compression_type="GZIP"))


def test_text_lines_errors(tmp_path):
    with pytest.raises(errors.NotFoundError, match="nope"):
        values(ember.data.TextLineDataset(str(tmp_path / "nope")))
    with pytest.raises(ValueError, match="compression_type"):
        ember.data.TextLineDataset("x", compression_type="BZ2")
    with pytest.raises(TypeError, match="filenames"):
        ember.data.TextLineDataset([1])


# --- String elements through the pipeline ---------------------------------------------------------


def test_string_elements_flow_through_stages(tmp_path):
    path = tmp_path / "w.txt"
    words = [f"w{i}" * (i % 3 + 1) for i in range(10)]
    path.write_text("\n".join(words))
    ds = (ember.data.TextLineDataset(str(path))
          .map(lambda s: (s, ember.strings.length(s)))
          .shuffle(4, seed=7)
          .batch(3)
          .prefetch(2))
    spec = ds.element_spec
    assert spec[0].dtype == ember.string and spec[1].dtype == ember.int32
    batches = values(ds)
    flat = [(w, n) for ws, ns in batches for w, n in zip(ws, ns)]
    assert sorted(flat) == sorted((w.encode(), len(w)) for w in words)
    assert [len(b[0]) for b in batches] == [3, 3, 3, 1]
    again = values(ember.data.TextLineDataset(str(path)).batch(4).unbatch())
    assert again == [w.encode() for w in words]


def test_from_tensor_slices_and_padded_batch_of_strings():
    ds = Dataset.from_tensor_slices(ember.constant([["a", "b"], ["c", "d"]]))
    assert ds.element_spec == ember.TensorSpec((2,), ember.string)
    assert values(ds) == [[b"a", b"b"], [b"c", b"d"]]
    words = Dataset.from_tensor_slices(["x", "yy", "zzz"]).map(ember.strings.bytes_split)
    assert values(words.padded_batch(3)) == [[[b"x", b"", b""], [b"y", b"y", b""], [b"z", b"z", b"z"]]]
    assert values(words.padded_batch(3, padding_values="-"))[0][0] == [b"x", b"-", b"-"]
    gen = Dataset.from_generator(lambda: iter(["a", b"b"]), output_signature=ember.TensorSpec((), ember.string))
    assert values(gen) == [b"a", b"b"]


# --- TFRecordDataset -----------------------------------------------------------------------------


def test_tfrecord_roundtrip_with_serialized_tensors(tmp_path):
    path = str(tmp_path / "t.tfrecord")
    arrays = [np.arange(n, dtype=np.float32) for n in range(4)]
    with ember.io.TFRecordWriter(path) as writer:
        for a in arrays:
            writer.write(ember.io.serialize_tensor(ember.constant(a)))
    ds = ember.data.TFRecordDataset(path).map(lambda s: ember.io.parse_tensor(s, ember.float32))
    assert values(ds) == [a.tolist() for a in arrays]
    assert ds.element_spec.dtype == ember.float32


# --- CSV datasets -------------------------------------------------------------------------


def _write_csv(path, rows):
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)


ROWS = [["id", "score", "name", "label"], ["1", "0.5", "ann", "0"], ["2", "", "bob, jr", "1"],
        ["3", "2.25", "", "0"], ["4", "-1e1", 'say "hi"', "1"]]


def test_csv_dataset(tmp_path):
    path = str(tmp_path / "d.csv")
    _write_csv(path, ROWS)
    ds = ember.data.experimental.CsvDataset(path, [[0], [0.0], ["?"], [0]], header=True)
    assert ds.element_spec == tuple(ember.TensorSpec((), d) for d in
                                    (ember.int32, ember.float32, ember.string, ember.int32))
    expected = [(int(r[0]), float(np.float32(r[1] or 0.0)), (r[2] or "?").encode(), int(r[3])) for r in ROWS[1:]]
    assert values(ds) == expected
    picked = ember.data.experimental.CsvDataset(path, [[0], ["?"]], header=True, select_cols=[0, 2])
    assert values(picked) == [(e[0], e[2]) for e in expected]
    dropped = ember.data.experimental.CsvDataset(path, [[0], [0.0], [0]], header=True, exclude_cols=[2])
    assert values(dropped) == [(e[0], e[1], e[3]) for e in expected]


def test_csv_dataset_errors(tmp_path):
    path = str(tmp_path / "d.csv")
    _write_csv(path, ROWS)
    required = ember.data.experimental.CsvDataset(path, [[0], ember.float32, [""], [0]], header=True)
    with pytest.raises(errors.InvalidArgumentError, match="required"):
        values(required)
    with pytest.raises(errors.InvalidArgumentError, match="expected 3 fields"):
        values(ember.data.experimental.CsvDataset(path, [[0]] * 3, header=True))
    with pytest.raises(errors.InvalidArgumentError, match="not a valid int32"):
        values(ember.data.experimental.CsvDataset(path, [[0]] * 4, header=False))


def test_make_csv_dataset(tmp_path):
    for i in range(2):
        _write_csv(str(tmp_path / f"part{i}.csv"), [ROWS[0]] + ROWS[1 + 2 * i:3 + 2 * i])
    ds = ember.data.experimental.make_csv_dataset(str(tmp_path / "*.csv"), batch_size=3, label_name="label",
                                                  num_epochs=1, shuffle=False)
    features, label = ds.element_spec
    assert list(features) == ["id", "score", "name"]
    assert features["score"].dtype == ember.float32 and features["name"].dtype == ember.string
    assert label.dtype == ember.int32
    batches = values(ds)
    assert [len(b[1]) for b in batches] == [3, 1]
    got = [(i, s, n, lab) for f, labels in batches for i, s, n, lab in zip(f["id"], f["score"], f["name"], labels)]
    expected = [(int(r[0]), float(np.float32(r[1] or 0)), r[2].encode(), int(r[3])) for r in ROWS[1:]]
    assert got == expected


def test_make_csv_dataset_options(tmp_path):
    path = str(tmp_path / "d.csv")
    _write_csv(path, ROWS)
    ds = ember.data.experimental.make_csv_dataset(
        path, batch_size=2, select_columns=["id", "label"], column_defaults=[[0], [0]], num_epochs=2,
        shuffle=True, shuffle_seed=3)
    batches = values(ds)
    assert all(list(b) == ["id", "label"] for b in batches)
    ids = sorted(i for b in batches for i in b["id"])
    assert ids == sorted([1, 2, 3, 4] * 2)
    no_header = str(tmp_path / "n.csv")
    _write_csv(no_header, ROWS[1:])
    named = ember.data.experimental.make_csv_dataset(no_header, batch_size=4, header=False, num_epochs=1,
                                                     column_names=["a", "b", "c", "d"], shuffle=False)
    assert values(named)[0]["a"] == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="label_name"):
        ember.data.experimental.make_csv_dataset(path, batch_size=1, label_name="nope")
    with pytest.raises(errors.InvalidArgumentError, match="no files matched"):
        ember.data.experimental.make_csv_dataset(str(tmp_path / "*.nothing"), batch_size=1)


# --- list_files ------------------------------------------------------------------------------


def test_list_files(tmp_path):
    names = [str(tmp_path / f"f{i}.txt") for i in range(6)]
    for n in names:
        open(n, "w").close()
    (tmp_path / "other.csv").write_text("")
    pattern = str(tmp_path / "*.txt")
    assert [v.decode() for v in values(Dataset.list_files(pattern, shuffle=False))] == sorted(names)
    shuffled = [v.decode() for v in values(Dataset.list_files(pattern, seed=4))]
    assert sorted(shuffled) == sorted(names)
    assert [v.decode() for v in values(Dataset.list_files(pattern, seed=4))] == shuffled  # seeded: same order
    assert len(values(Dataset.list_files([pattern, str(tmp_path / "*.csv")]))) == 7
    with pytest.raises(errors.InvalidArgumentError, match="no files matched"):
        Dataset.list_files(str(tmp_path / "*.none"))


# --- Combinators ----------------------------------------------------------------------------


def reference_interleave(inputs, make, cycle, block):
    """tf.data's interleave from its description: visit the cycle's slots in turn; an empty slot
    opens the next input's sequence; an open one gives up to `block` elements, and a sequence
    found exhausted on a visit is closed, which uses up that visit."""
    pending, slots, out = list(inputs), [None] * cycle, []
    i = 0
    while pending or any(s is not None for s in slots):
        if slots[i] is None and pending:
            slots[i] = list(make(pending.pop(0)))
        if slots[i] is not None:
            if not slots[i]:
                slots[i] = None  # found exhausted: closed on this visit
            else:
                out.extend(slots[i][:block])
                taken_all = len(slots[i]) < block
                slots[i] = slots[i][block:]
                if taken_all:
                    slots[i] = None  # ran out within the block: known at once
        i = (i + 1) % cycle
    return out


def test_interleave_documented_example():
    # tf.data.Dataset.interleave's documentation example and its printed result.
    ds = Dataset.range(1, 6).interleave(lambda x: Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4)
    assert values(ds) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5]


@pytest.mark.parametrize("cycle,block", [(1, 1), (2, 1), (3, 2), (4, 3)])
def test_interleave(cycle, block):
    def make(x):
        return [x * 10 + k for k in range(x % 4 + 1)]

    ds = Dataset.range(7).interleave(lambda x: Dataset.range(x % 4 + 1).map(lambda k: x * 10 + k),
                                     cycle_length=cycle, block_length=block, num_parallel_calls=2)
    assert values(ds) == reference_interleave(range(7), make, cycle, block)


def test_interleave_over_files(tmp_path):
    for name in "ab":
        (tmp_path / f"{name}.txt").write_text("\n".join(f"{name}{i}" for i in range(3)))
    files = Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False)
    ds = files.interleave(ember.data.TextLineDataset, cycle_length=2)
    assert values(ds) == [b"a0", b"b0", b"a1", b"b1", b"a2", b"b2"]
    assert ds.element_spec == ember.TensorSpec((), ember.string)


def test_flat_map():
    ds = Dataset.from_tensor_slices([[1, 2], [3, 4]]).flat_map(Dataset.from_tensor_slices)
    assert values(ds) == [1, 2, 3, 4]
    with pytest.raises(TypeError, match="Dataset"):
        values(Dataset.range(2).flat_map(lambda x: x))


@pytest.mark.parametrize("size,shift,stride,drop", [(3, None, 1, False), (3, 2, 1, False), (2, 1, 2, True),
                                                    (4, 3, 1, True), (1, 5, 1, False)])
def test_window(size, shift, stride, drop):
    n = 10
    ds = Dataset.range(n).window(size, shift, stride, drop)
    windows = [values(w) for w in ds]
    step = shift or size
    expected = []
    for start in range(0, n, step):
        w = list(range(start, min(n, start + (size - 1) * stride + 1), stride))
        if len(w) == size or (w and not drop):
            expected.append(w)
    assert windows == expected
    assert ds._cardinality() == len(expected)


def test_window_of_tuples_and_batched():
    ds = Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 2)).window(2, drop_remainder=True)
    first = next(iter(ds))
    assert isinstance(first, tuple) and values(first[0]) == [0, 1] and values(first[1]) == [0, 2]
    flat = Dataset.range(6).window(3).flat_map(lambda w: w.batch(3))
    assert values(flat) == [[0, 1, 2], [3, 4, 5]]


def test_shard():
    for n, k in [(10, 3), (7, 7), (3, 5)]:
        for index in range(k):
            ds = Dataset.range(n).shard(k, index)
            assert values(ds) == list(range(n))[index::k]
            assert int(ds.cardinality()) == len(range(n)[index::k])
    with pytest.raises(ValueError, match="index"):
        Dataset.range(3).shard(2, 2)


def test_sample_from_datasets():
    a, b = Dataset.range(0, 100), Dataset.range(1000, 1100)
    mixed = values(Dataset.sample_from_datasets([a, b], weights=[0.8, 0.2], seed=5))
    assert sorted(mixed) == list(range(100)) + list(range(1000, 1100))
    first = mixed[:100]
    share = sum(1 for v in first if v < 1000) / 100
    assert 0.65 < share < 0.95
    assert values(Dataset.sample_from_datasets([a, b], weights=[0.8, 0.2], seed=5)) == mixed  # seeded
    only_a = values(ember.data.experimental.sample_from_datasets([a, b], weights=[1.0, 0.0], seed=1))
    assert only_a == list(range(100))
    stopped = values(Dataset.sample_from_datasets([Dataset.range(2), Dataset.range(100, 200)], seed=2,
                                                  stop_on_empty_dataset=True))
    assert len(stopped) < 102 and sum(1 for v in stopped if v < 2) == 2
    with pytest.raises(TypeError, match="incompatible"):
        Dataset.sample_from_datasets([a, Dataset.from_tensor_slices(["x"])])
    with pytest.raises(ValueError, match="weights"):
        Dataset.sample_from_datasets([a, b], weights=[1.0])


def test_choose_from_datasets():
    words = [Dataset.from_tensor_slices(["a", "b"]), Dataset.from_tensor_slices(["x", "y", "z"])]
    choice = Dataset.from_tensor_slices(ember.constant([0, 1, 1, 0, 1], dtype=ember.int64))
    assert values(Dataset.choose_from_datasets(words, choice)) == [b"a", b"x", b"y", b"b", b"z"]
    choice = Dataset.from_tensor_slices(ember.constant([0, 0, 0, 1], dtype=ember.int64))
    assert values(Dataset.choose_from_datasets(words, choice)) == [b"a", b"b"]
    assert values(Dataset.choose_from_datasets(words, choice, stop_on_empty_dataset=False)) == [b"a", b"b", b"x"]
    bad = Dataset.from_tensor_slices(ember.constant([2], dtype=ember.int64))
    with pytest.raises(errors.InvalidArgumentError, match="choice 2"):
        values(Dataset.choose_from_datasets(words, bad))


def test_make_csv_dataset_returns_ordered_features(tmp_path):
    path = str(tmp_path / "d.csv")
    _write_csv(path, [["z", "a"], ["1", "2"]])
    ds = ember.data.experimental.make_csv_dataset(path, batch_size=1, num_epochs=1, shuffle=False)
    element = next(iter(ds))
    assert list(element) == ["z", "a"]  # the file's column order

"""ember.summary: TensorBoard event files read back with Ember's TFRecord reader and decoded as protos."""

import os
import re
import struct
import time

import numpy as np
import pytest

import ember
from ember._wire import protowire
from ember.summary import _event
from ember.summary._event import read_events

RNG = np.random.default_rng(3)


def _only_file(logdir):
    names = os.listdir(logdir)
    assert len(names) == 1, names
    return os.path.join(logdir, names[0])


def _values(logdir):
    """[(step, tag, plugin, data class, decoded tensor)] of every summary value in the log dir's file."""
    out = []
    for event in read_events(_only_file(logdir))[1:]:
        for v in event["summary"]["value"]:
            plugin = v["metadata"]["plugin_data"]["plugin_name"]
            dtype = {"scalars": ember.float32, "histograms": ember.float64, "text": ember.string}[plugin]
            out.append((event["step"], v["tag"], plugin, v["metadata"]["data_class"],
                        ember.io.parse_tensor(v["tensor"], dtype).numpy()))
    return out


def test_event_file_name_and_version_record(tmp_path):
    before = time.time()
    writer = ember.summary.create_file_writer(str(tmp_path / "logs"))
    writer.close()
    path = _only_file(tmp_path / "logs")
    assert re.fullmatch(r"events\.out\.tfevents\.\d+\..+\.\d+\.\d+\.v2", os.path.basename(path))
    (first,) = read_events(path)
    assert first["file_version"] == "brain.Event:2"
    assert before - 1 <= first["wall_time"] <= time.time() + 1


def test_scalar_histogram_and_text_round_trip(tmp_path):
    writer = ember.summary.create_file_writer(str(tmp_path))
    data = RNG.standard_normal(200)
    with writer.as_default(step=4):
        assert ember.summary.scalar("loss", 0.25)
        assert ember.summary.scalar("acc", ember.constant(0.75), step=9, description="accuracy")
        assert ember.summary.histogram("w", data, buckets=7)
        assert ember.summary.text("note", "**hi**")
        with ember.name_scope("block"):
            assert ember.summary.scalar("x", np.float64(2.5))
    writer.close()
    values = _values(tmp_path)
    assert [(s, t, p, c) for s, t, p, c, _ in values] == [
        (4, "loss", "scalars", 1), (9, "acc", "scalars", 1), (4, "w", "histograms", 2), (4, "note", "text", 2),
        (4, "block/x", "scalars", 1)]
    assert values[0][4] == np.float32(0.25) and values[0][4].shape == ()
    assert values[1][4] == np.float32(0.75)
    counts, edges = np.histogram(data, bins=7, range=(data.min(), data.max()))
    np.testing.assert_allclose(values[2][4], np.stack([edges[:-1], edges[1:], counts], axis=1))
    assert values[3][4] == b"**hi**"
    assert values[4][4] == np.float32(2.5)
    events = read_events(_only_file(tmp_path))
    assert events[2]["summary"]["value"][0]["metadata"]["summary_description"] == "accuracy"


def test_histogram_buckets_edge_cases(tmp_path):
    writer = ember.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        ember.summary.histogram("same", np.full(5, 3.0), buckets=4)
        ember.summary.histogram("empty", np.zeros(0), buckets=2)
        ember.summary.histogram("default", np.arange(100.0))
    writer.close()
    same, empty, default = (v[4] for v in _values(tmp_path))
    np.testing.assert_array_equal(same, [[3, 3, 0], [3, 3, 0], [3, 3, 0], [3, 3, 5]])
    np.testing.assert_array_equal(empty, np.zeros((2, 3)))
    assert default.shape == (30, 3) and default[:, 2].sum() == 100 and default[0, 0] == 0 and default[-1, 1] == 99


def test_step_rules(tmp_path):
    writer = ember.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(ValueError, match="step"):
            ember.summary.scalar("a", 1.0)
        step = ember.Variable(np.int64(5))
        ember.summary.experimental.set_step(step)
        try:
            ember.summary.scalar("a", 1.0)
            step.assign(6)  # the variable is read at each write
            ember.summary.scalar("a", 2.0)
            with writer.as_default(step=100):
                ember.summary.scalar("a", 3.0)
            assert ember.summary.experimental.get_step() is step  # restored after the block
            ember.summary.scalar("a", 4.0)
        finally:
            ember.summary.experimental.set_step(None)
    writer.close()
    assert [(s, float(v)) for s, _, _, _, v in _values(tmp_path)] == [(5, 1.0), (6, 2.0), (100, 3.0), (6, 4.0)]


def test_nothing_is_written_without_a_writer_or_under_a_false_record_if(tmp_path):
    assert not ember.summary.scalar("a", 1.0, step=0)
    assert not ember.summary.should_record_summaries()
    writer = ember.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert ember.summary.should_record_summaries()
        with ember.summary.record_if(False):
            assert not ember.summary.scalar("off", 1.0, step=0)
        counter = {"n": 0}

        def every_other():
            counter["n"] += 1
            return counter["n"] % 2 == 1

        with ember.summary.record_if(every_other):
            results = [ember.summary.scalar("s", float(i), step=i) for i in range(4)]
    assert results == [True, False, True, False]
    noop = ember.summary.create_noop_writer()
    with noop.as_default(step=0):
        ember.summary.scalar("nowhere", 1.0)
    ember.summary.flush(writer)
    writer.close()
    assert [(t, s) for s, t, _, _, _ in _values(tmp_path)] == [("s", 0), ("s", 2)]


def test_nested_writers(tmp_path):
    outer = ember.summary.create_file_writer(str(tmp_path / "outer"))
    inner = ember.summary.create_file_writer(str(tmp_path / "inner"))
    with outer.as_default(step=1):
        ember.summary.scalar("a", 1.0)
        with inner.as_default():
            ember.summary.scalar("b", 2.0)
        ember.summary.scalar("c", 3.0)
    outer.close()
    inner.close()
    assert [t for _, t, _, _, _ in _values(tmp_path / "outer")] == ["a", "c"]
    assert [t for _, t, _, _, _ in _values(tmp_path / "inner")] == ["b"]


def test_summaries_inside_a_function_write_each_call(tmp_path):
    writer = ember.summary.create_file_writer(str(tmp_path))

    @ember.function
    def step_fn(x, step):
        y = x * 2.0
        ember.summary.scalar("y", y, step=step)
        return y

    with writer.as_default():
        for i, x in enumerate([1.0, 2.0, 3.0]):
            assert float(step_fn(ember.constant(x), ember.constant(i))) == 2 * x
    writer.close()
    assert [(s, float(v)) for s, _, _, _, v in _values(tmp_path)] == [(0, 2.0), (1, 4.0), (2, 6.0)]


def test_double_and_float_fields_encode_as_protobuf_does():
    # field 1 double: key 0x09 then 8 little-endian bytes; packed repeated double (field 6): key 0x32.
    message = {"min": -1.5, "bucket_limit": [1.0, 2.0]}
    data = protowire.encode(message, _event.HISTOGRAM)
    assert data == b"\x09" + struct.pack("<d", -1.5) + b"\x32\x10" + struct.pack("<2d", 1.0, 2.0)
    back = protowire.decode(data, _event.HISTOGRAM)
    assert back["min"] == -1.5 and back["bucket_limit"] == [1.0, 2.0] and back["max"] == 0.0
    value = protowire.encode({"tag": "t", "simple_value": 0.5}, _event._VALUE)
    assert value == b"\x0a\x01t\x15" + struct.pack("<f", 0.5)
    assert protowire.decode(value, _event._VALUE)["simple_value"] == 0.5


def test_tensorboard_reads_the_files(tmp_path):
    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    writer = ember.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=2):
        ember.summary.scalar("loss", 0.5)
    writer.close()
    acc = event_accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    (event,) = acc.Tensors("loss")
    assert event.step == 2


def test_set_as_default_and_the_state_is_per_thread(tmp_path):
    import threading
    writer = ember.summary.create_file_writer(str(tmp_path))
    results = []

    def worker():  # set_as_default lasts for the rest of the thread: run it in one of its own
        writer.set_as_default(step=3)
        results.append(ember.summary.scalar("t", 1.0))
        results.append(ember.summary.experimental.get_step())

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert results == [True, 3]
    assert not ember.summary.should_record_summaries() and ember.summary.experimental.get_step() is None
    writer.close()
    assert [(s, t) for s, t, _, _, _ in _values(tmp_path)] == [(3, "t")]

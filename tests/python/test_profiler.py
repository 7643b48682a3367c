"""ember.profiler: the spans it records, the Chrome trace it writes and the
summary table (python/ember/profiler, Note [Profiler])."""

import json
import threading

import numpy as np
import pytest

import ember
from ember import profiler


@pytest.fixture(autouse=True)
def _stop_profiler():
    yield
    if ember._C._profiler_enabled():
        profiler.stop(save=False)


def events_of(result, category, name=None):
    return [e for e in result.events if e["category"] == category and (name is None or e["name"] == name)]


def test_trace_writes_a_chrome_trace_with_dispatch_kernel_and_flow_events(tmp_path):
    x = ember.constant(np.ones((2, 3), np.float32))
    ember.sync()
    path = tmp_path / "trace.json"
    with profiler.trace(str(path)):
        y = ember.add(x, x)
        y.numpy()
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    (kernel,) = [e for e in events if e.get("cat") == "kernel" and e["name"] == "add"]
    assert kernel["ph"] == "X" and kernel["dur"] > 0
    assert kernel["args"] == {"device": "cpu:0", "inputs": "[2,3] float32, [2,3] float32",
                              "outputs": "[2,3] float32", "bytes": 72}
    (dispatch,) = [e for e in events if e.get("cat") == "dispatch" and e["name"] == "add"]
    assert dispatch["args"]["kernel_cache"] in ("hit", "miss")
    starts = {e["id"]: e for e in events if e.get("ph") == "s"}
    ends = {e["id"]: e for e in events if e.get("ph") == "f"}
    assert starts and set(starts) == set(ends)  # every arrow has both ends
    names = {e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    assert "python MainThread" in names


def test_sync_mode_runs_the_kernel_inside_its_dispatch_span():
    x = ember.constant([1.0, 2.0])
    ember.config.set_async(False)
    try:
        profiler.start()
        ember.multiply(x, x)
        result = profiler.stop()
    finally:
        ember.config.set_async(True)
    (dispatch,) = events_of(result, "dispatch", "multiply")
    (kernel,) = events_of(result, "kernel", "multiply")
    assert kernel["thread_id"] == dispatch["thread_id"]
    assert dispatch["start_ns"] <= kernel["start_ns"] <= kernel["end_ns"] <= dispatch["end_ns"]


def test_function_calls_show_their_graph_nodes():
    a = ember.constant(np.eye(8, dtype=np.float32))

    @ember.function
    def f(v):
        return ember.matmul(v, v) + 1.0

    f(a).numpy()  # traced before recording
    profiler.start()
    f(a).numpy()
    result = profiler.stop()
    assert len(events_of(result, "dispatch", "call_function")) == 1
    assert len(events_of(result, "kernel", "call_function")) == 1
    (node,) = events_of(result, "kernel", "matmul")
    (call,) = events_of(result, "kernel", "call_function")
    assert call["start_ns"] <= node["start_ns"] <= node["end_ns"] <= call["end_ns"]


def test_failed_kernels_and_raising_calls_are_marked():
    profiler.start()
    bad = ember.gather(ember.constant([1.0]), ember.constant([3]))
    with pytest.raises(ValueError):
        ember.reshape(ember.constant([1.0, 2.0]), [3])
    result = profiler.stop()
    with pytest.raises(ValueError):
        bad.numpy()
    (kernel,) = events_of(result, "kernel", "gather")
    assert kernel["args"]["error"] == "failed"
    (reshape,) = events_of(result, "dispatch", "reshape")
    assert reshape["args"]["error"] == "raised"


def test_trace_annotations_and_threads():
    x = ember.constant([1.0])

    def work():
        for _ in range(10):
            ember.exp(x)

    profiler.start()
    with profiler.Trace("step", step_num=3):
        threads = [threading.Thread(target=work, name=f"worker{i}") for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    result = profiler.stop()
    (step,) = events_of(result, "user", "step")
    assert step["args"] == {"step_num": 3}
    dispatch_threads = {e["thread_name"] for e in events_of(result, "dispatch", "exp")}
    assert dispatch_threads == {"python worker0", "python worker1"}
    assert len(events_of(result, "kernel", "exp")) == 20


def test_summary_table_lists_the_top_ops(capsys):
    x = ember.constant(np.ones((64, 64), np.float32))
    profiler.start()
    for _ in range(3):
        ember.matmul(x, x)
    ember.add(x, x)
    result = profiler.stop()
    text = profiler.summary(top=5)
    assert capsys.readouterr().out.strip() == text.strip()
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["op", "calls", "kernels"]
    rows = {line.split()[0]: line.split() for line in lines[2:-2]}
    assert rows["matmul"][1:3] == ["3", "3"] and rows["add"][1:3] == ["1", "1"]
    stats = result.op_stats()
    assert stats["matmul"]["bytes"] == 3 * 3 * 64 * 64 * 4
    assert profiler.last_result() is result
    with pytest.raises(ValueError, match="sort_by"):
        result.summary(sort_by="nope")


def test_recording_is_off_after_stop_and_sessions_do_not_nest(tmp_path):
    with pytest.raises(RuntimeError, match="not recording"):
        profiler.stop()
    profiler.experimental.start(str(tmp_path))
    with pytest.raises(RuntimeError, match="already recording"):
        profiler.start()
    ember.add(1.0, 2.0).numpy()
    first = profiler.experimental.stop()
    assert (tmp_path / "ember_trace.json").exists()
    assert events_of(first, "kernel", "add")
    ember.add(1.0, 2.0).numpy()  # not recorded
    profiler.start()
    second = profiler.stop()
    assert not events_of(second, "dispatch", "add")


# Note [Bounded graphs]: a loop-free function with known shapes runs on the
# calling thread like any op (sync mode: always; async: when it is tiny and
# the executor idle), with no hand-off to the executor thread; a function
# with a loop still runs on the executor, so Ctrl-C can stop it.
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_small_loop_free_functions_run_on_the_calling_thread(mode):
    x = ember.constant(np.ones(4, np.float32))

    @ember.function
    def f(v):
        return v * 2.0 + 1.0

    @ember.function
    def g(v):
        return ember.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + v), [0, v])[1]

    was_async = ember.config.is_async()
    ember.config.set_async(mode == "async")
    try:
        f(x).numpy(), g(x).numpy()  # traced before recording
        ember.sync()
        profiler.start()
        f_out = f(x).numpy()
        g_out = g(x).numpy()
        result = profiler.stop()
    finally:
        ember.config.set_async(was_async)
    np.testing.assert_array_equal(f_out, np.full(4, 3.0, np.float32))
    np.testing.assert_array_equal(g_out, np.full(4, 4.0, np.float32))
    calls = events_of(result, "kernel", "call_function")
    assert len(calls) == 2
    caller = threading.get_native_id()
    assert calls[0]["thread_id"] == caller  # f: on this thread
    assert calls[1]["thread_id"] != caller  # g, with its loop: on the executor

"""Graph replay on the simulated accelerator (Note [Graph replay], Note
[Simulated graphs], Note [Constants on their device]): the executor's
capture and replay, which a GPU runs as CUDA graphs, checked end to end in
every CI run. A function whose nodes all run on sim:0 runs node by node on
its first call, is captured and replayed on its second and replayed after;
each call must give what node-by-node execution gives."""

import threading

import numpy as np
import pytest

import ember
from ember import _C
from sim_markers import needs_two_sims

pytestmark = needs_two_sims


@pytest.fixture(autouse=True)
def graphs_on():
    previous = ember.config.experimental.cuda_graphs_enabled()
    ember.config.experimental.enable_cuda_graphs(True)
    try:
        yield
    finally:
        ember.config.experimental.enable_cuda_graphs(previous)


def on_sim(array):
    return ember.identity(ember.constant(array))


def replays_during(fn):
    before = _C._graph_replay_count()
    fn()
    ember.sync()  # calls run asynchronously
    return _C._graph_replay_count() - before


def test_a_dense_layer_replays_from_its_second_call_and_matches_numpy():
    rng = np.random.default_rng(5)
    w1 = rng.standard_normal((32, 64)).astype(np.float32)
    b1 = rng.standard_normal(64).astype(np.float32)
    w2 = rng.standard_normal((64, 8)).astype(np.float32)
    xs = [rng.standard_normal((4, 32)).astype(np.float32) for _ in range(6)]

    def expected(x, w1=w1):
        h = np.maximum(x @ w1 + b1, 0)
        logits = h @ w2
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True), h.sum(axis=1)

    with ember.device("sim:0"):
        v1 = ember.Variable(w1)
        b, w = on_sim(b1), on_sim(w2)

        @ember.function
        def dense(x, b1, w2):
            h = ember.nn.relu(ember.nn.bias_add(ember.matmul(x, v1), b1))
            return ember.nn.softmax(ember.matmul(h, w2)), ember.reduce_sum(h, axis=1)

        outs = []
        replays = replays_during(lambda: outs.extend(dense(on_sim(x), b, w) for x in xs))
        # Results handed out earlier are copies: later replays overwrite
        # the recording's own buffers, not these.
        for x, (probs, sums) in zip(xs, outs):
            want_probs, want_sums = expected(x)
            np.testing.assert_allclose(probs.numpy(), want_probs, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(sums.numpy(), want_sums, rtol=1e-5, atol=1e-4)
        more = replays_during(lambda: [dense(on_sim(x), b, w) for x in xs])
        # Note [Moved captured values]: an update gives the variable a new
        # buffer; after 8 replays or more the next call captures again, so
        # the update shows.
        v1.assign(w1 * 2)
        updated = replays_during(lambda: outs.extend(dense(on_sim(x), b, w) for x in xs[:3]))
        for x, (probs, sums) in zip(xs, outs[-3:]):
            np.testing.assert_allclose(sums.numpy(), expected(x, w1 * 2)[1], rtol=1e-5, atol=1e-4)
    assert replays == len(xs) - 1  # the first call warms, the second captures and replays
    assert more == len(xs)
    assert updated == 3


def test_a_variable_updated_after_few_replays_is_copied_in_by_each_replay():
    """Note [Moved captured values]: fewer than 8 replays before a variable
    moved: captured again with the variable copied in by every replay, so
    every later call replays, each with the current value."""
    with ember.device("sim:0"):
        v = ember.Variable(np.ones((3, 3), np.float32))
        f = ember.function(lambda x: ember.matmul(x, v) * 2.0)
        x = on_sim(np.eye(3, dtype=np.float32))
        replays = replays_during(lambda: [f(x).numpy() for _ in range(3)])
        values = []
        later = replays_during(lambda: [(v.assign_add(np.ones((3, 3), np.float32)), values.append(f(x).numpy()))
                                        for _ in range(12)])
    assert replays == 2
    assert later == 12
    for k, value in enumerate(values):
        np.testing.assert_array_equal(value, np.full((3, 3), 2.0 * (k + 2)))


def test_replay_stops_after_four_recaptures():
    """Note [Moved captured values]: five variables moving one after
    another make five recaptures; past the fourth the function runs node
    by node, still right."""
    with ember.device("sim:0"):
        vs = [ember.Variable(np.full((2,), float(i), np.float32)) for i in range(5)]
        f = ember.function(lambda x: x + vs[0] + vs[1] + vs[2] + vs[3] + vs[4])
        x = on_sim(np.zeros((2,), np.float32))
        replays = replays_during(lambda: [f(x).numpy() for _ in range(3)])
        counts, values = [], []
        for i in range(5):
            vs[i].assign_add(np.ones((2,), np.float32))
            counts.append(replays_during(lambda: values.append(f(x).numpy())))
        after = replays_during(lambda: [values.append(f(x).numpy()) for _ in range(3)])
    assert replays == 2
    assert counts == [1, 1, 1, 1, 0]
    assert after == 0
    for k, value in enumerate(values[:5]):
        np.testing.assert_array_equal(value, np.full((2,), 10.0 + k + 1))
    for value in values[5:]:
        np.testing.assert_array_equal(value, np.full((2,), 15.0))


def test_a_replay_is_one_launch_and_python_constants_are_copied_once():
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    with ember.device("sim:0"):
        f = ember.function(lambda t: ember.tanh(ember.matmul(t, t, transpose_b=True) * 0.5) + 1.0)
        t = on_sim(x)
        # The scalars, captured on the host, are on sim:0 in the graph.
        assert "transfer" not in f.get_concrete_function(t).graph.pretty()
        f(t).numpy()
        f(t).numpy()  # captured and replayed
        before = ember.config.runtime_stats("sim:0")
        results = [f(t) for _ in range(5)]
        for r in results:
            np.testing.assert_allclose(r.numpy(), np.tanh(x @ x.T * 0.5) + 1.0, rtol=1e-6, atol=1e-6)
        after = ember.config.runtime_stats("sim:0")
        assert after["kernels_enqueued"] - before["kernels_enqueued"] == 5
        assert after["copies_enqueued"] - before["copies_enqueued"] == 5  # the reads, no constant copies

        ember.config.experimental.enable_cuda_graphs(False)
        before = ember.config.runtime_stats("sim:0")
        assert replays_during(lambda: f(t).numpy()) == 0
        after = ember.config.runtime_stats("sim:0")
        assert after["kernels_enqueued"] - before["kernels_enqueued"] == 2  # matmul, the fused rest
        assert after["copies_enqueued"] - before["copies_enqueued"] == 1


def test_a_failing_kernel_in_a_replay_raises_and_the_next_replay_works():
    with ember.device("sim:0"):
        @ember.function
        def pick(p, i):
            return ember.gather(p, i) * 3.0

        p = on_sim(np.arange(6, dtype=np.float32))
        good = np.array([5, 1], np.int64)
        replays = replays_during(lambda: [pick(p, on_sim(good)).numpy() for _ in range(3)])
        with pytest.raises(ember.errors.InvalidArgumentError, match=r"gather.*indices\[0\] = 6 is not in \[0, 6\)"):
            pick(p, on_sim(np.array([6, 1], np.int64))).numpy()
        after = replays_during(lambda: np.testing.assert_array_equal(pick(p, on_sim(good)).numpy(), [15, 3]))
    assert replays == 2
    assert after == 1


def test_arguments_returned_or_read_twice_and_captured_tensors():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    captured_value = np.full((2, 3), 10, np.float32)
    with ember.device("sim:0"):
        captured = on_sim(captured_value)
        f = ember.function(lambda x, y: (x, x * y + captured, ember.reduce_sum(y)))
        for k in range(4):
            x, y = on_sim(a + k), on_sim(a * k)
            same, combined, total = f(x, y)
            np.testing.assert_array_equal(same.numpy(), a + k)
            np.testing.assert_array_equal(combined.numpy(), (a + k) * (a * k) + captured_value)
            np.testing.assert_array_equal(total.numpy(), (a * k).sum())
        both = ember.function(lambda x, y: x - y)
        for k in range(3):
            x = on_sim(a + k)
            np.testing.assert_array_equal(both(x, x).numpy(), np.zeros_like(a))


def test_other_shapes_and_host_arguments_run_node_by_node():
    with ember.device("sim:0"):
        f = ember.function(lambda x: ember.reduce_sum(x * x, axis=0))
        x = on_sim(np.ones((3, 2), np.float32))
        replays = replays_during(lambda: [f(x).numpy() for _ in range(3)])
        # Another shape traces again (a new concrete function), whose own
        # first call warms.
        wide = replays_during(lambda: np.testing.assert_array_equal(f(on_sim(np.ones((3, 5), np.float32))).numpy(),
                                                                    np.full(5, 3.0)))
        # An argument on the host is moved to sim:0 by the call (a copy
        # per call), which a recording does not do: node by node.
        with ember.device("cpu:0"):
            on_host = ember.constant(np.full((3, 2), 2, np.float32))
        host = replays_during(lambda: np.testing.assert_array_equal(f(on_host).numpy(), np.full(2, 12.0)))
    assert (replays, wide) == (2, 0)
    assert host == 0


def test_concurrent_callers_each_get_their_own_results():
    w = np.random.default_rng(1).standard_normal((16, 16)).astype(np.float32)
    with ember.device("sim:0"):
        wt = on_sim(w)
        f = ember.function(lambda x: ember.nn.relu(ember.matmul(x, wt)))
        f(on_sim(np.ones((4, 16), np.float32))).numpy()
    errors = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        try:
            with ember.device("sim:0"):
                for _ in range(10):
                    x = rng.standard_normal((4, 16)).astype(np.float32)
                    np.testing.assert_allclose(f(on_sim(x)).numpy(), np.maximum(x @ w, 0), rtol=1e-5, atol=1e-5)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    replays = replays_during(lambda: ([t.start() for t in threads], [t.join() for t in threads]))
    assert errors == []
    assert replays >= 30  # every call after the capture replays


def test_training_steps_replay_and_match_node_by_node():
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((8, 5)).astype(np.float32)
    ys = rng.standard_normal((8, 1)).astype(np.float32)

    def train(replay):
        ember.config.experimental.enable_cuda_graphs(replay)
        with ember.device("sim:0"):
            w = ember.Variable(np.full((5, 1), 0.1, np.float32))
            opt = ember.optimizers.SGD(learning_rate=0.05)

            @ember.function
            def step(x, y):
                with ember.GradientTape() as tape:
                    loss = ember.reduce_mean(ember.square(ember.matmul(x, w) - y))
                opt.apply_gradients([(tape.gradient(loss, w), w)])
                return loss

            losses = [float(step(on_sim(xs), on_sim(ys)).numpy()) for _ in range(6)]
            return losses, w.numpy()

    replays = []
    graphed = replays_during(lambda: replays.append(train(True)))
    plain = train(False)
    np.testing.assert_allclose(replays[0][0], plain[0], rtol=1e-6)
    np.testing.assert_allclose(replays[0][1], plain[1], rtol=1e-6)
    assert replays[0][0][-1] < replays[0][0][0]
    # Captured on step 2; step 3 moved the variables, so they are copied in
    # from then on and every later step replays (Note [Moved captured values]).
    assert graphed == 5

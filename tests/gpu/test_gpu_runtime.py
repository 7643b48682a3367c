"""The GPU device runtime on a real GPU (tests/gpu/run.sh runs this file;
without a GPU every test skips): copies both ways, placement on gpu:0 by
default and soft placement to the CPU, stream order under a freed buffer,
memory_stats, empty_cache, the memory limit and the device staying usable
after out-of-memory, runtime_stats counting events only where streams
meet, results read back in order from several Python threads."""

import gc
import threading

import numpy as np
import pytest

import ember

GPUS = ember.config.list_logical_devices("GPU")
pytestmark = pytest.mark.skipif(not GPUS, reason="needs a GPU")
N = 1 << 16


def test_copies_round_trip():
    for dtype in (np.float32, np.float16, np.int64, np.bool_, np.uint8):
        a = (np.arange(1000) % 7).astype(dtype)
        with ember.device("gpu:0"):
            t = ember.identity(ember.constant(a))
        assert t.device.endswith("gpu:0")
        np.testing.assert_array_equal(t.numpy(), a)


def test_ops_go_to_the_gpu_unless_pinned():
    # Note [Placement rules], as TensorFlow: with a GPU present an op goes
    # there, even with its inputs on the CPU, unless a scope pins it.
    host = ember.constant(np.ones(4, np.float32))
    assert host.device.endswith("cpu:0")
    assert ember.exp(host).device.endswith("gpu:0")
    assert ember.zeros([4], ember.float32).device.endswith("gpu:0")
    with ember.device("cpu:0"):
        assert ember.exp(host).device.endswith("cpu:0")
    n = ember.shape(host)  # shape arithmetic stays on the host
    assert (n * 2).device.endswith("cpu:0")


def test_an_op_without_a_gpu_kernel_runs_on_the_cpu():
    with ember.device("gpu:0"):
        x = ember.identity(ember.constant(np.arange(6, dtype=np.float32)))
        y = ember.searchsorted(x, ember.constant(np.array([2.5, -1.0], np.float32)))  # no GPU kernel yet
    np.testing.assert_array_equal(y.numpy(), [3, 0])


def test_freed_buffer_is_not_reused_under_a_queued_reader():
    ember.config.set_async(True)
    results = []
    for round_ in range(10):
        with ember.device("gpu:0"):
            victim = ember.fill([N], float(round_))
            readers = [victim * 1.0 for _ in range(5)]
            del victim
            gc.collect()
            fresh = [ember.fill([N], -1.0) for _ in range(5)]
        results.append((round_, readers, fresh))
    for round_, readers, fresh in results:
        for r in readers:
            np.testing.assert_array_equal(r.numpy(), np.full(N, float(round_), np.float32))
        for f in fresh:
            np.testing.assert_array_equal(f.numpy(), np.full(N, -1.0, np.float32))


def test_memory_stats_limit_and_empty_cache():
    ember.sync()
    before = ember.config.memory_stats("gpu:0")
    with ember.device("gpu:0"):
        t = ember.zeros([1 << 22], ember.float32)  # 16 MiB: a segment of its own (caching_allocator.cc)
    t.numpy()
    assert ember.config.memory_stats("gpu:0")["bytes_in_use"] >= before["bytes_in_use"] + (16 << 20)
    del t
    gc.collect()
    ember.sync()
    cached = ember.config.memory_stats("gpu:0")
    ember.config.empty_cache("gpu:0")
    stats = ember.config.memory_stats("gpu:0")
    assert stats["bytes_reserved"] <= cached["bytes_reserved"] - (16 << 20)
    assert stats["bytes_reserved"] >= stats["bytes_in_use"]
    ember.config.set_memory_limit("gpu:0", 64 << 20)
    try:
        with ember.device("gpu:0"):
            big = ember.zeros([1 << 30], ember.uint8)
            with pytest.raises(ember.errors.ResourceExhaustedError):
                big.numpy()
            small = ember.ones([16], ember.float32)
        np.testing.assert_array_equal(small.numpy(), np.ones(16, np.float32))
    finally:
        ember.config.set_memory_limit("gpu:0", None)
        try:
            ember.sync()
        except ember.errors.ResourceExhaustedError:
            pass


def test_a_chain_of_kernels_records_no_event_per_kernel():
    with ember.device("gpu:0"):
        x = ember.identity(ember.constant(np.ones(1024, np.float32)))
        ember.sync()
        before = ember.config.runtime_stats("gpu:0")
        for _ in range(200):
            x = x * 1.0001
    x.numpy()
    after = ember.config.runtime_stats("gpu:0")
    kernels = after["kernels_enqueued"] - before["kernels_enqueued"]
    events = after["events_recorded"] - before["events_recorded"]
    assert kernels >= 200
    assert events <= 5


@pytest.fixture
def full_float32():
    """Matmuls in full float32 for the test (TensorFloat-32 is on by default)."""
    ember.config.experimental.enable_tensor_float_32_execution(False)
    try:
        yield
    finally:
        ember.config.experimental.enable_tensor_float_32_execution(True)


def test_tensor_float_32_is_on_by_default_and_can_be_turned_off():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((256, 256)).astype(np.float32)
    b = rng.standard_normal((256, 256)).astype(np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)

    def error():
        with ember.device("gpu:0"):
            got = ember.matmul(ember.constant(a), ember.constant(b)).numpy()
        return np.abs(got - want).max() / np.abs(want).max()

    assert ember.config.experimental.tensor_float_32_execution_enabled()
    tf32_error = error()
    ember.config.experimental.enable_tensor_float_32_execution(False)
    try:
        full_error = error()
    finally:
        ember.config.experimental.enable_tensor_float_32_execution(True)
    assert full_error < 1e-5
    assert tf32_error > 10 * full_error  # TF32 keeps 10 mantissa bits


def test_threads_get_their_own_results(full_float32):
    errors = []

    def work(seed):
        try:
            a = np.random.default_rng(seed).standard_normal((64, 64)).astype(np.float32)
            with ember.device("gpu:0"):
                y = ember.reduce_sum(ember.matmul(ember.constant(a), ember.constant(a)), axis=1)
            np.testing.assert_allclose(y.numpy(), (a @ a).sum(axis=1), rtol=1e-2, atol=1e-2)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# Note [Device error words]: a bad index found on the GPU reaches the
# value, the values computed from it, ember.sync() and a function call;
# nothing out of bounds is touched and the GPU stays usable.
def test_gather_out_of_range_is_reported_through_the_error_word():
    params = np.arange(20, dtype=np.float32).reshape(5, 4)
    with ember.device("gpu:0"):
        p = ember.identity(ember.constant(params))
        bad = ember.gather(p, ember.constant(np.array([0, 7, 2], np.int32)))
        downstream = ember.reduce_sum(bad * 2.0)
        good = ember.gather(p, ember.constant(np.array([4, 0], np.int64)))
    with pytest.raises(ember.errors.InvalidArgumentError, match=r"gather: indices\[1\] = 7 is not in \[0, 5\)"):
        bad.numpy()
    with pytest.raises(ember.errors.InvalidArgumentError, match="gather"):
        downstream.numpy()
    np.testing.assert_array_equal(good.numpy(), params[[4, 0]])
    with ember.device("gpu:0"):
        nd = ember.gather_nd(p, ember.constant(np.array([[1, 3], [5, 0]], np.int32)))
    with pytest.raises(ember.errors.InvalidArgumentError, match=r"gather_nd: indices\[1"):
        nd.numpy()
    np.testing.assert_array_equal((p + 1.0).numpy(), params + 1)  # still usable


def test_async_sync_raises_an_unread_device_error_once():
    ember.config.set_async(True)
    try:
        with ember.device("gpu:0"):
            updates = ember.identity(ember.constant(np.ones((2, 3), np.float32)))
            ember.scatter_nd(ember.constant(np.array([[0], [9]], np.int64)), updates, [4, 3])
        with pytest.raises(ember.errors.InvalidArgumentError, match="scatter_nd"):
            ember.sync()
        ember.sync()  # raised once
    finally:
        ember.config.set_async(False)


def test_a_function_call_raises_the_device_error_with_the_node():
    @ember.function
    def pick(p, i):
        return ember.gather(p, i) * 3.0

    with ember.device("gpu:0"):
        p = ember.identity(ember.constant(np.arange(6, dtype=np.float32)))
        np.testing.assert_array_equal(pick(p, ember.constant(np.array([5, 1], np.int32))).numpy(), [15.0, 3.0])
        with pytest.raises(ember.errors.InvalidArgumentError, match="gather"):
            pick(p, ember.constant(np.array([6, 1], np.int32))).numpy()
        np.testing.assert_array_equal(pick(p, ember.constant(np.array([0], np.int32))).numpy(), [0.0])


# Note [GPU fused programs]: a function's element-wise chain is one kernel.
def test_a_functions_element_wise_chain_runs_as_one_kernel():
    @ember.function
    def chain(x, y):
        z = ember.tanh(x * y + 0.5)
        return ember.nn.relu(z - y) * 2.0, ember.exp(-z)

    a = np.linspace(-2, 2, 4096, dtype=np.float32)
    b = np.cos(a)
    with ember.device("gpu:0"):
        x = ember.identity(ember.constant(a))
        y = ember.identity(ember.constant(b))
        chain(x, y)  # traced and compiled
        ember.sync()
        before = ember.config.runtime_stats("gpu:0")
        first, second = chain(x, y)
        first.numpy()
    after = ember.config.runtime_stats("gpu:0")
    kernels = after["kernels_enqueued"] - before["kernels_enqueued"]
    z = np.tanh(a * b + np.float32(0.5))
    np.testing.assert_allclose(first.numpy(), np.maximum(z - b, 0) * 2, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(second.numpy(), np.exp(-z), rtol=1e-6)
    assert kernels <= 2, f"{kernels} kernels for one fused chain"


# Note [Random streams]: the GPU draws the CPU's Philox stream element for
# element: uniform floats and integers bit for bit, normals within the
# last bits of the two devices' double log, cos and sin.
def test_stateless_random_matches_the_cpu():
    def draw(device):
        with ember.device(device):
            seed = ember.constant(np.array([7, 42], np.int64))
            return (
                [ember.random.stateless_uniform([1001], seed, minval=-3.0, maxval=5.0, dtype=d).numpy()
                 for d in (ember.float32, ember.float64, ember.float16, ember.bfloat16)],
                [ember.random.stateless_uniform([999], seed, minval=-5, maxval=1 << 20, dtype=d).numpy()
                 for d in (ember.int32, ember.int64)],
                [ember.random.stateless_normal([1003], seed, dtype=d).numpy() for d in (ember.float32, ember.float64)],
                ember.random.stateless_truncated_normal([1005], seed).numpy(),
            )

    cpu, gpu = draw("cpu:0"), draw("gpu:0")
    for a, b in zip(cpu[0] + cpu[1], gpu[0] + gpu[1]):
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    for a, b in zip(cpu[2], gpu[2]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(cpu[3], gpu[3], rtol=1e-6, atol=1e-6)


def test_optimizer_steps_stay_on_the_gpu_and_match_the_cpu():
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((64, 32)).astype(np.float32)
    grads = [rng.standard_normal((64, 32)).astype(np.float32) for _ in range(3)]

    def train(device, optimizer):
        with ember.device(device):
            w = ember.Variable(w0)
            for g in grads:
                optimizer.apply_gradients([(ember.constant(g), w)])
            return w.numpy(), w.device

    for make in (lambda: ember.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
                 lambda: ember.optimizers.Adam(0.01), lambda: ember.optimizers.AdamW(0.01, weight_decay=0.1)):
        cpu, _ = train("cpu:0", make())
        gpu, where = train("gpu:0", make())
        assert where.endswith("gpu:0")
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)


def test_movement_copies_match_numpy():
    x = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    with ember.device("gpu:0"):
        t = ember.identity(ember.constant(x))
        got = {
            "strided": t[:, 1:, ::-2],
            "slice": ember.slice(t, [0, 1, 2], [2, -1, 2]),
            "reverse": ember.reverse(t, [0, 2]),
            "tile": ember.tile(t, [2, 1, 3]),
            "broadcast": ember.broadcast_to(t[:, :1, :], [2, 4, 5]),
            "stack": ember.stack([t, t * 2.0], axis=1),
            "split": ember.split(t, [2, 3], axis=2)[1],
            "unstack": ember.unstack(t, axis=1)[2],
        }
    want = {
        "strided": x[:, 1:, ::-2], "slice": x[0:2, 1:, 2:4], "reverse": x[::-1, :, ::-1],
        "tile": np.tile(x, [2, 1, 3]), "broadcast": np.broadcast_to(x[:, :1, :], (2, 4, 5)),
        "stack": np.stack([x, x * 2], axis=1), "split": x[:, :, 2:], "unstack": x[:, 2, :],
    }
    for name, value in got.items():
        assert value.device.endswith("gpu:0"), name
        np.testing.assert_array_equal(value.numpy(), want[name], err_msg=name)


def test_cross_entropy_matches_the_cpu_and_reports_bad_labels():
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((64, 10)).astype(np.float32) * 4
    labels = rng.integers(0, 10, 64).astype(np.int64)
    probs = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)

    def losses(device):
        with ember.device(device):
            x = ember.identity(ember.constant(logits))
            sparse = ember.nn.sparse_softmax_cross_entropy_with_logits(ember.constant(labels), x)
            dense = ember.nn.softmax_cross_entropy_with_logits(ember.constant(probs), x)
            return sparse.numpy(), dense.numpy(), sparse.device

    cpu_sparse, cpu_dense, _ = losses("cpu:0")
    gpu_sparse, gpu_dense, where = losses("gpu:0")
    assert where.endswith("gpu:0")
    np.testing.assert_allclose(gpu_sparse, cpu_sparse, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gpu_dense, cpu_dense, rtol=1e-5, atol=1e-6)
    bad = labels.copy()
    bad[5] = 10
    # Async: the call returns and the bad label reaches the value (the error word).
    previous = ember.config.is_async()
    ember.config.set_async(True)
    try:
        with ember.device("gpu:0"):
            loss = ember.nn.sparse_softmax_cross_entropy_with_logits(ember.constant(bad), ember.constant(logits))
        with pytest.raises(ember.errors.InvalidArgumentError, match="label value of 10"):
            loss.numpy()
    finally:
        ember.config.set_async(previous)
    # Sync: the call itself reports it.
    with ember.device("gpu:0"), pytest.raises(ember.errors.InvalidArgumentError, match="label value of 10"):
        ember.nn.sparse_softmax_cross_entropy_with_logits(ember.constant(bad), ember.constant(logits)).numpy()


def test_clip_add_n_scans_and_special_functions_match_the_cpu():
    rng = np.random.default_rng(2)
    x = rng.uniform(-0.9, 0.9, (33, 7)).astype(np.float32)
    parts = [rng.standard_normal((33, 7)).astype(np.float32) for _ in range(11)]

    def compute(device):
        with ember.device(device):
            t = ember.identity(ember.constant(x))
            out = {
                "clip": ember.clip_by_value(t, -0.5, ember.constant(np.linspace(0, 1, 7, dtype=np.float32))),
                "add_n": ember.add_n([ember.constant(p) for p in parts]),
                "int_add_n": ember.add_n([ember.constant(np.array([120, -7], np.int8))] * 3),
            }
            for name in ("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh", "erf", "erfc"):
                out[name] = getattr(ember.math, name)(t)
            out["acosh"] = ember.math.acosh(t + 2.0)
            out["truediv"] = ember.math.truediv(t, t + 3.0)
            out["cumsum"] = ember.cumsum(t, axis=0, exclusive=True)
            out["cumprod"] = ember.math.cumprod(t + 1.0, axis=1, reverse=True)
            out["int_cumsum"] = ember.cumsum(ember.constant(np.full((3, 100), 100, np.int8)), axis=1)
            flags = ember.identity(ember.constant(x > 0))
            out["all"] = ember.reduce_all(flags, axis=0)
            out["any"] = ember.reduce_any(flags, axis=1)
            out["all_of_nothing"] = ember.reduce_all(ember.identity(ember.constant(np.zeros((0, 4), bool))), axis=0)
            return {k: (v.numpy(), v.device) for k, v in out.items()}

    cpu, gpu = compute("cpu:0"), compute("gpu:0")
    for name, (value, device) in gpu.items():
        assert device.endswith("gpu:0"), name
        np.testing.assert_allclose(value, cpu[name][0], rtol=2e-6, atol=1e-6, err_msg=name)


def test_pooling_gradients_match_the_cpu():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, (2, 9, 8, 3)).astype(np.float32)  # ties

    def grads(device):
        with ember.device(device):
            t = ember.Variable(x)
            with ember.GradientTape() as tape:
                peaks = ember.nn.max_pool2d(t, 3, 2, "SAME") * 1.5
                means = ember.nn.avg_pool2d(t, [2, 3], [1, 2], "VALID")
                loss = ember.reduce_sum(peaks * peaks) + ember.reduce_sum(means * means)
            return tape.gradient(loss, t).numpy()

    np.testing.assert_allclose(grads("gpu:0"), grads("cpu:0"), rtol=1e-5, atol=1e-5)


def test_convolution_gradients_match_the_cpu():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 9, 10, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 3, 5)).astype(np.float32)

    def grads(device, strides, padding):
        with ember.device(device):
            t, k = ember.Variable(x), ember.Variable(f)
            with ember.GradientTape() as tape:
                y = ember.nn.conv2d(t, k, strides, padding)
                loss = ember.reduce_sum(y * y)
            dx, dk = tape.gradient(loss, [t, k])
            up = ember.nn.conv2d_transpose(ember.constant(np.ones((2, 5, 5, 5), np.float32)), k, [2, 9, 10, 3], 2)
            return dx.numpy(), dk.numpy(), up.numpy()

    for strides, padding in ((1, "SAME"), (2, "SAME"), (2, "VALID")):  # stride 2 SAME pads one side more
        for a, b in zip(grads("gpu:0", strides, padding), grads("cpu:0", strides, padding)):
            # float32 convolutions may run in TF32 on the GPU (Note [Matmul precision on GPUs]).
            np.testing.assert_allclose(a, b, rtol=3e-3, atol=3e-3 * np.abs(b).max())


# Note [Graph replay]: with CUDA graphs on, a function whose nodes all run
# on the GPU is captured on its second call and replayed from then on; the
# results match node-by-node execution call for call, parameters are
# copied in, a variable is read in place (so an update in place shows),
# results handed out earlier are not overwritten, and a function whose
# nodes report through device error words keeps running node by node.
def test_functions_replay_as_cuda_graphs_and_match_node_by_node():
    from ember import _C

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

    ember.config.experimental.enable_tensor_float_32_execution(False)
    ember.config.experimental.enable_cuda_graphs(True)
    try:
        with ember.device("gpu:0"):
            v1 = ember.Variable(w1)
            b, w = ember.identity(ember.constant(b1)), ember.identity(ember.constant(w2))

            @ember.function
            def dense(x, b1, w2):
                h = ember.nn.relu(ember.nn.bias_add(ember.matmul(x, v1), b1))
                return ember.nn.softmax(ember.matmul(h, w2)), ember.reduce_sum(h, axis=1)

            before = _C._graph_replay_count()
            outs = [[o.numpy() for o in dense(ember.identity(ember.constant(x)), b, w)] for x in xs]
            replays = _C._graph_replay_count() - before
            kept = dense(ember.identity(ember.constant(xs[1])), b, w)  # then overwritten by nothing:
            dense(ember.identity(ember.constant(xs[2])), b, w)
            v1.assign(w1 * 2)
            updated = dense(ember.identity(ember.constant(xs[0])), b, w)[0].numpy()

            @ember.function
            def pick(p, i):
                return ember.gather(p, i) * 3.0

            p = ember.identity(ember.constant(np.arange(6, dtype=np.float32)))
            before_pick = _C._graph_replay_count()
            for _ in range(4):
                i = ember.identity(ember.constant(np.array([5, 1], np.int32)))
                np.testing.assert_array_equal(pick(p, i).numpy(), [15, 3])
            with pytest.raises(ember.errors.InvalidArgumentError, match="gather"):
                pick(p, ember.identity(ember.constant(np.array([6, 1], np.int32)))).numpy()
            assert _C._graph_replay_count() == before_pick
    finally:
        ember.config.experimental.enable_cuda_graphs(False)
        ember.config.experimental.enable_tensor_float_32_execution(True)
    assert replays == len(xs) - 1, replays  # the first call warms, the second captures and replays
    for x, (probs, sums) in zip(xs, outs):
        want_probs, want_sums = expected(x)
        np.testing.assert_allclose(probs, want_probs, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(sums, want_sums, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(kept[0].numpy(), expected(xs[1])[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(updated, expected(xs[0], w1 * 2)[0], rtol=1e-5, atol=1e-6)

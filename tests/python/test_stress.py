"""Concurrency and memory: threads that mix eager ops, function calls and
variable updates get exact results without deadlock, and long loops of ops
keep resident memory flat.

Each threaded test runs its workers with a deadline: a deadlock fails the
test instead of hanging the run.
"""

import threading

import numpy as np
import pytest

import ember

DEADLINE_S = 120


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def _run_threads(workers):
    errors = []

    def guarded(work):
        try:
            work()
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(w,), daemon=True) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(DEADLINE_S)
    assert not any(t.is_alive() for t in threads), "deadlock: a worker did not finish"
    if errors:
        raise errors[0]


@pytest.fixture(params=[True, False], ids=["async", "sync"])
def mode(request):
    ember.config.set_async(request.param)
    yield request.param
    ember.config.set_async(True)


def test_threads_mixing_eager_ops_functions_and_variable_updates(mode):
    counter = ember.Variable(0.0)
    total = ember.Variable(ember.zeros([8]))

    @ember.function
    def step(x):
        counter.assign_add(1.0)
        return ember.reduce_sum(ember.nn.relu(x @ ember.transpose(x)))

    num_threads, iterations = 4, 150

    def worker(seed):
        def work():
            rng = np.random.default_rng(seed)
            for i in range(iterations):
                a = rng.standard_normal((4, 8)).astype(np.float32)
                expected = np.maximum(a @ a.T, 0).sum()
                got = step(a).numpy() if i % 2 else ember.reduce_sum(ember.nn.relu(ember.matmul(a, a.T))).numpy()
                np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
                total.assign_add(ember.ones([8]))
                if i % 2 == 0:
                    counter.assign_add(1.0)
                c = ember.constant(a) * 2.0 + 1.0
                np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)
        return work

    _run_threads([worker(s) for s in range(num_threads)])
    ember.sync()
    # Every update counted once: odd iterations through the function, even
    # ones eagerly.
    assert counter.numpy() == num_threads * iterations
    np.testing.assert_array_equal(total.numpy(), np.full([8], num_threads * iterations, np.float32))


def test_threads_with_failing_ops_keep_their_errors_to_themselves(mode):
    def healthy():
        for _ in range(200):
            assert float(ember.add(1.0, 2.0)) == 3.0
            ember.sync()

    def failing():
        for _ in range(200):
            with pytest.raises(ValueError, match="gather"):  # at the call in sync mode, at the read in async
                ember.gather(ember.constant([1.0, 2.0]), [5]).numpy()
            ember.sync()  # already reported: raises nothing

    _run_threads([healthy, healthy, failing, healthy])


def test_soak_small_ops_keep_memory_flat():
    x = ember.constant([1.0])
    for _ in range(200_000):  # warm up: the executor queue and malloc reach their high-water marks
        x = x + 1.0
    ember.sync()
    before = _rss_bytes()
    for _ in range(1_000_000):
        x = x + 1.0
    ember.sync()
    assert x.numpy()[0] == pytest.approx(1_200_001.0)
    grown = _rss_bytes() - before
    assert grown < 16 << 20, f"resident memory grew by {grown / 2**20:.1f} MiB over a million small ops"


def test_soak_megabyte_ops_keep_memory_flat():
    a = ember.ones([256, 1024])  # 1 MiB of float32
    for _ in range(200):
        a = a * 1.0
    ember.sync()
    before = _rss_bytes()
    for _ in range(10_000):
        a = a * 1.0 + 0.0
    ember.sync()
    assert float(ember.reduce_sum(a)) == 256 * 1024
    grown = _rss_bytes() - before
    assert grown < 32 << 20, f"resident memory grew by {grown / 2**20:.1f} MiB over ten thousand 1 MiB ops"

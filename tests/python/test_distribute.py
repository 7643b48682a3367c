"""ember.distribute: collectives, strategies, mirrored variables, distributed datasets, and
data-parallel training that matches one device.

The tests that need two devices take the `devices` fixture: two logical CPUs
(EMBER_NUM_CPU_DEVICES=2) or two simulated accelerators (EMBER_SIMULATED_DEVICES=2).
Devices are fixed when ember is imported, so in a plain test run
test_two_device_cases_in_a_subprocess reruns this file with two CPUs, and
tests/devices/test_distribute_sim.py reruns it on sim:0 and sim:1.
"""

import numpy as np
import pytest

import ember
from two_devices import TWO_DEVICES, needs_two_devices, rerun_with_two_cpus

D = ember.distribute


@pytest.fixture
def devices():
    return TWO_DEVICES


# --- Without extra devices ----------------------------------------------------
def test_default_strategy_outside_any_scope():
    strategy = D.get_strategy()
    assert not D.has_strategy()
    assert not D.in_cross_replica_context()
    assert strategy.num_replicas_in_sync == 1
    context = D.get_replica_context()
    assert context.num_replicas_in_sync == 1 and int(context.replica_id_in_sync_group) == 0
    assert strategy.run(lambda a, b: a + b, args=(2,), kwargs={"b": 3}) == 5  # called directly
    x = ember.constant([1.0, 2.0])
    assert strategy.reduce("SUM", x, axis=None) is x
    np.testing.assert_allclose(context.all_reduce(D.ReduceOp.SUM, x).numpy(), [1.0, 2.0])
    with strategy.scope():
        v = ember.Variable(1.0)
    assert type(v) is ember.Variable


def test_reduce_op_names():
    assert D.ReduceOp.from_value("sum") is D.ReduceOp.SUM
    assert D.ReduceOp.from_value(D.ReduceOp.MEAN) is D.ReduceOp.MEAN
    with pytest.raises(ValueError, match="ReduceOp"):
        D.ReduceOp.from_value("median")


def test_variable_creator_scope_sees_every_argument():
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(sorted(k for k, v in kwargs.items() if v is not None))
        return next_creator(**kwargs)

    with ember.variable_creator_scope(creator):
        v = ember.Variable([1.0, 2.0], False, name="w")
    assert seen == [["initial_value", "name", "trainable"]]  # the arguments given, by name
    assert type(v) is ember.Variable and not v.trainable and v.name == "w"
    ember.Variable(3.0)  # outside the scope: no creator
    assert len(seen) == 1


def test_compute_average_loss_divides_by_the_global_batch():
    loss = ember.constant([1.0, 2.0, 3.0, 5.0])
    assert float(ember.nn.compute_average_loss(loss)) == pytest.approx(11.0 / 4)
    assert float(ember.nn.compute_average_loss(loss, global_batch_size=8)) == pytest.approx(11.0 / 8)
    weighted = ember.nn.compute_average_loss(loss, sample_weight=ember.constant([1.0, 0.0, 1.0, 0.0]))
    assert float(weighted) == pytest.approx(4.0 / 4)
    with pytest.raises(ValueError, match="at least one dimension"):
        ember.nn.compute_average_loss(ember.constant(1.0))
    with pytest.raises(ValueError, match="positive"):
        ember.nn.compute_average_loss(loss, global_batch_size=0)
    assert float(ember.nn.scale_regularization_loss([ember.constant(1.0), ember.constant(2.0)])) == 3.0


def test_loss_scaling_needs_a_replica_context():
    with D.OneDeviceStrategy("cpu:0").scope():
        with pytest.raises(RuntimeError, match="cross-replica"):
            ember.nn.compute_average_loss(ember.constant([1.0]))


def test_one_device_strategy():
    strategy = D.OneDeviceStrategy("/device:CPU:0")
    assert strategy.extended.worker_devices == ("cpu:0",)
    with strategy.scope() as entered:
        assert entered is strategy and D.get_strategy() is strategy and D.in_cross_replica_context()
        v = ember.Variable([1.0, 2.0], name="v")
    assert isinstance(v, D.MirroredVariable) and len(v.values) == 1 and v.name == "v"

    def step(x):
        assert D.get_replica_context().num_replicas_in_sync == 1
        v.assign_add(x)
        return v * 2.0

    out = strategy.run(step, args=(ember.constant([1.0, 1.0]),))
    np.testing.assert_allclose(out.numpy(), [4.0, 6.0])  # one replica: a plain value
    np.testing.assert_allclose(strategy.reduce("MEAN", out, axis=0).numpy(), 5.0)
    batches = list(strategy.experimental_distribute_dataset(ember.data.Dataset.range(4).batch(2)))
    np.testing.assert_array_equal([b.numpy() for b in batches], [[0, 1], [2, 3]])


def test_one_replica_run_inside_a_function():
    strategy = D.OneDeviceStrategy("cpu:0")
    with strategy.scope():
        v = ember.Variable(1.0)

    @ember.function
    def step(x):
        return strategy.run(lambda y: v.assign_add(y).read_value(), args=(x,))

    assert float(step(ember.constant(2.0))) == 3.0
    assert float(step(ember.constant(2.0))) == 5.0
    assert float(v) == 5.0


def test_strategy_argument_errors():
    with pytest.raises(ValueError, match="twice"):
        D.MirroredStrategy(["cpu:0", "/device:CPU:0"])
    with pytest.raises(TypeError, match="list"):
        D.MirroredStrategy("cpu:0")
    with pytest.raises(ValueError):
        D.MirroredStrategy(["nowhere:0"])
    a, b = D.OneDeviceStrategy("cpu:0"), D.OneDeviceStrategy("cpu:0")
    with a.scope(), pytest.raises(ValueError, match="mixing strategies"):
        with b.scope():
            pass


def test_mirrored_strategy_default_devices():
    gpus = [d.name for d in ember.config.list_logical_devices("GPU")]
    expected = tuple(ember.device(n).name for n in gpus) or ("cpu:0",)
    assert D.MirroredStrategy().extended.worker_devices == expected


# --- Collectives on two devices -------------------------------------------------
_NUMPY_REDUCTIONS = {
    "SUM": lambda a, b: a + b,
    "MEAN": lambda a, b: np.trunc((a + b) / 2).astype(a.dtype) if a.dtype.kind == "i" else (a + b) / 2,
    "MAX": np.maximum,
    "MIN": np.minimum,
}


@needs_two_devices
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("op", ["SUM", "MEAN", "MAX", "MIN"])
def test_all_reduce_matches_numpy(devices, op, dtype):
    rng = np.random.default_rng(1)
    a = (rng.normal(size=(3, 4)) * 10).astype(dtype)
    b = (rng.normal(size=(3, 4)) * 10).astype(dtype)
    if dtype == np.int32:
        b[0, 0] = -a[0, 0] - 1  # an odd negative sum: MEAN truncates toward zero
    values = []
    for name, x in zip(devices, (a, b)):
        with ember.device(name):
            values.append(ember.constant(x))
    out = D.LocalCollectives(devices).all_reduce(values, D.ReduceOp[op])
    assert [o.device for o in out] == devices
    for o in out:
        assert o.dtype.as_numpy_dtype == dtype
        np.testing.assert_allclose(o.numpy(), _NUMPY_REDUCTIONS[op](a, b), rtol=1e-6)


@needs_two_devices
def test_gather_broadcast_and_reduce_scatter(devices):
    c = D.LocalCollectives(devices)
    a = np.arange(8, dtype=np.float32).reshape(4, 2)
    b = -np.arange(8, dtype=np.float32).reshape(4, 2) * 3
    values = c.broadcast(a)
    assert [v.device for v in values] == devices
    values[1] = values[1] * 0 + b
    gathered = c.all_gather(values, axis=0)
    for g, name in zip(gathered, devices):
        assert g.device == name
        np.testing.assert_array_equal(g.numpy(), np.concatenate([a, b]))
    scattered = c.reduce_scatter(values, D.ReduceOp.SUM, axis=0)
    np.testing.assert_array_equal(scattered[0].numpy(), (a + b)[:2])
    np.testing.assert_array_equal(scattered[1].numpy(), (a + b)[2:])
    assert scattered[1].device == devices[1]
    with pytest.raises(ValueError, match="equal pieces"):
        c.reduce_scatter([ember.constant([1.0, 2.0, 3.0])] * 2, D.ReduceOp.SUM)
    with pytest.raises(ValueError, match="one value per device"):
        c.all_reduce([ember.constant(1.0)], D.ReduceOp.SUM)
    with pytest.raises(TypeError, match="dtypes"):
        c.all_reduce([ember.constant(1.0), ember.constant(1)], D.ReduceOp.SUM)
    with pytest.raises(ValueError, match="shapes"):
        c.all_reduce([ember.constant([1.0]), ember.constant([1.0, 2.0])], D.ReduceOp.SUM)


# --- Mirrored variables, run and reduce -----------------------------------------
@needs_two_devices
def test_mirrored_variable_components_and_assignment(devices):
    strategy = D.MirroredStrategy(devices)
    with ember.name_scope("layer"), strategy.scope():
        v = ember.Variable(lambda: ember.constant([1.0, 2.0]), name="w")
    assert isinstance(v, D.MirroredVariable) and isinstance(v, ember.Variable)
    assert v.name == "layer/w" and v.trainable
    assert [c.device for c in v.values] == devices
    assert [c.name for c in v.values] == ["layer/w", "layer/w/replica_1"]

    def components():
        return [c.numpy().tolist() for c in strategy.experimental_local_results(v)]

    assert components() == [[1.0, 2.0]] * 2
    v.assign([3.0, 4.0])
    assert components() == [[3.0, 4.0]] * 2
    v.assign_add([1.0, 1.0])
    v.assign_sub([0.5, 0.5])
    assert components() == [[3.5, 4.5]] * 2
    v[0].assign(9.0)
    assert components() == [[9.0, 4.5]] * 2
    assert [c.device for c in v.values] == devices  # writes keep each component on its device
    with ember.device(devices[1]):
        assert v.device == devices[1]  # a cross-replica read uses the component on the current device

    def replica_step():
        i = int(D.get_replica_context().replica_id_in_sync_group)
        assert v.device == devices[i]
        v.assign_add([float(i), float(i)])  # in a replica context: that replica's component only
        return v.read_value()

    out = strategy.run(replica_step)
    assert [o.device for o in out.values] == devices
    assert [o.numpy().tolist() for o in out.values] == [[9.0, 4.5], [10.0, 5.5]]
    assert components() == [[9.0, 4.5], [10.0, 5.5]]


@needs_two_devices
def test_checkpoint_round_trip_restores_every_component(devices, tmp_path):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        v = ember.Variable([1.0, 2.0])
    checkpoint = ember.train.Checkpoint(v=v)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    v.assign([5.0, 6.0])
    checkpoint.restore(path)
    assert [c.numpy().tolist() for c in v.values] == [[1.0, 2.0]] * 2


@needs_two_devices
def test_run_hands_each_replica_its_values_and_reduce_combines_them(devices):
    strategy = D.MirroredStrategy(devices)
    x = D.PerReplica([ember.constant([1.0, 2.0]), ember.constant([3.0, 5.0])])

    def step(a, scale, bias=None):
        ctx = D.get_replica_context()
        assert D.get_strategy() is strategy and not D.in_cross_replica_context()
        assert ctx.num_replicas_in_sync == 2
        assert ember.identity(ember.constant(0.0)).device == devices[int(ctx.replica_id_in_sync_group)]
        return {"y": a * scale + bias, "id": ctx.replica_id_in_sync_group, "same": scale}

    out = strategy.run(step, args=(x, 2.0), kwargs={"bias": D.PerReplica([ember.constant(0.0),
                                                                              ember.constant(1.0)])})
    assert isinstance(out["y"], D.PerReplica) and out["same"] == 2.0
    assert [int(i) for i in out["id"].values] == [0, 1]
    local = strategy.experimental_local_results(out["y"])
    assert [t.numpy().tolist() for t in local] == [[2.0, 4.0], [7.0, 11.0]]
    np.testing.assert_allclose(strategy.reduce("SUM", out["y"], axis=None).numpy(), [9.0, 15.0])
    np.testing.assert_allclose(strategy.reduce(D.ReduceOp.MEAN, out["y"], axis=None).numpy(), [4.5, 7.5])
    np.testing.assert_allclose(strategy.reduce("SUM", out["y"], axis=0).numpy(), 24.0)
    np.testing.assert_allclose(strategy.reduce("MEAN", out["y"], axis=0).numpy(), 6.0)
    np.testing.assert_allclose(strategy.reduce("MAX", out["y"], axis=0).numpy(), 11.0)
    np.testing.assert_allclose(strategy.gather(out["y"], axis=0).numpy(), [2.0, 4.0, 7.0, 11.0])
    plain = ember.constant([3.0, 5.0])
    assert strategy.reduce("MEAN", plain, axis=None) is plain
    assert float(strategy.reduce("MEAN", plain, axis=0)) == 4.0
    with pytest.raises(ValueError, match="plain"):
        strategy.reduce("SUM", plain, axis=None)


@needs_two_devices
def test_replica_context_collectives(devices):
    strategy = D.MirroredStrategy(devices)

    def step():
        ctx = D.get_replica_context()
        i = ember.cast(ctx.replica_id_in_sync_group, "float32")
        total = ctx.all_reduce("SUM", {"a": i + 1.0, "b": ember.stack([i, i])})
        biggest = ctx.all_reduce(D.ReduceOp.MAX, i * 10.0)
        gathered = ctx.all_gather(ember.reshape(i, [1]), axis=0)
        return total["a"], total["b"], biggest, gathered

    a, b, biggest, gathered = strategy.run(step)
    for k in range(2):
        assert a.values[k].device == devices[k]
        assert float(a.values[k]) == 3.0 and b.values[k].numpy().tolist() == [1.0, 1.0]
        assert float(biggest.values[k]) == 10.0 and gathered.values[k].numpy().tolist() == [0.0, 1.0]


@needs_two_devices
def test_replica_failures_reach_the_caller(devices):
    strategy = D.MirroredStrategy(devices)

    def uneven():
        ctx = D.get_replica_context()
        if int(ctx.replica_id_in_sync_group) == 0:
            return ctx.all_reduce("SUM", ember.constant(1.0))
        return ember.constant(0.0)

    with pytest.raises(RuntimeError, match="same collective calls"):
        strategy.run(uneven)

    def raises():
        if int(D.get_replica_context().replica_id_in_sync_group) == 1:
            raise KeyError("replica 1 broke")
        return D.get_replica_context().all_reduce("SUM", ember.constant(1.0))

    with pytest.raises(KeyError, match="replica 1 broke"):
        strategy.run(raises)
    with strategy.scope():
        pass
    with pytest.raises(RuntimeError, match="inside strategy.run"):
        with strategy.scope():
            strategy.run(lambda: ember.Variable(1.0))
    assert float(strategy.run(lambda: ember.constant(1.0)).values[1]) == 1.0  # still usable


@needs_two_devices
def test_asynchronous_kernel_errors_in_a_replica_reach_the_caller(devices, async_mode):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        v = ember.Variable([1.0, 2.0])

    def step(x):
        v.assign(ember.debugging.check_numerics(x, "replica input"))  # fails in the kernel, on replica 1

    x = D.PerReplica([ember.constant([3.0, 4.0]), ember.constant([np.nan, 4.0])])
    with pytest.raises(ember.errors.InvalidArgumentError, match="replica input"):
        strategy.run(step, args=(x,))
    assert [c.numpy().tolist() for c in v.values] == [[3.0, 4.0], [1.0, 2.0]]  # the failed write kept the value


@needs_two_devices
def test_run_with_several_replicas_inside_a_function_traces_one_graph(devices):
    """TensorFlow's `distributed_train_step`: strategy.run and strategy.reduce inside one function
    (Note [Replicas join the caller's trace])."""
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        w = ember.Variable([1.0, 2.0])

    def replica_step(x):
        y = x * w
        total = D.get_replica_context().all_reduce("SUM", y)  # a collective inside the trace
        w.assign_add(total)
        return y

    @ember.function
    def step(x):
        per_replica = strategy.run(replica_step, args=(x,))
        return per_replica, strategy.reduce("SUM", per_replica, axis=None)

    x = D.PerReplica([ember.constant([1.0, 1.0]), ember.constant([2.0, 2.0])])
    per_replica, total = step(x)
    assert isinstance(per_replica, D.PerReplica)  # (a function's results are on its call's device)
    assert [t.numpy().tolist() for t in per_replica.values] == [[1.0, 2.0], [2.0, 4.0]]
    assert total.numpy().tolist() == [3.0, 6.0]
    assert [c.numpy().tolist() for c in w.values] == [[4.0, 8.0], [4.0, 8.0]]
    x2 = D.PerReplica([ember.constant([0.0, 1.0]), ember.constant([1.0, 0.0])])
    per_replica, total = step(x2)  # the same trace: the PerReplica's components are its parameters
    assert [t.numpy().tolist() for t in per_replica.values] == [[0.0, 8.0], [4.0, 0.0]]
    assert [c.numpy().tolist() for c in w.values] == [[8.0, 16.0], [8.0, 16.0]]
    assert step.experimental_get_tracing_count() == 1
    partitions = step.get_concrete_function(x).graph.partitions()
    assert sorted({d for d, _ in partitions}) == sorted(devices)  # each replica's ops on its device


@needs_two_devices
def test_functions_with_mirrored_variables(devices):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        w = ember.Variable([1.0, 2.0])

    @ember.function
    def scale_and_bump(x):
        out = x * w
        w.assign_add(x)
        return out

    @ember.function
    def bump():
        w.assign_add([1.0, 1.0])

    bump()  # in the cross-replica context: every component
    assert [c.numpy().tolist() for c in w.values] == [[2.0, 3.0]] * 2
    # Each replica traces its own graph, which reads and writes its own component on its device.
    x = D.PerReplica([ember.constant([1.0, 1.0]), ember.constant([2.0, 2.0])])
    for _ in range(2):
        out = strategy.run(scale_and_bump, args=(x,))
    assert [o.device for o in out.values] == devices
    assert [o.numpy().tolist() for o in out.values] == [[3.0, 4.0], [8.0, 10.0]]
    assert [c.numpy().tolist() for c in w.values] == [[4.0, 5.0], [6.0, 7.0]]
    assert scale_and_bump.trace_cache_stats()["traces"] == 2


# --- Distributed datasets ---------------------------------------------------------
@needs_two_devices
def test_distributed_dataset_splits_each_batch(devices):
    strategy = D.MirroredStrategy(devices)
    features = np.arange(12, dtype=np.float32).reshape(6, 2)
    labels = np.arange(6, dtype=np.int32)
    ds = ember.data.Dataset.from_tensor_slices({"x": features, "y": labels}).batch(4, drop_remainder=True)
    elements = list(strategy.experimental_distribute_dataset(ds))
    assert len(elements) == 1
    x, y = elements[0]["x"], elements[0]["y"]
    assert isinstance(x, D.PerReplica) and [t.device for t in x.values] == devices
    np.testing.assert_array_equal(x.values[0].numpy(), features[:2])
    np.testing.assert_array_equal(x.values[1].numpy(), features[2:4])
    np.testing.assert_array_equal(y.values[1].numpy(), labels[2:4])
    iterator = iter(strategy.experimental_distribute_dataset(ds))
    np.testing.assert_array_equal(iterator.get_next()["x"].values[1].numpy(), features[2:4])
    with pytest.raises(StopIteration):
        iterator.get_next()
    odd = ember.data.Dataset.from_tensor_slices(features).batch(3)  # uneven: 2 rows and 1 (test_distribute_api.py)
    first = next(iter(strategy.experimental_distribute_dataset(odd)))
    assert [t.shape[0] for t in first.values] == [2, 1]


@needs_two_devices
def test_datasets_from_function_give_each_replica_an_element(devices):
    strategy = D.MirroredStrategy(devices)
    contexts = []

    def dataset_fn(context):
        contexts.append(context)
        batch = context.get_per_replica_batch_size(4)
        return ember.data.Dataset.range(8).batch(batch)

    elements = list(strategy.distribute_datasets_from_function(dataset_fn))
    assert [(c.num_input_pipelines, c.input_pipeline_id, c.num_replicas_in_sync) for c in contexts] == [(1, 0, 2)]
    assert [[t.numpy().tolist() for t in e.values] for e in elements] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    assert [t.device for t in elements[0].values] == devices
    with pytest.raises(ValueError, match="not divisible"):
        D.InputContext(num_replicas_in_sync=2).get_per_replica_batch_size(3)


# --- Data-parallel training matches one device -------------------------------------
_rng = np.random.default_rng(0)
_X = _rng.normal(size=(8, 4)).astype(np.float32)
_Y = _rng.normal(size=(8, 1)).astype(np.float32)
_W1 = (_rng.normal(size=(4, 8)) * 0.5).astype(np.float32)
_W2 = (_rng.normal(size=(8, 1)) * 0.5).astype(np.float32)
_OPTIMIZERS = {
    "sgd": lambda: ember.optimizers.SGD(0.1, momentum=0.9),
    "adam": lambda: ember.optimizers.Adam(0.01),
}


def _train_mlp(strategy, make_optimizer, steps=4, aggregate=True, traced=False):
    """An MLP trained on the whole batch of 8 each step, split among the strategy's replicas;
    with `traced` True, each replica computes its loss and gradients in an ember.function; with
    "step", the whole step (strategy.run, the optimizer's sum, strategy.reduce) is one function."""
    with strategy.scope():
        params = [ember.Variable(_W1, name="w1"), ember.Variable(np.zeros(8, np.float32), name="b1"),
                  ember.Variable(_W2, name="w2")]
        optimizer = make_optimizer()

    def loss_and_gradients(x, y):
        w1, b1, w2 = params
        with ember.GradientTape() as tape:
            hidden = ember.nn.relu(ember.matmul(x, w1) + b1)
            per_example = ember.reduce_sum(ember.square(ember.matmul(hidden, w2) - y), axis=1)
            loss = ember.nn.compute_average_loss(per_example, global_batch_size=8)
        return loss, tape.gradient(loss, params)

    compute = ember.function(loss_and_gradients) if traced is True else loss_and_gradients

    def step(x, y):
        loss, grads = compute(x, y)
        # The optimizer sums the replicas' gradients: a collective, traced only with traced="step".
        optimizer.apply_gradients(zip(grads, params), skip_gradients_aggregation=not aggregate)
        return loss

    def distributed_step(x, y):
        return strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None)

    if traced == "step":
        distributed_step = ember.function(distributed_step)
    ds = ember.data.Dataset.from_tensor_slices((_X, _Y)).batch(8).repeat(steps)
    losses = [float(distributed_step(x, y)) for x, y in strategy.experimental_distribute_dataset(ds)]
    if traced == "step":
        assert distributed_step.experimental_get_tracing_count() == 1
    return params, optimizer, losses


@needs_two_devices
@pytest.mark.parametrize("optimizer", sorted(_OPTIMIZERS))
def test_two_replicas_train_like_one_device(devices, optimizer, mode):
    make = _OPTIMIZERS[optimizer]
    single, _, single_losses = _train_mlp(D.OneDeviceStrategy(devices[0]), make)
    mirrored, mirrored_optimizer, mirrored_losses = _train_mlp(D.MirroredStrategy(devices), make)
    np.testing.assert_allclose(mirrored_losses, single_losses, rtol=1e-5)
    assert single_losses[-1] < single_losses[0]  # it trained
    for one, two in zip(single, mirrored):
        assert [c.device for c in two.values] == devices
        for component in two.values:
            np.testing.assert_allclose(component.numpy(), one.numpy(), rtol=1e-5, atol=1e-6)
    assert not np.allclose(mirrored[0].numpy(), _W1)
    # The optimizer's state is mirrored too, and counted one step per replica call.
    assert all(isinstance(v, D.MirroredVariable) for v in mirrored_optimizer.variables)
    assert [int(c) for c in mirrored_optimizer.iterations.values] == [4, 4]
    for traced in (True, "step"):
        trained, _, traced_losses = _train_mlp(D.MirroredStrategy(devices), make, traced=traced)
        np.testing.assert_allclose(traced_losses, single_losses, rtol=1e-5)
        for one, two in zip(single, trained):
            for component in two.values:
                np.testing.assert_allclose(component.numpy(), one.numpy(), rtol=1e-5, atol=1e-6)
    # Without the sum across replicas each replica follows its own half: the check can fail.
    unsummed, _, _ = _train_mlp(D.MirroredStrategy(devices), make, aggregate=False)
    assert not np.allclose(unsummed[0].values[0].numpy(), single[0].numpy(), rtol=1e-5, atol=1e-6)


@needs_two_devices
def test_optimizer_made_outside_the_scope_is_refused(devices):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        v = ember.Variable([1.0])
    optimizer = ember.optimizers.SGD(0.1)

    def step():
        optimizer.apply_gradients([(ember.constant([1.0]), v)])

    with pytest.raises(ValueError, match="inside the scope"):
        strategy.run(step)


# --- Rerunning the two-device cases ------------------------------------------------
@pytest.mark.skipif(TWO_DEVICES is not None, reason="the two-device tests already ran in this process")
def test_two_device_cases_in_a_subprocess():
    assert rerun_with_two_cpus(__file__) >= 25

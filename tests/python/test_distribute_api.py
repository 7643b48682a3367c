"""The rest of tf.distribute's API that TensorFlow programs use: ReplicaContext.merge_call,
strategy.extended (update, reduce_to, ...), variable synchronization and aggregation
(SyncOnReadVariable), experimental_distribute_values_from_function, and uneven final batches.

Devices as in test_distribute.py: the two-device tests use two logical CPUs or two simulated
devices; in a plain run test_two_device_cases_in_a_subprocess reruns them with two CPUs.
"""

import numpy as np
import pytest

import ember
from two_devices import TWO_DEVICES, needs_two_devices, rerun_with_two_cpus

D = ember.distribute
VS = ember.VariableSynchronization
VA = ember.VariableAggregation


@pytest.fixture
def devices():
    return TWO_DEVICES


def _replica_id():
    return int(D.get_replica_context().replica_id_in_sync_group)


def _lists(values):
    return [np.asarray(v).tolist() for v in values]


# --- Without extra devices ----------------------------------------------------
def test_variable_policy_enums_and_their_checks():
    assert [m.value for m in VS] == [0, 1, 2, 3]  # TensorFlow's numbering
    assert [m.name for m in VA] == ["NONE", "SUM", "MEAN", "ONLY_FIRST_REPLICA"]
    v = ember.Variable(1.0)
    assert v.synchronization is VS.AUTO and v.aggregation is VA.NONE and v.trainable
    on_read = ember.Variable(1.0, synchronization=VS.ON_READ, aggregation="sum")
    assert on_read.synchronization is VS.ON_READ and on_read.aggregation is VA.SUM
    assert not on_read.trainable  # ON_READ defaults to not trainable
    assert type(on_read) is ember.Variable  # outside a strategy: one copy, nothing to sync
    with pytest.raises(ValueError, match="only for variables that are not trainable"):
        ember.Variable(1.0, trainable=True, synchronization=VS.ON_READ)
    with pytest.raises(ValueError, match="VariableAggregation"):
        ember.Variable(1.0, aggregation="median")


def test_default_strategy_merge_call_update_and_reduce_to():
    strategy = D.get_strategy()
    context = D.get_replica_context()
    seen = []

    def merge_fn(s, x, scale=1.0):
        seen.append((s, D.in_cross_replica_context(), D.get_replica_context(), D.has_strategy()))
        return x * scale

    x = ember.constant([1.0, 2.0])
    np.testing.assert_allclose(context.merge_call(merge_fn, args=(x,), kwargs={"scale": 3.0}).numpy(), [3.0, 6.0])
    assert seen == [(strategy, True, None, False)]  # cross-replica context of the default strategy
    assert D.get_replica_context() is context  # and back in the replica context

    v = ember.Variable([1.0, 2.0])
    assert strategy.extended.update(v, lambda var, d: var.assign_add(d), args=([1.0, 1.0],)) is v
    np.testing.assert_allclose(v.numpy(), [2.0, 3.0])
    doubled = strategy.extended.update(v, lambda var: var.read_value() * 2.0, group=False)
    assert len(doubled) == 1 and doubled[0].numpy().tolist() == [4.0, 6.0]
    out = strategy.extended.reduce_to("SUM", x, "cpu:0")
    assert out.device == "cpu:0" and out.numpy().tolist() == [1.0, 2.0]
    assert [t.numpy().tolist() for t in strategy.extended.batch_reduce_to("MEAN", [(x, v), (x * 2.0, "cpu")])] == \
        [[1.0, 2.0], [2.0, 4.0]]
    assert strategy.extended.value_container(v) is v
    assert strategy.extended.call_for_each_replica(lambda a: a + 1, args=(1,)) == 2
    values = strategy.experimental_distribute_values_from_function(
        lambda ctx: (ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync))
    assert values == (0, 1)


def test_one_device_strategy_merge_call_keeps_the_device():
    strategy = D.OneDeviceStrategy("cpu:0")

    def step(x):
        return D.get_replica_context().merge_call(lambda s, y: (s, D.in_cross_replica_context(), y + 1.0), args=(x,))

    s, cross, y = strategy.run(step, args=(ember.constant(1.0),))
    assert s is strategy and cross and float(y) == 2.0


def test_replica_slices_of_uneven_global_batches():
    from ember.distribute._input import replica_slices
    assert replica_slices(8, 2) == [(0, 4), (4, 8)]
    assert replica_slices(7, 2) == [(0, 4), (4, 7)]
    assert replica_slices(10, 4) == [(0, 3), (3, 6), (6, 8), (8, 10)]  # ceil for the first B mod N
    assert replica_slices(2, 4) == [(0, 1), (1, 2), (2, 2), (2, 2)]


# --- merge_call ---------------------------------------------------------------
@needs_two_devices
def test_merge_call_runs_once_with_per_replica_arguments(devices):
    strategy = D.MirroredStrategy(devices)
    calls = []
    shared = ember.constant(10.0)

    def merge_fn(s, x, same, scale=None):
        calls.append((s, D.in_cross_replica_context(), D.get_replica_context(), type(x), same, scale))
        total = s.reduce("SUM", x, axis=None)
        doubled = D.PerReplica([t * 2.0 for t in x.values])
        return total, doubled, same

    def step(x):
        ctx = D.get_replica_context()
        before = ctx.replica_id_in_sync_group  # the replica context again after the merge
        total, doubled, same = ctx.merge_call(merge_fn, args=(x, shared), kwargs={"scale": 3})
        assert D.get_replica_context() is ctx and not D.in_cross_replica_context()
        assert int(before) == _replica_id()
        return total, doubled + 0.0, same  # doubled: this replica's own element, a tensor

    x = D.PerReplica([ember.constant([1.0, 2.0]), ember.constant([3.0, 5.0])])
    total, doubled, same = strategy.run(step, args=(x,))
    assert calls == [(strategy, True, None, D.PerReplica, shared, 3)]  # once, cross-replica
    assert total.numpy().tolist() == [4.0, 7.0]  # a plain result: every replica gets the same object
    assert _lists(doubled.values) == [[2.0, 4.0], [6.0, 10.0]]  # a PerReplica: each its own element
    assert same is shared


@needs_two_devices
def test_merge_call_inside_a_function(devices):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        w = ember.Variable([0.0, 0.0])

    def merge_fn(s, x):
        total = s.reduce("SUM", x, axis=None)
        w.assign_add(total)  # the cross-replica context: every component
        return total

    @ember.function
    def step(x):
        return strategy.run(lambda y: D.get_replica_context().merge_call(merge_fn, args=(y * 1.0,)) + y, args=(x,))

    x = D.PerReplica([ember.constant([1.0, 2.0]), ember.constant([3.0, 4.0])])
    out = step(x)
    assert _lists(out.values) == [[5.0, 8.0], [7.0, 10.0]]
    out = step(x)
    assert _lists(out.values) == [[5.0, 8.0], [7.0, 10.0]]
    assert _lists(w.values) == [[8.0, 12.0]] * 2
    assert step.experimental_get_tracing_count() == 1


@needs_two_devices
def test_merge_call_errors_reach_the_caller(devices):
    strategy = D.MirroredStrategy(devices)

    def merge_fn(s, x):
        raise KeyError("from merge_fn")

    with pytest.raises(KeyError, match="from merge_fn"):
        strategy.run(lambda: D.get_replica_context().merge_call(merge_fn, args=(_replica_id(),)))

    def only_replica_0():
        if _replica_id() == 0:
            D.get_replica_context().merge_call(lambda s: None)

    with pytest.raises(RuntimeError, match="same collective calls"):
        strategy.run(only_replica_0)


# --- strategy.extended ---------------------------------------------------------
@needs_two_devices
def test_extended_update_in_both_contexts(devices):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        v = ember.Variable([10.0, 20.0])
    where = []

    def sub(component, delta):
        where.append((component.device, ember._C._current_device_scope(), D.in_cross_replica_context()))
        return component.assign_sub(delta)

    delta = D.PerReplica([ember.constant([1.0, 1.0]), ember.constant([2.0, 3.0])])
    assert strategy.extended.update(v, sub, args=(delta,)) is v  # each component's own delta
    assert _lists(v.values) == [[9.0, 19.0], [8.0, 17.0]]
    assert where == [(d, d, True) for d in devices]  # on the component's device, cross-replica
    reads = strategy.extended.update(v, lambda c: c.read_value() + 1.0, group=False)
    assert isinstance(reads, tuple) and _lists(reads) == [[10.0, 20.0], [9.0, 18.0]]
    grouped = strategy.extended.update(v, lambda c: c.read_value() + 1.0)
    assert isinstance(grouped, D.PerReplica) and [t.device for t in grouped.values] == devices

    def step():  # in a replica context: a merge_call, then the same per-component update
        i = _replica_id()
        return strategy.extended.update(v, lambda c, d: c.assign_add(d), args=(ember.constant([i + 1.0, 0.0]),))

    out = strategy.run(step)
    assert out is v
    assert _lists(v.values) == [[10.0, 19.0], [10.0, 17.0]]


@needs_two_devices
def test_extended_reduce_to_and_batch_reduce_to(devices):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        v = ember.Variable([0.0, 0.0])
    x = D.PerReplica([ember.constant([1.0, 2.0]), ember.constant([3.0, 6.0])])
    to_one = strategy.extended.reduce_to(D.ReduceOp.SUM, x, devices[1])
    assert to_one.device == devices[1] and to_one.numpy().tolist() == [4.0, 8.0]
    to_var = strategy.extended.reduce_to("MEAN", x, v)  # a copy on each of v's devices
    assert isinstance(to_var, D.PerReplica) and [t.device for t in to_var.values] == devices
    assert _lists(to_var.values) == [[2.0, 4.0]] * 2
    plain = ember.constant([5.0])
    assert strategy.extended.reduce_to("MEAN", plain, devices[0]).numpy().tolist() == [5.0]
    with pytest.raises(ValueError, match="cannot be summed"):
        strategy.extended.reduce_to("SUM", plain, devices[0])
    both = strategy.extended.batch_reduce_to("MAX", [(x, devices[0]), (x, to_one)])
    assert _lists(both) == [[3.0, 6.0]] * 2 and both[1].device == devices[1]
    with pytest.raises(ValueError, match="destinations"):
        strategy.extended.reduce_to("SUM", x, 3)
    copies = strategy.extended.broadcast_to(ember.constant([7.0]), v)
    assert [t.device for t in copies.values] == devices and _lists(copies.values) == [[7.0]] * 2
    assert strategy.extended.broadcast_to(ember.constant([7.0]), devices[1]).device == devices[1]
    with pytest.raises(RuntimeError, match="cross-replica"):
        strategy.run(lambda: strategy.extended.reduce_to("SUM", x, devices[0]))


@needs_two_devices
def test_extended_value_container_colocation_and_call_for_each_replica(devices):
    strategy = D.MirroredStrategy(devices)
    assert strategy.extended.worker_devices == tuple(devices) == strategy.extended.parameter_devices
    with strategy.scope():
        v = ember.Variable([1.0])
        with strategy.extended.colocate_vars_with(v):
            u = ember.Variable([2.0])
    assert [c.device for c in u.values] == devices
    assert all(strategy.extended.value_container(c) is v for c in v.values)
    assert strategy.extended.value_container(v) is v
    plain = ember.Variable(1.0)
    assert strategy.extended.value_container(plain) is plain
    out = strategy.extended.call_for_each_replica(lambda a, b: a * b, args=(D.PerReplica([2.0, 3.0]),),
                                                  kwargs={"b": 10.0})
    assert out.values == (20.0, 30.0)
    with pytest.raises(RuntimeError, match="cross-replica"):
        strategy.run(lambda: strategy.extended.call_for_each_replica(lambda: 1))


# --- Synchronization and aggregation ---------------------------------------------
@needs_two_devices
@pytest.mark.parametrize("in_function", [False, True])
def test_on_write_aggregation_in_a_replica_context(devices, in_function):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        total = ember.Variable([0.0, 0.0], aggregation=VA.SUM)
        mean = ember.Variable([0.0, 0.0], aggregation=VA.MEAN)
        first = ember.Variable([0.0, 0.0], aggregation=VA.ONLY_FIRST_REPLICA)
        own = ember.Variable([0.0, 0.0])  # NONE: each replica writes its own component (Ember's rule)
    assert isinstance(total, D.MirroredVariable) and total.aggregation is VA.SUM
    assert total.synchronization is VS.ON_WRITE

    def replica_step(x):
        total.assign_add(x)
        mean.assign(x)
        first.assign_sub(x)
        own.assign_add(x)
        return total.read_value()

    step = ember.function(lambda x: strategy.run(replica_step, args=(x,))) if in_function else \
        (lambda x: strategy.run(replica_step, args=(x,)))
    x = D.PerReplica([ember.constant([1.0, 2.0]), ember.constant([3.0, 5.0])])
    out = step(x)
    assert _lists(out.values) == [[4.0, 7.0]] * 2  # every replica reads the written sum
    step(x)
    assert _lists(total.values) == [[8.0, 14.0]] * 2
    assert _lists(mean.values) == [[2.0, 3.5]] * 2
    assert _lists(first.values) == [[-2.0, -4.0]] * 2
    assert _lists(own.values) == [[2.0, 4.0], [6.0, 10.0]]


@needs_two_devices
def test_on_write_aggregation_errors(devices):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        count = ember.Variable(0, aggregation=VA.MEAN)
        total = ember.Variable(0.0, aggregation=VA.SUM)
    with pytest.raises(ValueError, match="aggregation MEAN"):
        strategy.run(lambda: count.assign_add(1))
    with pytest.raises(ValueError, match="cannot be summed"):  # one Python value for all replicas, as in TF
        strategy.run(lambda: total.assign_add(1.0))
    total.assign(5.0)  # cross-replica: every component, no aggregation
    assert _lists(total.values) == [5.0, 5.0]


@needs_two_devices
def test_sync_on_read_variables_aggregate_when_read(devices):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        total = ember.Variable([0.0, 0.0], synchronization=VS.ON_READ, aggregation=VA.SUM)
        mean = ember.Variable(0.0, synchronization=VS.ON_READ, aggregation=VA.MEAN)
        first = ember.Variable(0, synchronization=VS.ON_READ, aggregation=VA.ONLY_FIRST_REPLICA)
        none = ember.Variable(0.0, synchronization=VS.ON_READ)
    assert isinstance(total, D.SyncOnReadVariable) and not isinstance(total, D.MirroredVariable)
    assert not total.trainable and total.synchronization is VS.ON_READ
    assert [c.device for c in total.values] == devices

    def replica_step(x):
        i = _replica_id()
        total.assign_add(x)
        mean.assign_add(float(i + 1))
        first.assign_add(10 * (i + 1))
        return total.read_value()  # its own component, no communication

    x = D.PerReplica([ember.constant([1.0, 2.0]), ember.constant([3.0, 5.0])])
    out = strategy.run(replica_step, args=(x,))
    assert _lists(out.values) == [[1.0, 2.0], [3.0, 5.0]]
    strategy.run(replica_step, args=(x,))
    assert _lists(total.values) == [[2.0, 4.0], [6.0, 10.0]]
    np.testing.assert_allclose(total.numpy(), [8.0, 14.0])  # cross-replica: the SUM
    np.testing.assert_allclose(strategy.extended.read_var(total).numpy(), [8.0, 14.0])
    np.testing.assert_allclose((total + 0.0).numpy(), [8.0, 14.0])  # ops read the aggregate too
    assert float(mean) == pytest.approx(3.0)  # components 2 and 4
    assert int(first) == 20 and _lists(first.values) == [20, 40]
    with pytest.raises(ValueError, match="aggregation NONE"):
        none.numpy()

    total.assign([4.0, 6.0])  # each component gets a share, so that the SUM reads it back
    assert _lists(total.values) == [[2.0, 3.0]] * 2 and total.numpy().tolist() == [4.0, 6.0]
    total.assign_add([1.0, 3.0])  # each component takes half, so that the sum moves by delta (TF refuses)
    assert _lists(total.values) == [[2.5, 4.5]] * 2 and total.numpy().tolist() == [5.0, 9.0]
    with strategy.scope():
        count = ember.Variable(0, synchronization=VS.ON_READ, aggregation=VA.SUM)
    with pytest.raises(ValueError, match="assign_add on SyncOnReadVariable"):
        count.assign_add(1)  # an integer cannot be shared out: refused, as in TensorFlow
    mean.assign_add(1.0)  # MEAN: every component moves
    assert float(mean) == pytest.approx(4.0)
    mean.assign(0.0)  # the metrics' reset_state
    assert _lists(mean.values) == [0.0, 0.0]


@needs_two_devices
def test_sync_on_read_inside_a_function_and_a_checkpoint(devices, tmp_path):
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        seen = ember.Variable(0.0, synchronization=VS.ON_READ, aggregation=VA.SUM)

    @ember.function
    def step(x):
        strategy.run(lambda y: seen.assign_add(ember.reduce_sum(y)), args=(x,))
        return seen.read_value()  # cross-replica in the trace: the sum

    x = D.PerReplica([ember.constant([1.0, 2.0]), ember.constant([3.0])])
    assert float(step(x)) == 6.0
    assert float(step(x)) == 12.0
    assert _lists(seen.values) == [6.0, 6.0]
    checkpoint = ember.train.Checkpoint(seen=seen)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    seen.assign(0.0)
    checkpoint.restore(path)
    assert float(seen) == 12.0 and _lists(seen.values) == [6.0, 6.0]


@needs_two_devices
def test_keras_metrics_updated_inside_run_count_every_replica(devices):
    """TensorFlow's custom-loop tutorial: metrics made in the scope, updated inside strategy.run,
    read outside it."""
    strategy = D.MirroredStrategy(devices)
    with strategy.scope():
        accuracy = ember.keras.metrics.SparseCategoricalAccuracy()
        mean = ember.keras.metrics.Mean()
    assert all(isinstance(v, D.SyncOnReadVariable) for v in accuracy.variables + mean.variables)
    labels = np.array([0, 1, 1, 0, 1, 1])
    logits = np.eye(2, dtype=np.float32)[[0, 1, 0, 0, 0, 1]]  # 4 of 6 right: 2 of 2, then 2 of 4
    losses = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], np.float32)

    def step(y, p, loss):
        accuracy.update_state(y, p)
        mean.update_state(loss)

    pieces = [D.PerReplica([ember.constant(a[:2]), ember.constant(a[2:])]) for a in (labels, logits, losses)]
    strategy.run(step, args=tuple(pieces))
    assert float(accuracy.result()) == pytest.approx(4 / 6)
    assert float(mean.result()) == pytest.approx(losses.mean())
    accuracy.update_state(labels[:2], logits[:2])  # the cross-replica context (Keras fit does this)
    assert float(accuracy.result()) == pytest.approx(6 / 8)
    accuracy.reset_state()
    assert float(accuracy.result()) == 0.0 and _lists(accuracy.variables[0].values) == [0.0, 0.0]


# --- Values from a function ---------------------------------------------------------
@needs_two_devices
def test_distribute_values_from_function(devices):
    strategy = D.MirroredStrategy(devices)
    contexts = []

    def value_fn(ctx):
        contexts.append((ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync))
        return {"x": ember.constant([float(ctx.replica_id_in_sync_group)] * 2), "k": 7}

    values = strategy.experimental_distribute_values_from_function(value_fn)
    assert contexts == [(0, 2), (1, 2)]
    assert isinstance(values["x"], D.PerReplica) and [t.device for t in values["x"].values] == devices
    assert values["k"].values == (7, 7)  # every leaf is per replica, as in TensorFlow
    out = strategy.run(lambda v: v["x"] + v["k"], args=(values,))
    assert _lists(out.values) == [[7.0, 7.0], [8.0, 8.0]]
    assert repr(D.ValueContext(1, 2)) == "ValueContext(replica_id_in_sync_group=1, num_replicas_in_sync=2)"


# --- Uneven batches ----------------------------------------------------------------
@needs_two_devices
def test_uneven_final_batches_are_split_in_order(devices):
    strategy = D.MirroredStrategy(devices)
    features = np.arange(14, dtype=np.float32).reshape(7, 2)
    ds = ember.data.Dataset.from_tensor_slices({"x": features, "i": np.arange(7)}).batch(4)
    batches = list(strategy.experimental_distribute_dataset(ds))
    assert len(batches) == 2
    assert [v.numpy().tolist() for v in batches[0]["i"].values] == [[0, 1], [2, 3]]
    assert [v.numpy().tolist() for v in batches[1]["i"].values] == [[4, 5], [6]]  # the tail: 2 and 1
    np.testing.assert_array_equal(batches[1]["x"].values[1].numpy(), features[6:7])
    assert [t.device for t in batches[1]["x"].values] == devices

    five = list(strategy.experimental_distribute_dataset(ember.data.Dataset.range(5).batch(4)))
    last = five[1].values
    assert last[0].numpy().tolist() == [4] and last[1].shape == (0,)  # replica 1: an empty batch
    # The empty batch runs like any other, and a MEAN over axis 0 counts the real rows only.
    sums = strategy.run(lambda b: ember.reduce_sum(ember.cast(b, "float32")), args=(five[1],))
    assert float(strategy.reduce("SUM", sums, axis=None)) == 4.0
    assert float(strategy.reduce("MEAN", five[1], axis=0)) == 4.0

    odd = list(strategy.experimental_distribute_dataset(ember.data.Dataset.range(6).batch(3)))
    assert [[v.numpy().tolist() for v in b.values] for b in odd] == [[[0, 1], [2]], [[3, 4], [5]]]


# --- Rerunning the two-device cases ------------------------------------------------
@pytest.mark.skipif(TWO_DEVICES is not None, reason="the two-device tests already ran in this process")
def test_two_device_cases_in_a_subprocess():
    assert rerun_with_two_cpus(__file__) >= 18

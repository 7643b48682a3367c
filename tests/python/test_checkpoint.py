# Tests ember.train.Checkpoint and CheckpointManager against tf.train's documented behaviour.

import json
import os

import numpy as np
import pytest

import ember


class Lazy(ember.Module):
    """A layer that makes its weights on first call, like a Keras Dense layer."""

    def __init__(self, units=2):
        super().__init__()
        self.units = units
        self.w = None

    def __call__(self, x):
        if self.w is None:
            self.w = ember.Variable(ember.random.normal([x.shape[-1], self.units]), name="w")
        return ember.matmul(x, self.w)


class Net(ember.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Lazy(), Lazy(1)]
        self.scale = {"s": ember.Variable(1.0)}

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x * self.scale["s"]


def _train_step(net, opt, x):
    with ember.GradientTape() as tape:
        loss = ember.reduce_sum(net(x))
    opt.apply_gradients(zip(tape.gradient(loss, net.trainable_variables), net.trainable_variables))


def _trained(tmp_path):
    net, opt = Net(), ember.optimizers.Adam(0.05)
    x = ember.ones([4, 3])
    for _ in range(2):
        _train_step(net, opt, x)
    return net, opt, x


def test_save_restore_roundtrip_with_optimizer_slots(tmp_path):
    net, opt, x = _trained(tmp_path)
    step = ember.Variable(np.int64(41))
    ckpt = ember.train.Checkpoint(model=net, optimizer=opt, step=step)
    path = ckpt.save(os.path.join(tmp_path, "ckpt"))
    assert path == os.path.join(tmp_path, "ckpt-1")
    assert ckpt.save(os.path.join(tmp_path, "ckpt")) == os.path.join(tmp_path, "ckpt-2")
    assert ember.train.latest_checkpoint(tmp_path) == os.path.join(tmp_path, "ckpt-2")

    net2, opt2, step2 = Net(), ember.optimizers.Adam(0.05), ember.Variable(np.int64(0))
    net2(x)  # weights exist before the restore
    status = ember.train.Checkpoint(model=net2, optimizer=opt2, step=step2).restore(path)
    status.assert_consumed()
    assert int(step2.numpy()) == 41
    assert int(opt2.iterations.numpy()) == 2
    for a, b in zip(net.variables, net2.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for v, v2 in zip(net.trainable_variables, net2.trainable_variables):
        for slot in ("m", "v"):
            np.testing.assert_array_equal(opt.get_slot(v, slot).numpy(), opt2.get_slot(v2, slot).numpy())
    # Training goes on identically from the restored state.
    _train_step(net, opt, x)
    _train_step(net2, opt2, x)
    np.testing.assert_allclose(net2(x).numpy(), net(x).numpy(), rtol=1e-6)


def test_deferred_restore_of_variables_made_later(tmp_path):
    net, opt, x = _trained(tmp_path)
    path = ember.train.Checkpoint(model=net, optimizer=opt).write(os.path.join(tmp_path, "weights"))
    net2, opt2 = Net(), ember.optimizers.Adam(0.05)
    status = ember.train.Checkpoint(model=net2, optimizer=opt2).read(path)
    with pytest.raises(AssertionError, match="not matched"):
        status.assert_consumed()  # the lazy layers have no weights yet
    np.testing.assert_allclose(net2(x).numpy(), net(x).numpy(), rtol=1e-6)  # the first call makes and restores them
    np.testing.assert_array_equal(opt2.get_slot(net2.layers[0].w, "m").numpy(),
                                  opt.get_slot(net.layers[0].w, "m").numpy())
    status.assert_consumed()


def test_assert_consumed_reports_variables_missing_from_checkpoint(tmp_path):
    path = ember.train.Checkpoint(a=ember.Variable(1.0)).write(os.path.join(tmp_path, "c"))
    status = ember.train.Checkpoint(a=ember.Variable(0.0), b=ember.Variable(2.0)).read(path)
    with pytest.raises(AssertionError, match="'b'"):
        status.assert_consumed()
    status.expect_partial()


def test_write_does_not_count_or_record(tmp_path):
    ckpt = ember.train.Checkpoint(v=ember.Variable([1.0, 2.0]))
    assert ckpt.write(os.path.join(tmp_path, "w")) == os.path.join(tmp_path, "w")
    assert int(ckpt.save_counter.numpy()) == 0
    assert ember.train.latest_checkpoint(tmp_path) is None


def test_restore_none_and_bad_inputs(tmp_path):
    v = ember.Variable(3.0)
    ckpt = ember.train.Checkpoint(v=v)
    ckpt.restore(None).expect_partial()
    assert float(v.numpy()) == 3.0
    with pytest.raises(FileNotFoundError, match="not found"):
        ckpt.restore(os.path.join(tmp_path, "nothing"))
    with pytest.raises(ValueError, match="must be a Variable, Module"):
        ember.train.Checkpoint(x=3)
    path = ckpt.write(os.path.join(tmp_path, "v"))
    with pytest.raises(ValueError, match="shape"):
        ember.train.Checkpoint(v=ember.Variable([1.0, 2.0])).read(path)


def test_corrupt_file_is_refused(tmp_path):
    path = ember.train.Checkpoint(v=ember.Variable(np.arange(100, dtype=np.float32))).write(
        os.path.join(tmp_path, "v"))
    with open(path + ".ckpt", "r+b") as f:
        f.seek(-200, os.SEEK_END)  # inside the 400 data bytes
        f.write(b"\xff" * 8)
    with pytest.raises(ValueError, match="corrupt"):
        ember.train.Checkpoint(v=ember.Variable(np.zeros(100, np.float32))).read(path)


def test_dtypes_roundtrip(tmp_path):
    values = {"f16": np.array([1.5, -2], np.float16), "i8": np.array([-3, 4], np.int8),
              "b": np.array([True, False]), "c": np.array([1 + 2j], np.complex64), "u8": np.array(7, np.uint8)}
    variables = {k: ember.Variable(v) for k, v in values.items()}
    bf = ember.Variable(ember.cast(ember.constant([1.5, 2.0]), ember.bfloat16))
    path = ember.train.Checkpoint(vars=variables, bf=bf).write(os.path.join(tmp_path, "d"))
    fresh = {k: ember.Variable(np.zeros_like(v)) for k, v in values.items()}
    bf2 = ember.Variable(ember.cast(ember.constant([0.0, 0.0]), ember.bfloat16))
    ember.train.Checkpoint(vars=fresh, bf=bf2).read(path).assert_consumed()
    for k, v in values.items():
        np.testing.assert_array_equal(fresh[k].numpy(), v)
    np.testing.assert_array_equal(bf2.numpy().astype(np.float32), [1.5, 2.0])


def test_manager_keeps_max_to_keep_and_resumes(tmp_path):
    v = ember.Variable(0.0)
    ckpt = ember.train.Checkpoint(v=v)
    manager = ember.train.CheckpointManager(ckpt, tmp_path, max_to_keep=2)
    assert manager.latest_checkpoint is None
    for i in range(1, 5):
        v.assign(float(i))
        assert manager.save() == os.path.join(tmp_path, f"ckpt-{i}")
    assert manager.checkpoints == [os.path.join(tmp_path, "ckpt-3"), os.path.join(tmp_path, "ckpt-4")]
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".ckpt")) == ["ckpt-3.ckpt", "ckpt-4.ckpt"]
    assert ember.train.latest_checkpoint(tmp_path) == manager.latest_checkpoint == os.path.join(tmp_path, "ckpt-4")
    with open(os.path.join(tmp_path, "checkpoint")) as f:
        assert json.load(f)["all"] == ["ckpt-3", "ckpt-4"]

    # A restarted program: a new manager sees the old checkpoints and goes on numbering.
    v2 = ember.Variable(0.0)
    ckpt2 = ember.train.Checkpoint(v=v2)
    manager2 = ember.train.CheckpointManager(ckpt2, tmp_path, max_to_keep=2)
    assert manager2.restore_or_initialize() == os.path.join(tmp_path, "ckpt-4")
    assert float(v2.numpy()) == 4.0 and int(ckpt2.save_counter.numpy()) == 4
    assert manager2.save() == os.path.join(tmp_path, "ckpt-5")
    assert manager2.checkpoints == [os.path.join(tmp_path, "ckpt-4"), os.path.join(tmp_path, "ckpt-5")]


def test_manager_checkpoint_number_and_interval(tmp_path):
    step = ember.Variable(np.int64(0))
    ckpt = ember.train.Checkpoint(step=step)
    manager = ember.train.CheckpointManager(ckpt, tmp_path, max_to_keep=None, step_counter=step,
                                            checkpoint_interval=10)
    assert manager.save() == os.path.join(tmp_path, "ckpt-1")
    step.assign(5)
    assert manager.save() is None  # fewer than 10 steps since the last save
    step.assign(10)
    assert manager.save(checkpoint_number=10) == os.path.join(tmp_path, "ckpt-10")
    with pytest.raises(ValueError, match="max_to_keep"):
        ember.train.CheckpointManager(ckpt, tmp_path, max_to_keep=0)


def test_init_fn_runs_without_checkpoint(tmp_path):
    called = []
    manager = ember.train.CheckpointManager(ember.train.Checkpoint(v=ember.Variable(1.0)), tmp_path, 3,
                                            init_fn=lambda: called.append(True))
    assert manager.restore_or_initialize() is None
    assert called == [True]


def test_deferred_restore_from_inside_a_traced_call(tmp_path):
    # The variable is made (outside the trace, via init_scope) by a method that ember.function traces;
    # the attribute set that triggers the deferred restore happens while tracing.
    class Traced(ember.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        @ember.function
        def __call__(self, x):
            if self.w is None:
                with ember.init_scope():
                    w = ember.Variable(ember.zeros([2]))
                self.w = w
            return x * self.w

    saved = Traced()
    saved(ember.ones([2]))
    saved.w.assign([3.0, 4.0])
    path = ember.train.Checkpoint(m=saved).write(os.path.join(tmp_path, "t"))
    fresh = Traced()
    status = ember.train.Checkpoint(m=fresh).read(path)
    np.testing.assert_array_equal(fresh(ember.ones([2])).numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(fresh.w.numpy(), [3.0, 4.0])
    status.assert_consumed()
    # The restore ran eagerly, not as part of the graph: later calls do not assign it again.
    fresh.w.assign([5.0, 6.0])
    np.testing.assert_array_equal(fresh(ember.ones([2])).numpy(), [5.0, 6.0])


def test_only_the_chief_of_a_multi_worker_job_writes(tmp_path):
    """Note [Checkpoints from one worker]: a non-chief worker's saves write no files and return the
    chief's paths (tests/python/test_distribute_multiworker.py runs the real thing)."""
    from ember.train import _chief
    v = ember.Variable([1.0, 2.0])
    checkpoint = ember.train.Checkpoint(v=v)
    manager = ember.train.CheckpointManager(checkpoint, str(tmp_path / "managed"), max_to_keep=1)
    _chief.set_chief(False)
    try:
        assert checkpoint.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-1")
        assert checkpoint.write(str(tmp_path / "written")) == str(tmp_path / "written")
        assert manager.save() == str(tmp_path / "managed" / "ckpt-2")
        assert manager.latest_checkpoint == str(tmp_path / "managed" / "ckpt-2")
        assert sorted(os.listdir(tmp_path)) == []
    finally:
        _chief._chief.clear()
    assert checkpoint.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-3")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-3.ckpt"]

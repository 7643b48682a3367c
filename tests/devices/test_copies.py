"""Copies between the CPU and simulated devices: every dtype, empty and 0-d
tensors, numpy() of device tensors, constants under a device scope,
identity moves, the device policy and the placement log."""

import subprocess
import sys

import numpy as np
import pytest

import ember
from sim_markers import needs_two_sims

pytestmark = needs_two_sims

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64"]


def _value(dtype, shape):
    rng = np.random.default_rng(0)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype == "bfloat16":
        import ml_dtypes

        return rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    if dtype == "complex64":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
    return (rng.standard_normal(shape) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (7,), (4, 5)])
def test_round_trip_through_two_devices(mode, dtype, shape):
    value = _value(dtype, shape)
    with ember.device("sim:0"):
        a = ember.constant(value)
    assert a.device == "sim:0"
    with ember.device("sim:1"):
        b = ember.identity(a)
    assert b.device == "sim:1"
    with ember.device("cpu:0"):
        c = ember.identity(b)
    assert c.device == "cpu:0"
    for t in (a, b, c):
        out = t.numpy()
        assert out.dtype == value.dtype and out.shape == value.shape
        np.testing.assert_array_equal(out, value)


def test_device_tensor_numpy_is_a_host_copy():
    with ember.device("sim:0"):
        t = ember.constant(np.arange(6, dtype=np.float32))
    first = t.numpy()
    assert not first.flags.writeable
    np.testing.assert_array_equal(first, np.arange(6, dtype=np.float32))
    np.testing.assert_array_equal(np.array(t), first)


def test_ops_follow_their_inputs_to_the_device():
    with ember.device("sim:0"):
        x = ember.constant([1.0, 2.0, 3.0])
    y = x * 2.0 + 1.0  # Python scalars are copied to sim:0
    assert y.device == "sim:0"
    z = 1.0 + x
    assert z.device == "sim:0"
    np.testing.assert_allclose(y.numpy(), [3.0, 5.0, 7.0])


def test_mixed_inputs_are_copied_to_the_op_device(mode):
    host = ember.constant(np.ones(4, np.float32))
    with ember.device("sim:1"):
        dev = ember.constant(np.full(4, 2.0, np.float32))
    out = ember.add(host, dev)
    assert out.device == "sim:1"
    np.testing.assert_array_equal(out.numpy(), np.full(4, 3.0, np.float32))


def test_explicit_policy_refuses_implicit_copies():
    with ember.device("sim:0"):
        x = ember.constant([1.0, 2.0])
    host = ember.constant([1.0, 2.0])
    ember.config.set_device_policy("explicit")
    try:
        with pytest.raises(ember.errors.InvalidArgumentError, match="add: input 0 is on cpu:0 .* sim:0"):
            ember.add(host, x)
        # Explicit moves still work.
        with ember.device("sim:0"):
            moved = ember.identity(host)
        np.testing.assert_array_equal(ember.add(moved, x).numpy(), [2.0, 4.0])
    finally:
        ember.config.set_device_policy(None)
    assert ember.config.get_device_policy() == "silent"
    with pytest.raises(ember.errors.InvalidArgumentError):
        ember.config.set_device_policy("sometimes")


def test_placement_log_shows_implicit_copies():
    code = (
        "import ember\n"
        "ember.config.set_log_device_placement(True)\n"
        "with ember.device('sim:0'):\n"
        "    x = ember.constant([1.0])\n"
        "h = ember.constant([2.0])\n"
        "print((ember.add(h, x)).numpy())\n"
    )
    env = dict(__import__("os").environ)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "ember placement: add input 0 copied cpu:0 -> sim:0" in proc.stderr
    assert "[3.]" in proc.stdout


def test_unpinned_ops_go_to_the_accelerator():
    # Note [Placement rules], rule 2, as TensorFlow places ops: the device of
    # highest priority with a kernel, even when the inputs are on the CPU.
    h = ember.constant(np.arange(1, 5, dtype=np.float32))
    assert h.device == "cpu:0"
    assert ember.exp(h).device == "sim:0"
    np.testing.assert_allclose(ember.exp(h).numpy(), np.exp(np.arange(1, 5, dtype=np.float32)), rtol=1e-6)
    with ember.device("cpu:0"):
        assert ember.exp(h).device == "cpu:0"
    with ember.device("sim:1"):
        s1 = ember.identity(h)
    assert ember.exp(s1).device == "sim:1"  # among devices of equal priority, the input's
    assert (s1 + ember.exp(h)).device == "sim:1"  # the first input's on a tie
    n = ember.shape(s1)  # host-memory outputs and shape arithmetic stay on the host
    assert n.device == "cpu:0"
    assert (n * 2).device == "cpu:0"


def test_dataset_elements_are_made_on_the_cpu():
    # Note [Input pipelines on the CPU]: as tf.data, whatever placement would pick.
    ds = ember.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float32)).map(ember.exp).batch(2)
    for pipeline in (ds, ds.prefetch(1)):
        batches = list(pipeline)
        assert [b.device for b in batches] == ["cpu:0"] * 3
        np.testing.assert_allclose(np.concatenate([b.numpy() for b in batches]),
                                   np.exp(np.arange(6, dtype=np.float32)), rtol=1e-6)
    assert ember.exp(batches[0]).device == "sim:0"  # the consumer's ops go to the accelerator
    with ember.device("sim:1"):
        inside = ember.data.Dataset.range(2).map(lambda x: ember.identity(x))
    assert [x.device for x in inside] == ["cpu:0", "cpu:0"]


def test_device_names_follow_tensorflow():
    assert ember.device("/device:SIM:1").__enter__ is not None
    with ember.device("/SIM:1"):
        t = ember.constant([1])
    assert t.device == "sim:1"
    kinds = {d.device_type for d in ember.config.list_physical_devices()}
    assert kinds == {"CPU", "SIM"}
    sims = ember.config.list_logical_devices("sim")
    assert [d.name for d in sims] == ["/device:SIM:0", "/device:SIM:1"]
    assert ember.config.list_physical_devices("GPU") == []

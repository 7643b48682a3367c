"""ember.Variable: reads, assignments, ordering with async ops, errors, threads."""

import threading

import numpy as np
import pytest

import ember


def test_variable_is_usable_as_a_tensor(mode):
    v = ember.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    assert v.shape == (2, 2) and v.dtype == ember.float32 and v.device == "cpu:0"
    np.testing.assert_array_equal((v + 1.0).numpy(), [[2, 3], [4, 5]])
    np.testing.assert_array_equal(ember.matmul(v, v).numpy(), [[7, 10], [15, 22]])
    np.testing.assert_array_equal(np.asarray(v), [[1, 2], [3, 4]])
    np.testing.assert_array_equal((2.0 * v).numpy(), [[2, 4], [6, 8]])
    assert "ember.Variable 'w'" in repr(v)
    assert float(ember.Variable(3.5)) == 3.5


def test_assign_and_updates(mode):
    v = ember.Variable(np.zeros(3, np.float32))
    before = v.read_value()
    assert v.assign([1.0, 2.0, 3.0]) is v
    v.assign_add(10.0)
    v.assign_sub(np.ones(3, np.float32))
    np.testing.assert_array_equal(v.numpy(), [10, 11, 12])
    np.testing.assert_array_equal(before.numpy(), [0, 0, 0])  # an earlier read keeps its value


def test_ops_issued_before_an_assign_see_the_old_value(mode):
    v = ember.Variable(np.arange(4, dtype=np.float64))
    old_sum = ember.reduce_sum(v)
    v.assign(np.full(4, 10.0))
    new_sum = ember.reduce_sum(v)
    assert float(old_sum) == 6.0
    assert float(new_sum) == 40.0


def test_assign_checks_shape_and_dtype():
    v = ember.Variable(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match=r"assign: value of shape \(3,\)"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="float64"):
        v.assign(ember.constant(np.zeros((2, 2))))
    with pytest.raises(ValueError, match="assign_add"):
        v.assign_add(np.ones((3, 2, 2), np.float32))
    np.testing.assert_array_equal(v.numpy(), np.zeros((2, 2)))  # unchanged after the errors


def test_variable_values_are_never_donated(mode):
    v = ember.Variable(np.ones(1000, np.float32))
    ember.exp(v)  # a variable argument must not lend its buffer to the output
    np.testing.assert_array_equal(v.numpy(), np.ones(1000))


def test_ops_on_variables_are_placed_on_the_variable_device(capfd):
    v = ember.Variable([1.0])
    ember.config.set_log_device_placement(True)
    try:
        with ember.device("cpu:0"):
            (v * 2.0).numpy()
    finally:
        ember.config.set_log_device_placement(False)
    assert "multiply -> cpu:0 (variable device)" in capfd.readouterr().err


def test_concurrent_assign_add_is_atomic():
    v = ember.Variable(0, dtype=ember.int64)

    def work():
        for _ in range(200):
            v.assign_add(1)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(v) == 800


def test_convert_to_tensor_reads_the_variable():
    v = ember.Variable([1, 2, 3])
    t = ember.convert_to_tensor(v)
    assert isinstance(t, ember.Tensor) and t.dtype == ember.int32
    np.testing.assert_array_equal(t.numpy(), [1, 2, 3])

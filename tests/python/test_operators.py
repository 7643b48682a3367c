"""Tensor operators implemented as C slots (Note [Operator slots]): each
equals its op, in both operand orders, with Python and NumPy operands."""

import operator

import numpy as np
import pytest

import ember

CASES = [
    (operator.add, ember.add), (operator.sub, ember.subtract), (operator.mul, ember.multiply),
    (operator.truediv, ember.divide), (operator.floordiv, ember.math.floordiv), (operator.mod, ember.math.floormod),
    (operator.pow, ember.pow),
]


@pytest.mark.parametrize("py_op,op", CASES, ids=[c[0].__name__ for c in CASES])
def test_binary_operators_equal_their_ops(py_op, op):
    x = ember.constant([[1.5, -2.0], [3.0, 4.25]])
    y = ember.constant([2.0, 0.5])
    for a, b in [(x, y), (x, 3.0), (2.0, x), (x, np.float32(1.5)), (x, np.array([2.0, 4.0], np.float32))]:
        got = py_op(a, b)
        assert isinstance(got, ember.Tensor)
        np.testing.assert_array_equal(got.numpy(), op(a, b).numpy())


def test_matmul_unary_and_pow_operators():
    x = ember.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal((x @ x).numpy(), ember.matmul(x, x).numpy())
    np.testing.assert_array_equal(([[1.0, 0.0], [0.0, 1.0]] @ x).numpy(), x.numpy())
    np.testing.assert_array_equal((-x).numpy(), -x.numpy())
    np.testing.assert_array_equal(abs(-x).numpy(), x.numpy())
    with pytest.raises(TypeError, match="three-argument pow"):
        pow(x, 2, 5)


def test_errors_name_the_op():
    x = ember.constant([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="^add: "):
        x + ember.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="^add: "):
        x + "a"


def test_operands_held_by_c_callers_are_not_overwritten():
    # sum() holds the list's tensors by borrowed references (one reference
    # each): the slot must never reuse their buffers for its result.
    items = [ember.constant(np.full(1000, float(i), np.float32)) for i in range(4)]
    total = sum(items)
    np.testing.assert_array_equal(total.numpy(), np.full(1000, 6.0, np.float32))
    for i, t in enumerate(items):
        np.testing.assert_array_equal(t.numpy(), np.full(1000, float(i), np.float32))


def test_variables_keep_their_operators():
    v = ember.Variable([1.0, 2.0])
    np.testing.assert_array_equal((v * v + 1.0).numpy(), [2.0, 5.0])
    np.testing.assert_array_equal((3.0 - v).numpy(), [2.0, 1.0])

"""Python control flow on a traced tensor raises OperatorNotAllowedInGraphError
at the user's line, naming the op to use instead (ember/_graph_checks.py)."""

import inspect

import numpy as np
import pytest

import ember
from ember.errors import OperatorNotAllowedInGraphError


def line_of(marker, fn):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, text in enumerate(lines) if marker in text)


def test_if_on_a_symbolic_tensor_points_to_cond_and_the_line():
    def body(x):
        if ember.reduce_sum(x) > 0:  # the if
            return x
        return -x

    with pytest.raises(OperatorNotAllowedInGraphError) as info:
        ember.function(body, autograph=False)(ember.constant([1.0, 2.0]))
    message = str(info.value)
    assert f"{__file__}:{line_of('# the if', body)}:" in message
    assert "ember.cond" in message and "ember.while_loop" in message
    assert isinstance(info.value, TypeError)  # as tf.errors.OperatorNotAllowedInGraphError


def test_numbers_and_asserts_on_symbolic_tensors():
    @ember.function
    def to_float(x):
        return float(x) * 2

    with pytest.raises(OperatorNotAllowedInGraphError, match="Python number"):
        to_float(ember.constant(1.0))

    @ember.function
    def asserting(x):
        assert x > 0
        return x

    with pytest.raises(OperatorNotAllowedInGraphError, match="assert"):
        asserting(ember.constant(1.0))


def test_iterating_needs_a_known_first_dimension():
    @ember.function(input_signature=[ember.TensorSpec((None, 2), ember.float32)], autograph=False)
    def rows_sum(x):
        total = ember.zeros([2])
        for row in x:
            total = total + row
        return total

    with pytest.raises(OperatorNotAllowedInGraphError, match="while_loop"):
        rows_sum(ember.constant(np.ones((3, 2), np.float32)))
    # AutoGraph (on by default) turns the same loop into a while_loop over the rows.
    converted = ember.function(rows_sum.python_function, input_signature=[ember.TensorSpec((None, 2), ember.float32)])
    np.testing.assert_array_equal(converted(ember.constant(np.ones((3, 2), np.float32))).numpy(), [3.0, 3.0])

    @ember.function
    def known_rows(x):  # a known first dim unrolls
        total = ember.zeros([2])
        for row in x:
            total = total + row
        return total

    np.testing.assert_array_equal(known_rows(ember.constant(np.ones((3, 2), np.float32))).numpy(), [3.0, 3.0])


def test_eager_tensors_still_convert():
    assert bool(ember.constant(True)) and float(ember.constant(2.5)) == 2.5
    assert [1, 2, 3][ember.constant(1)] == 2

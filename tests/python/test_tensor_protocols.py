"""Tensor and the Python/NumPy protocols: __array__ (NumPy 2 copy=), NumPy
operands deferring to Ember's operators, and the scalar protocols as in
tf.Tensor (__bool__, __index__, __int__, __float__, __complex__, __len__,
__iter__)."""

import operator

import numpy as np
import pytest

import ember


@pytest.fixture(autouse=True)
def _on_the_cpu():
    with ember.device("cpu:0"):
        yield


def _ptr(array):
    return array.__array_interface__["data"][0]


def test_asarray_shares_a_read_only_view():
    t = ember.constant([1.0, 2.0])
    a = np.asarray(t)
    assert _ptr(a) == _ptr(t.numpy()) and not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 5.0
    shared = np.asarray(t, copy=False)
    assert _ptr(shared) == _ptr(a)


def test_array_copies_into_a_writable_array():
    t = ember.constant([1.0, 2.0])
    a = np.array(t)
    assert _ptr(a) != _ptr(t.numpy()) and a.flags.writeable
    a[0] = 9.0
    assert t.numpy().tolist() == [1.0, 2.0]
    b = t.__array__(copy=True)
    assert _ptr(b) != _ptr(t.numpy()) and b.flags.writeable


def test_a_dtype_change_is_a_copy():
    t = ember.constant([1.5, 2.5])
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(t, dtype=np.float64, copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        t.__array__(np.int32, copy=False)
    assert t.__array__(np.float32, copy=False).dtype == np.float32  # same dtype: no copy needed


_BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
           operator.pow, operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


@pytest.mark.parametrize("op", _BINARY, ids=lambda op: op.__name__)
def test_numpy_operands_defer_to_ember(op):
    a = np.array([1.0, 2.0, 4.0], np.float32)
    t = ember.constant([2.0, 2.0, 2.0])
    for result, expected in ((op(a, t), op(a, t.numpy())), (op(np.float32(3.0), t), op(np.float32(3.0), t.numpy()))):
        assert isinstance(result, ember.Tensor), type(result)
        np.testing.assert_allclose(result.numpy(), expected)


def test_numpy_operands_defer_for_bitwise_and_matmul():
    a = np.array([[1, 2], [3, 4]], np.int32)
    t = ember.constant([[1, 0], [0, 1]])
    assert isinstance(a @ t, ember.Tensor) and (a @ t).numpy().tolist() == [[1, 2], [3, 4]]
    flags, mask = np.array([True, False, True]), ember.constant([True, True, False])
    for op in (operator.and_, operator.or_, operator.xor):  # logical on bool tensors, as in TensorFlow
        result = op(flags, mask)
        assert isinstance(result, ember.Tensor)
        assert result.numpy().tolist() == op(flags, mask.numpy()).tolist()


def test_explicit_numpy_calls_compute_in_numpy():
    # Like tf.Tensor and jax.Array: an explicit ufunc is NumPy's own
    # computation on the converted value. Augmented assignment is an
    # operator: NumPy gives way and `a` is rebound to an Ember tensor.
    t = ember.constant([1.0, 4.0])
    assert isinstance(np.sqrt(t), np.ndarray) and np.sqrt(t).tolist() == [1.0, 2.0]
    assert isinstance(np.add(np.ones(2, np.float32), t), np.ndarray)
    a = np.zeros(2, np.float32)
    a += t
    assert isinstance(a, ember.Tensor) and a.numpy().tolist() == [1.0, 4.0]
    b = np.zeros(2, np.float32)
    np.add(b, t, out=b)  # NumPy's in-place update, spelled out
    assert b.tolist() == [1.0, 4.0]


def test_bool():
    assert bool(ember.constant(3)) is True
    assert bool(ember.constant([0.0])) is False
    with pytest.raises(ValueError, match="truth value of an array with more than one element is ambiguous"):
        bool(ember.constant([1, 2]))
    with pytest.raises(ValueError, match="empty"):
        bool(ember.zeros([0]))


def test_index():
    assert [10, 20, 30][ember.constant(1)] == 20
    assert [10, 20, 30][ember.constant(2, dtype=ember.int64)] == 30
    assert operator.index(ember.constant(7, dtype=ember.uint8)) == 7
    for bad in (ember.constant([1]), ember.constant(1.0), ember.constant(True)):
        with pytest.raises(TypeError, match="integer scalar"):
            operator.index(bad)


def test_int_float_complex():
    assert int(ember.constant(3)) == 3 and int(ember.constant(2.9)) == 2
    assert float(ember.constant(2)) == 2.0 and float(ember.constant([1.5])) == 1.5
    assert complex(ember.constant(1 + 2j)) == 1 + 2j
    assert complex(ember.constant(2.0)) == 2 + 0j
    for fn in (int, float, complex):
        with pytest.raises(ValueError, match=f"converted to {fn.__name__}"):
            fn(ember.constant([1, 2]))


def test_len_and_iter():
    t = ember.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    assert [row.numpy().tolist() for row in t] == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError):
        len(ember.constant(1))
    with pytest.raises(TypeError):
        iter(ember.constant(1))
    assert list(ember.zeros([0, 2])) == []

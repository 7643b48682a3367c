"""Tensor.__getitem__ and __iter__ against NumPy indexing (python/ember/_indexing.py)."""

import numpy as np
import pytest

import ember

X = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)

# Index expressions, written as functions of NumPy's index helper so the same
# key indexes the array and the tensor.
KEYS = {
    "int": 1,
    "negative_int": -1,
    "ints": (1, 2),
    "slice": slice(1, None),
    "slice_step": (slice(None), slice(None, None, 2)),
    "negative_step": (slice(None), slice(None, None, -1), slice(3, 0, -2)),
    "clamped_slice": (slice(-10, 10), slice(1, 100)),
    "empty_slice": slice(2, 1),
    "ellipsis": (Ellipsis, 1),
    "ellipsis_middle": (0, Ellipsis, slice(1, 3)),
    "new_axis": (None, 0, None, slice(None, 2)),
    "new_axis_after_ellipsis": (Ellipsis, None),
    "empty_tuple": (),
    "int_list": [1, 0, 1],
    "int_array_axis2": (slice(None), slice(None), np.array([3, -1, 0])),
    "int_array_2d": (0, slice(None), np.array([[0, 1], [2, 3]])),
    "two_arrays_adjacent": (slice(None), np.array([0, 2]), np.array([1, 3])),
    "two_arrays_apart": (np.array([0, 1]), slice(None), np.array([1, 3])),
    "array_and_int": (slice(None), 1, np.array([0, 3, 2])),
    "broadcast_arrays": (np.array([[0], [1]]), np.array([0, 2, 1])),
    "bool_mask_dim0": np.array([True, False]),
    "bool_mask_2d": (1, np.array([[True, False, True, False]] * 3)),
    "bool_mask_after_slice": (slice(None), slice(None), np.array([False, True, True, False])),
    "array_then_ellipsis": (np.array([1, 0]), Ellipsis, 0),
}


@pytest.mark.parametrize("name", sorted(KEYS))
def test_getitem_matches_numpy(mode, name):
    key = KEYS[name]
    t = ember.constant(X)
    expected = X[key]
    result = t[key]
    assert isinstance(result, ember.Tensor)
    assert result.shape == expected.shape  # known before the value
    np.testing.assert_array_equal(result.numpy(), expected)


def test_getitem_with_tensor_indices(mode):
    t = ember.constant(X)
    np.testing.assert_array_equal(t[ember.constant([1, -2])].numpy(), X[[1, -2]])
    np.testing.assert_array_equal(t[:, ember.constant(2)].numpy(), X[:, 2])
    np.testing.assert_array_equal(t[ember.constant([True, False])].numpy(), X[[True, False]])
    np.testing.assert_array_equal(t[ember.constant(1):, ::ember.constant(2)].numpy(), X[1:, ::2])


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float64"])
def test_getitem_dtypes(mode, dtype):
    x = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    t = ember.constant(x)
    np.testing.assert_array_equal(t[1:, ::-1].numpy(), x[1:, ::-1])
    np.testing.assert_array_equal(t[[2, 0]].numpy(), x[[2, 0]])


def test_getitem_scalar_and_large(mode):
    s = ember.constant(np.float32(3.5))
    assert s[()].numpy() == np.float32(3.5)
    assert s[None].shape == (1,)
    big = np.arange(70_000, dtype=np.int64).reshape(700, 100)
    t = ember.constant(big)
    np.testing.assert_array_equal(t[::-3, 1::2].numpy(), big[::-3, 1::2])
    np.testing.assert_array_equal(t[np.arange(699, -1, -2)].numpy(), big[::-2])


@pytest.mark.parametrize("key, pattern", [
    (2, "index 2 is out of bounds for axis 0 with size 2"),
    (-3, "out of bounds"),
    ((0, 3), "out of bounds for axis 1"),
    ((Ellipsis, 5), "out of bounds for axis 3"),
    ((0, 0, 0, 0, 0), "too many indices"),
    ((Ellipsis, Ellipsis), "single ellipsis"),
    ([0, 2], "out of bounds"),
    ((slice(None), np.array([[0], [5]])), "out of bounds"),
    (np.array([True, False, True]), "boolean index did not match"),
    ((np.array([0, 1]), np.array([0, 1, 2])), "shape mismatch"),
    (1.5, "only integers"),
    (np.array([0.5]), "integer"),
])
def test_getitem_raises_index_error_at_call(mode, key, pattern):
    t = ember.constant(X)
    with pytest.raises(IndexError, match=pattern):
        t[key]
    ember.sync()


def test_zero_step_is_a_value_error():
    with pytest.raises(ValueError, match="step"):
        ember.constant(X)[::0]


def test_iter_and_len(mode):
    t = ember.constant(X[0])
    rows = list(t)
    assert len(rows) == len(t) == 3
    for row, expected in zip(rows, X[0]):
        np.testing.assert_array_equal(row.numpy(), expected)
    with pytest.raises(TypeError):
        iter(ember.constant(1.0))


@pytest.mark.parametrize("call, pattern", [
    (lambda: ember.gather(np.arange(5.0), np.array([[1, 7]], np.int32)), r"indices\[0, 1\] = 7 is not in \[0, 5\)"),
    (lambda: ember.gather(np.arange(5.0), np.array([-1], np.int64)), r"indices\[0\] = -1 is not in \[0, 5\)"),
    (lambda: ember.gather_nd(np.ones((3, 5)), np.array([[0, 1], [1, 7]], np.int32)),
     r"indices\[1\] = \[1, 7\] does not index into shape \[3, 5\]"),
    (lambda: ember.scatter_nd(np.array([[3]], np.int32), np.ones(1, np.float32), [3]),
     r"indices\[0\] = \[3\] does not index into shape \[3\]"),
    (lambda: ember.tensor_scatter_nd_update(np.ones(3), np.array([[-1]], np.int64), np.ones(1)),
     r"indices\[0\] = \[-1\] does not index into shape \[3\]"),
])
def test_out_of_range_indices_are_kernel_errors(mode, call, pattern):
    # Data-dependent: raised by the kernel, at the call in sync mode and when
    # the value is read in async mode; never an out-of-bounds access.
    with pytest.raises(ValueError, match=pattern) as excinfo:
        call().numpy()
    assert str(excinfo.value).split(":")[0] in ("gather", "gather_nd", "scatter_nd", "tensor_scatter_nd_update")
    try:
        ember.sync()
    except ValueError:
        pass

"""ember.Tensor: metadata, repr, NumPy interop, conversions, operators, dtype rules, donation safety."""

import re

import numpy as np
import pytest

import ember


# --- Metadata ----------------------------------------------------------------


def test_metadata_known_at_once(mode):
    x = ember.ones([300, 400], dtype=ember.float64)
    y = ember.matmul(x, ember.transpose(x))  # slow enough to still be pending in async mode
    assert y.shape == (300, 300)
    assert y.ndim == 2 and y.rank == 2
    assert y.dtype == ember.float64
    assert y.device == "cpu:0"
    assert len(y) == 300
    assert float(ember.reduce_max(y)) == 400.0


def test_len_of_scalar_raises():
    with pytest.raises(TypeError):
        len(ember.constant(1.0))


def test_dtype_objects():
    assert ember.float32 == "float32"
    assert ember.float64 == np.float64
    assert ember.as_dtype("double") is ember.float64
    assert ember.int32.size == 4 and ember.bool.is_bool and ember.int64.is_integer
    assert repr(ember.float32) == "ember.float32"
    with pytest.raises(TypeError):
        ember.as_dtype("float16")


# --- repr / str --------------------------------------------------------------


def test_repr_format(mode):
    t = ember.constant([[1.0, 2.0], [3.0, 4.0]])
    text = repr(t)
    assert text.startswith("<ember.Tensor shape=(2, 2) dtype=float32 device=cpu:0 value=[[")
    assert text.endswith("]]>")
    assert re.sub(r"\s+", "", text) == "<ember.Tensorshape=(2,2)dtype=float32device=cpu:0value=[[1.,2.],[3.,4.]]>"
    assert repr(ember.constant(3)) == "<ember.Tensor shape=() dtype=int32 device=cpu:0 value=3>"
    assert repr(ember.constant([True])) == "<ember.Tensor shape=(1,) dtype=bool device=cpu:0 value=[ True]>"


def test_str_and_format():
    assert "shape=(2,)" in str(ember.constant([1, 2]))
    assert f"{ember.constant(2.5):.2f}" == "2.50"


# --- NumPy interop -----------------------------------------------------------


def test_numpy_is_read_only_zero_copy_view(mode):
    t = ember.constant([[1.0, 2.0], [3.0, 4.0]]) * 2.0
    a, b = t.numpy(), t.numpy()
    assert np.shares_memory(a, b)
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 5.0
    assert a.dtype == np.float32 and a.shape == (2, 2)


def test_np_array_is_writable_copy(mode):
    t = ember.constant([1, 2, 3])
    c = np.array(t)
    assert c.flags.writeable
    assert not np.shares_memory(c, t.numpy())
    c[0] = 100
    assert t.numpy().tolist() == [1, 2, 3]
    assert np.array(t, dtype=np.float64).dtype == np.float64


def test_numpy_view_outlives_the_tensor():
    view = (ember.constant(np.arange(1000, dtype=np.float64)) + 1.0).numpy()
    for _ in range(20):  # allocate and free more buffers of the same size
        ember.constant(np.zeros(1000)) * 3.0
    ember.sync()
    assert view.tolist() == list(np.arange(1000, dtype=np.float64) + 1.0)


# --- Python scalar conversions ----------------------------------------------


@pytest.mark.parametrize("value, kind, expected", [
    ([[2.5]], float, 2.5), ([3], int, 3), (7.9, int, 7), (0, bool, False), ([1.0], bool, True),
    (np.int64(5), float, 5.0),
])
def test_scalar_conversions(mode, value, kind, expected):
    result = kind(ember.constant(value))
    assert type(result) is kind and result == expected


@pytest.mark.parametrize("kind", [float, int, bool])
@pytest.mark.parametrize("shape", [(2,), (2, 2), (0,)])
def test_scalar_conversion_needs_one_element(kind, shape):
    with pytest.raises(ValueError, match="one element"):
        kind(ember.zeros(list(shape)))


def test_index():
    assert [10, 20, 30][ember.constant(2)] == 30
    with pytest.raises(TypeError):
        [1, 2][ember.constant(1.0)]


# --- Operators ---------------------------------------------------------------


A = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)
B = np.array([[0.5, 2.0], [-1.0, 8.0]], np.float32)


@pytest.mark.parametrize("name, fn", [
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / b), ("matmul", lambda a, b: a @ b),
    ("eq", lambda a, b: a == b), ("ne", lambda a, b: a != b), ("lt", lambda a, b: a < b),
    ("le", lambda a, b: a <= b), ("gt", lambda a, b: a > b), ("ge", lambda a, b: a >= b),
])
def test_binary_operators(mode, name, fn):
    b_values = B.copy()
    b_values[0, 0] = A[0, 0]  # a tie for the comparisons
    expected = fn(A, b_values)
    result = fn(ember.constant(A), ember.constant(b_values))
    assert isinstance(result, ember.Tensor), name
    assert result.dtype == expected.dtype
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


def test_unary_operators(mode):
    t = ember.constant(A)
    np.testing.assert_array_equal((-t).numpy(), -A)
    np.testing.assert_array_equal(abs(t).numpy(), np.abs(A))
    assert (-ember.constant([3])).numpy().tolist() == [-3]


@pytest.mark.parametrize("name, fn", [
    ("radd", lambda x: 2.0 + x), ("rsub", lambda x: 2.0 - x), ("rmul", lambda x: 2.0 * x),
    ("rdiv", lambda x: 2.0 / x), ("lt", lambda x: 2.0 < x), ("eq", lambda x: 1.0 == x),
])
def test_reflected_operators_with_scalars(mode, name, fn):
    result = fn(ember.constant(A))
    expected = fn(A)
    assert isinstance(result, ember.Tensor), name
    assert result.dtype == expected.dtype
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("name, fn", [
    ("radd", lambda n, x: n + x), ("rsub", lambda n, x: n - x), ("rmul", lambda n, x: n * x),
    ("rdiv", lambda n, x: n / x), ("rmatmul", lambda n, x: n @ x),
])
def test_reflected_operators_with_numpy_on_the_left(mode, name, fn):
    result = fn(B, ember.constant(A))
    assert isinstance(result, ember.Tensor), name
    expected = fn(B, A)
    assert result.dtype == ember.float32
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


def test_reflected_matmul_with_list_on_the_left():
    result = [[1.0, 0.0], [0.0, 2.0]] @ ember.constant(A)
    np.testing.assert_array_equal(result.numpy(), np.array([[1.0, 0.0], [0.0, 2.0]], np.float32) @ A)


def test_int_true_division_gives_float64(mode):
    result = ember.constant([7, -7]) / ember.constant([2, 2])
    assert result.dtype == ember.float64
    assert result.numpy().tolist() == [3.5, -3.5]
    assert (ember.constant([7]) / 2).dtype == ember.float64


def test_tensors_are_unhashable():
    t = ember.constant([1.0])
    with pytest.raises(TypeError, match="unhashable"):
        hash(t)
    with pytest.raises(TypeError):
        {t: 1}  # noqa: B018


# --- Weak typing and promotion ---------------------------------------------


@pytest.mark.parametrize("tensor_dtype, scalar, expected", [
    (ember.float32, 2.0, ember.float32),
    (ember.float64, 2.0, ember.float64),
    (ember.int32, 2, ember.int32),
    (ember.int64, 2, ember.int64),
    (ember.int32, 2.5, ember.float32),
    (ember.int64, 2.5, ember.float32),
    (ember.float32, 2, ember.float32),
    (ember.int32, True, ember.int32),
])
def test_python_scalars_are_weakly_typed(mode, tensor_dtype, scalar, expected):
    t = ember.constant([1, 2], dtype=tensor_dtype)
    for result in (t + scalar, scalar + t, ember.multiply(t, scalar)):
        assert result.dtype == expected
    np.testing.assert_allclose((t + scalar).numpy(), np.array([1, 2]) + scalar)


ORDER = [ember.bool, ember.int32, ember.int64, ember.float32, ember.float64]


@pytest.mark.parametrize("i", range(5))
@pytest.mark.parametrize("j", range(5))
def test_mixed_dtype_promotion(mode, i, j):
    x = ember.constant([1, 0], dtype=ORDER[i])
    y = ember.constant([1, 1], dtype=ORDER[j])
    expected = ORDER[max(i, j)]
    result = ember.maximum(x, y) if expected != ember.bool else ember.equal(x, y)
    if expected != ember.bool:
        assert result.dtype == expected
        assert result.numpy().tolist() == [1, 1]
    else:
        assert result.numpy().tolist() == [True, False]
    assert ember.equal(x, y).dtype == ember.bool


def test_bool_promotes_for_arithmetic(mode):
    result = ember.constant([True, False]) + ember.constant([1, 1])
    assert result.dtype == ember.int32 and result.numpy().tolist() == [2, 1]


def test_python_lists_default_dtypes():
    assert ember.constant([1.0, 2.0]).dtype == ember.float32
    assert ember.constant([1, 2]).dtype == ember.int32
    assert ember.constant([True]).dtype == ember.bool
    assert ember.constant([1, 2 ** 40]).dtype == ember.int64
    assert ember.constant(np.array([1, 2], np.int64)).dtype == ember.int64
    assert ember.constant(np.float64(1.0)).dtype == ember.float64


# --- constant / convert_to_tensor -------------------------------------------


def test_constant_dtype_and_shape(mode):
    t = ember.constant(5.0, shape=[2, 3])
    assert t.shape == (2, 3) and t.numpy().tolist() == [[5.0] * 3] * 2
    t = ember.constant([1, 2, 3, 4, 5, 6], shape=[3, 2], dtype=ember.int64)
    assert t.dtype == ember.int64 and t.numpy().tolist() == [[1, 2], [3, 4], [5, 6]]
    t = ember.constant([1, 2], dtype=ember.float64)
    assert t.dtype == ember.float64
    with pytest.raises(ValueError, match="constant"):
        ember.constant([1, 2, 3], shape=[2, 3])
    assert ember.constant([]).shape == (0,)


def test_constant_copies_its_input():
    source = np.arange(4, dtype=np.float32)
    t = ember.constant(source)
    source[0] = 100.0
    assert t.numpy()[0] == 0.0


def test_convert_to_tensor():
    t = ember.constant([1.0])
    assert ember.convert_to_tensor(t) is t
    with pytest.raises(ValueError, match="ember.cast"):
        ember.convert_to_tensor(t, dtype=ember.float64)
    assert ember.convert_to_tensor([1, 2], dtype=ember.float64).dtype == ember.float64
    assert ember.convert_to_tensor([1, 2], dtype_hint=ember.float32).dtype == ember.float32
    assert ember.convert_to_tensor(np.array([1, 2]), dtype_hint=ember.float32).dtype == ember.int64


@pytest.mark.parametrize("value, dtype", [(2 ** 40, ember.int32), ([1, 2 ** 31], ember.int32),
                                          (-2 ** 63 - 1, None)])
def test_integer_overflow_raises(value, dtype):
    with pytest.raises(OverflowError):
        ember.constant(value, dtype=dtype)


def test_weak_int_scalar_overflow_raises_at_call(mode):
    with pytest.raises(OverflowError, match="add"):
        ember.constant([1]) + 2 ** 40


def test_lossy_float_list_to_int_raises():
    with pytest.raises(TypeError):
        ember.constant([1.5, 2.0], dtype=ember.int32)


@pytest.mark.parametrize("np_dtype", [np.float16, np.uint8, np.complex64, np.int8])
def test_unsupported_numpy_dtype_raises_type_error(np_dtype):
    with pytest.raises(TypeError, match="dtype"):
        ember.constant(np.ones(2, np_dtype))


@pytest.mark.parametrize("value", ["abc", object(), [[1, 2], [3]]])
def test_unconvertible_values_raise(value):
    with pytest.raises((TypeError, ValueError)):
        ember.convert_to_tensor(value)


# --- Buffer donation ---------------------------------------------------------


def test_named_variables_are_never_donated(mode):
    a = ember.constant(np.linspace(-1, 1, 70_000, dtype=np.float32))
    b = ember.constant(np.full(70_000, 0.5, np.float32))
    t = a + b
    before = np.array(t)
    view = t.numpy()
    u = ember.exp(t)
    v = ember.nn.relu(t)
    w = t * 2.0
    np.testing.assert_allclose(u.numpy(), np.exp(before), rtol=1e-6)
    np.testing.assert_array_equal(v.numpy(), np.maximum(before, 0))
    np.testing.assert_array_equal(w.numpy(), before * 2)
    np.testing.assert_array_equal(t.numpy(), before)
    np.testing.assert_array_equal(view, before)
    np.testing.assert_array_equal(a.numpy(), np.linspace(-1, 1, 70_000, dtype=np.float32))
    np.testing.assert_array_equal(b.numpy(), 0.5)


def test_temporaries_give_right_values(mode):
    a = ember.constant([1.0, 2.0])
    b = ember.constant([0.5, 0.5])
    np.testing.assert_allclose(ember.exp(a + b).numpy(), np.exp([1.5, 2.5]), rtol=1e-6)
    np.testing.assert_allclose(ember.sqrt(ember.exp(a + b) * 2.0).numpy(), np.sqrt(2 * np.exp([1.5, 2.5])),
                               rtol=1e-6)
    assert a.numpy().tolist() == [1.0, 2.0] and b.numpy().tolist() == [0.5, 0.5]


@pytest.mark.parametrize("make_view", [
    lambda t: ember.identity(t), lambda t: ember.reshape(t, [-1]),
    lambda t: ember.debugging.check_numerics(t, "m"), lambda t: ember.convert_to_tensor(t),
])
def test_views_of_named_tensors_are_not_donated(mode, make_view):
    t = ember.constant([[1.0, 2.0], [3.0, 4.0]]) + 0.0
    before = np.array(t)
    result = ember.exp(make_view(t))
    np.testing.assert_allclose(result.numpy().reshape(2, 2), np.exp(before), rtol=1e-6)
    np.testing.assert_array_equal(t.numpy(), before)


def test_same_temporary_twice_and_broadcast_temporary(mode):
    a = ember.constant([[1.0], [2.0]])
    t = a * 1.0
    assert ember.add(t, t).numpy().tolist() == [[2.0], [4.0]]
    # A temporary smaller than the output cannot hold the result.
    result = (a * 1.0) + ember.ones([2, 3])
    assert result.shape == (2, 3)
    assert result.numpy().tolist() == [[2.0] * 3, [3.0] * 3]
    # A temporary whose dtype differs from the output's cannot either.
    result = ember.less(ember.constant([1.0, 5.0]) * 1.0, 2.0)
    assert result.numpy().tolist() == [True, False]

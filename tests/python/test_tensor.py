"""ember.Tensor: metadata, repr, NumPy interop, conversions, operators, dtype rules, donation safety."""

import re

import ml_dtypes
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
        ember.as_dtype("float128")
    with pytest.raises(TypeError):
        ember.as_dtype(np.complex128)


ALL_DTYPES = [ember.bool, ember.int32, ember.int64, ember.float32, ember.float64, ember.float16,
              ember.bfloat16, ember.int8, ember.int16, ember.uint8, ember.complex64]


def test_new_dtype_objects():
    # Codes are the C++ enum values: existing ones never change.
    assert [d._code for d in ALL_DTYPES] == list(range(11))
    assert ember.dtypes.ALL_DTYPES == tuple(ALL_DTYPES)
    assert ember.as_dtype("half") is ember.float16 and ember.as_dtype(np.float16) is ember.float16
    assert ember.as_dtype(ml_dtypes.bfloat16) is ember.bfloat16 and ember.bfloat16 == "bfloat16"
    assert ember.as_dtype(np.dtype(np.complex64)) is ember.complex64 and ember.as_dtype(complex) is ember.complex64
    assert ember.as_dtype("uint8") is ember.uint8 and ember.uint8 == np.uint8
    assert ember.bfloat16.is_floating and ember.bfloat16.size == 2
    assert ember.bfloat16.as_numpy_dtype is ml_dtypes.bfloat16
    assert ember.complex64.is_complex and not ember.complex64.is_floating and ember.complex64.size == 8
    assert ember.uint8.is_integer and ember.uint8.is_unsigned and not ember.int8.is_unsigned
    assert [d.size for d in ALL_DTYPES] == [1, 4, 8, 4, 8, 2, 2, 1, 2, 1, 8]


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



def test_numpy_view_of_a_host_tensor_is_based_on_the_tensor():
    # Note [NumPy views]: no capsule per read; the tensor keeps its buffer.
    t = ember.constant(np.arange(12, dtype=np.float32).reshape(3, 4)) * 2.0
    view = t.numpy()
    assert view.base is t and not view.flags.writeable
    import sys
    count = sys.getrefcount(t)
    del view
    assert sys.getrefcount(t) == count - 1
    many = [t.numpy() for _ in range(3)]
    del t
    np.testing.assert_array_equal(many[0], np.arange(12, dtype=np.float32).reshape(3, 4) * 2.0)
    high = ember.zeros([1] * 10)  # more dimensions than the inline list holds
    assert high.numpy().shape == (1,) * 10


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


# The full lattice (docs/dtypes.md, Note [Type promotion] in csrc/core/dtype.cc),
# row dtype joined with column dtype, in the order of PROMOTION_ORDER.
PROMOTION_ORDER = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                   "float64", "complex64"]
PROMOTION_TABLE = """
bool      uint8     int8      int16 int32 int64 float16 bfloat16 float32 float64 complex64
uint8     uint8     int16     int16 int32 int64 float16 bfloat16 float32 float64 complex64
int8      int16     int8      int16 int32 int64 float16 bfloat16 float32 float64 complex64
int16     int16     int16     int16 int32 int64 float16 bfloat16 float32 float64 complex64
int32     int32     int32     int32 int32 int64 float16 bfloat16 float32 float64 complex64
int64     int64     int64     int64 int64 int64 float16 bfloat16 float32 float64 complex64
float16   float16   float16   float16 float16 float16 float16 float32 float32 float64 complex64
bfloat16  bfloat16  bfloat16  bfloat16 bfloat16 bfloat16 float32 bfloat16 float32 float64 complex64
float32   float32   float32   float32 float32 float32 float32 float32 float32 float64 complex64
float64   float64   float64   float64 float64 float64 float64 float64 float64 float64 complex64
complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64
"""
EXPECTED_JOIN = {(a, b): row.split()[j] for a, row in zip(PROMOTION_ORDER, PROMOTION_TABLE.split("\n")[1:-1])
                 for j, b in enumerate(PROMOTION_ORDER)}


def _bound_dtype(x, y):
    """The dtype add binds T to: its result's, or the one its TypeError names
    (add does not take every dtype; the binding happens before that check)."""
    try:
        return ember.add(x, y).dtype.name
    except TypeError as e:
        match = re.search(r"^add: dtype (\w+) is not supported", str(e))
        assert match, str(e)
        return match.group(1)


def test_promotion_table_is_a_commutative_lattice():
    for a in PROMOTION_ORDER:
        assert EXPECTED_JOIN[a, a] == a and EXPECTED_JOIN[a, "bool"] == a
        for b in PROMOTION_ORDER:
            assert EXPECTED_JOIN[a, b] == EXPECTED_JOIN[b, a]
            for c in PROMOTION_ORDER:  # associative
                assert EXPECTED_JOIN[EXPECTED_JOIN[a, b], c] == EXPECTED_JOIN[a, EXPECTED_JOIN[b, c]]


@pytest.mark.parametrize("a", PROMOTION_ORDER)
def test_promotion_table_every_pair(mode, a):
    x = ember.zeros([2], a)
    for b in PROMOTION_ORDER:
        y = ember.zeros([2], b)
        assert _bound_dtype(x, y) == EXPECTED_JOIN[a, b], (a, b)
        assert _bound_dtype(y, x) == EXPECTED_JOIN[a, b], (b, a)
    # NumPy arrays are strong operands too.
    assert _bound_dtype(x, np.zeros(2, ember.float16.as_numpy_dtype)) == EXPECTED_JOIN[a, "float16"]


def test_mixed_new_dtypes_compute_in_the_join(mode):
    x = ember.constant(np.array([1.5, 2.0], np.float16))
    y = ember.constant(np.array([0.25, 1.0], ml_dtypes.bfloat16))
    z = x + y  # float32: neither 16-bit float holds the other
    assert z.dtype == ember.float32 and z.numpy().tolist() == [1.75, 3.0]
    u = ember.constant(np.array([200, 1], np.uint8))
    assert (u + ember.constant([1, -1], dtype=ember.int32)).numpy().tolist() == [201, 0]
    assert (ember.constant(np.array([3], np.int8)) + np.float32(0.5)).numpy().tolist() == [3.5]


# (tensor dtype, Python value) -> bound dtype: a weak value keeps the tensor's
# dtype unless its kind (bool < int < float < complex) is higher.
WEAK_CASES = [
    ("float16", 1.0, "float16"), ("float16", 1, "float16"), ("float16", True, "float16"),
    ("bfloat16", 2.5, "bfloat16"), ("bfloat16", [1.0, 2.0], "bfloat16"),
    ("uint8", 1, "uint8"), ("uint8", 1.5, "float32"), ("int8", 1, "int8"), ("int16", [1, 2], "int16"),
    ("int8", 2.5, "float32"), ("bool", 1, "int32"),
    ("complex64", 1.0, "complex64"), ("complex64", 1, "complex64"),
    ("float32", 1j, "complex64"), ("float16", 1j, "complex64"), ("int32", 2j, "complex64"),
    ("float64", 1j, "complex64"), ("float32", [1j, 2], "complex64"),
]


@pytest.mark.parametrize("tensor_dtype, value, expected", WEAK_CASES)
def test_weak_values_with_new_dtypes(mode, tensor_dtype, value, expected):
    t = ember.zeros([2], tensor_dtype)
    assert _bound_dtype(t, value) == expected
    assert _bound_dtype(value, t) == expected


def test_weak_complex_values_compute(mode):
    # Only weak inputs: the kind's default dtype (add takes no complex yet, so fill and identity).
    np.testing.assert_array_equal(ember.fill([2], 1 + 2j).numpy(), np.array([1 + 2j] * 2, np.complex64))
    assert ember.identity(2j).dtype == ember.complex64
    assert ember.identity([1, 2j]).dtype == ember.complex64


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


@pytest.mark.parametrize("np_dtype", [np.uint16, np.uint32, np.uint64, np.complex128, np.longdouble,
                                      ml_dtypes.float8_e4m3fn])
def test_unsupported_numpy_dtype_raises_type_error(np_dtype):
    with pytest.raises(TypeError, match="unsupported NumPy dtype .*; ember supports bool, float16, bfloat16"):
        ember.constant(np.ones(2, np_dtype))
    with pytest.raises(TypeError, match="unsupported NumPy dtype"):
        ember.add(ember.constant([1.0]), np.ones(1, np_dtype))


# --- Every dtype: NumPy round trips, Python values, casts ---------------------


def _values(dtype):
    return {
        ember.bool: [True, False, True],
        ember.uint8: [0, 7, 255],
        ember.int8: [-128, 5, 127],
        ember.int16: [-32768, 5, 32767],
        ember.int32: [-2 ** 31, 5, 2 ** 31 - 1],
        ember.int64: [-2 ** 63, 5, 2 ** 63 - 1],
        ember.float16: [-65504.0, 0.5, 2.0 ** -24],
        ember.bfloat16: [-3.0e38, 0.5, 2.0 ** -133],
        ember.float32: [-3.0e38, 0.5, 1.0e-45],
        ember.float64: [-1.0e308, 0.5, 5.0e-324],
        ember.complex64: [1 + 2j, -0.5j, 3.0],
    }[dtype]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_numpy_round_trip_every_dtype(mode, dtype):
    array = np.array(_values(dtype), dtype.as_numpy_dtype).reshape(3, 1)
    t = ember.constant(array)
    assert t.dtype == dtype and t.shape == (3, 1)
    out = t.numpy()
    assert out.dtype == array.dtype  # bfloat16 comes back as ml_dtypes.bfloat16
    np.testing.assert_array_equal(out, array)
    # Through ops that take every dtype: copies, views and a cast round trip.
    np.testing.assert_array_equal(ember.transpose(t).numpy(), array.T)
    np.testing.assert_array_equal(ember.reshape(t, [3]).numpy(), array.reshape(3))
    np.testing.assert_array_equal(ember.identity(t).numpy(), array)
    np.testing.assert_array_equal(ember.fill([2], array[1].reshape(())).numpy(), np.full(2, array[1, 0]))
    np.testing.assert_array_equal(ember.ones([2], dtype).numpy(), np.ones(2, array.dtype))
    np.testing.assert_array_equal(ember.zeros([2], dtype).numpy(), np.zeros(2, array.dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_python_values_convert_to_every_dtype(mode, dtype):
    values = _values(dtype)
    t = ember.constant(values, dtype=dtype)
    np.testing.assert_array_equal(t.numpy(), np.array(values, dtype.as_numpy_dtype))
    scalar = ember.constant(values[1], dtype=dtype)
    assert scalar.dtype == dtype and scalar.numpy() == np.array(values[1], dtype.as_numpy_dtype)


@pytest.mark.parametrize("dtype, value", [(ember.float16, 0.1), (ember.float16, 1e-6), (ember.float16, 65519.0),
                                          (ember.float16, 65520.0), (ember.float16, -2.0 ** -25),
                                          (ember.bfloat16, 0.1), (ember.bfloat16, 1e-40), (ember.bfloat16, 3.4e38),
                                          (ember.bfloat16, float("nan")), (ember.float16, float("-inf"))])
def test_python_floats_round_to_nearest_half(dtype, value):
    # Python scalars are rounded in C++ (no Eigen there); NumPy / ml_dtypes agree.
    got = ember.constant(value, dtype=dtype).numpy()
    with np.errstate(over="ignore"):
        want = np.array(value, np.float32).astype(dtype.as_numpy_dtype)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.astype(np.float32), want.astype(np.float32))  # NaN-aware


@pytest.mark.parametrize("value, dtype", [(256, ember.uint8), (-1, ember.uint8), (128, ember.int8),
                                          (-2 ** 15 - 1, ember.int16), ([0, 300], ember.uint8),
                                          ([-129], ember.int8)])
def test_narrow_integer_overflow_raises(value, dtype):
    with pytest.raises(OverflowError, match=dtype.name):
        ember.constant(value, dtype=dtype)


def test_complex_python_values():
    assert ember.constant(1 + 2j).dtype == ember.complex64
    assert ember.constant([1, 2.5, 3j]).dtype == ember.complex64
    assert ember.constant(np.complex64(1j)).dtype == ember.complex64
    np.testing.assert_array_equal(ember.constant([1j, 2]).numpy(), np.array([1j, 2], np.complex64))
    for dtype in (ember.float32, ember.int32, ember.bfloat16):
        with pytest.raises(TypeError, match="complex"):
            ember.constant(1j, dtype=dtype)
        with pytest.raises(TypeError, match="complex"):
            ember.constant([1j], dtype=dtype)
    with pytest.raises(TypeError, match="float"):
        ember.constant([1.5], dtype=ember.uint8)
    # An explicit dtype on a NumPy array casts, as for other dtypes.
    np.testing.assert_array_equal(ember.constant(np.array([1 + 1j]), dtype=ember.complex64).numpy(),
                                  np.array([1 + 1j], np.complex64))


def test_cast_edge_values(mode):
    x = ember.constant([float("nan"), 1e10, -1e10, -0.9, 255.9, 3.5])
    assert ember.cast(x, ember.uint8).numpy().tolist() == [0, 255, 0, 0, 255, 3]
    assert ember.cast(x, ember.int8).numpy().tolist() == [0, 127, -128, 0, 127, 3]
    assert ember.cast(x, ember.int32).numpy().tolist() == [0, 2 ** 31 - 1, -2 ** 31, 0, 255, 3]
    assert ember.cast(x, ember.int64).numpy().tolist() == [0, 10 ** 10, -10 ** 10, 0, 255, 3]
    assert ember.cast(x, ember.bool).numpy().tolist() == [True] * 6
    c = ember.constant([1.5 - 2j, 0j, 2j])
    assert ember.cast(c, ember.float32).numpy().tolist() == [1.5, 0.0, 0.0]
    assert ember.cast(c, ember.int16).numpy().tolist() == [1, 0, 0]
    assert ember.cast(c, ember.bool).numpy().tolist() == [True, False, True]
    assert ember.cast(ember.constant([300, -1]), ember.uint8).numpy().tolist() == [44, 255]
    h = ember.cast(ember.constant([1.0, 65504.0, 1e5, 1e-8]), ember.float16)
    np.testing.assert_array_equal(h.numpy(), np.array([1.0, 65504.0, np.inf, 0.0], np.float16))
    b = ember.cast(h, ember.bfloat16)
    assert b.dtype == ember.bfloat16 and b.numpy().astype(np.float32).tolist() == [1.0, 65536.0, np.inf, 0.0]


@pytest.mark.parametrize("value", [{"abc"}, object(), [[1, 2], [3]], ["a", 1]])
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

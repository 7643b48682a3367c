"""Element-wise behaviour the op database cannot express: data-dependent
kernel errors, operators, and edge values."""

import numpy as np
import pytest

import ember


def _raises_kernel_error(mode, fn, match):
    """Sync mode raises at the call; async mode when the value is read."""
    if mode == "sync":
        with pytest.raises(ValueError, match=match):
            fn()
        return
    result = fn()  # shape and dtype are known; the kernel fails later
    with pytest.raises(ValueError, match=match):
        result.numpy()
    ember.sync()  # the read reported it
    fn()  # unread, the same failure is raised by sync()
    with pytest.raises(ValueError, match=match):
        ember.sync()


@pytest.mark.parametrize("dtype", [ember.int32, ember.int64])
def test_integer_division_by_zero_is_a_kernel_error(mode, dtype):
    x = ember.constant([7, -7, 3], dtype=dtype)
    y = ember.constant([2, 0, 1], dtype=dtype)
    _raises_kernel_error(mode, lambda: ember.floordiv(x, y), r"^floordiv: Integer division by zero")
    _raises_kernel_error(mode, lambda: ember.math.floormod(x, y), r"^floormod: Integer division by zero")
    _raises_kernel_error(mode, lambda: x // 0, r"^floordiv: Integer division by zero")
    # A broadcast zero divisor, and nothing pending afterwards.
    _raises_kernel_error(mode, lambda: x % ember.constant([[1], [0]], dtype=dtype), "Integer division by zero")
    ember.sync()
    assert (x // 2).numpy().tolist() == [3, -4, 1]


def test_float_division_by_zero_follows_numpy(mode):
    x = ember.constant([1.0, -1.0, 0.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal((x // 0.0).numpy(), np.floor_divide(x.numpy(), np.float32(0)))
        np.testing.assert_array_equal((x % 0.0).numpy(), np.remainder(x.numpy(), np.float32(0)))


def test_integer_overflow_cases_do_not_crash(mode):
    lo = np.iinfo(np.int32).min
    x = ember.constant([lo, 5], dtype=ember.int32)
    assert (x // -1).numpy().tolist() == [lo, -5]  # wraps, like NumPy
    assert (x % -1).numpy().tolist() == [0, 0]


def test_negative_integer_exponent_is_a_kernel_error(mode):
    x = ember.constant([2, 3])
    _raises_kernel_error(mode, lambda: x ** -1, r"^pow: Integers to negative integer powers are not allowed")
    assert (x ** 2).numpy().tolist() == [4, 9]
    assert (ember.constant([2.0]) ** -1).numpy().tolist() == [0.5]


def test_python_semantics_of_floordiv_and_mod(mode):
    x = ember.constant([7, -7, 7, -7])
    y = ember.constant([2, 2, -2, -2])
    assert (x // y).numpy().tolist() == [7 // 2, -7 // 2, 7 // -2, -7 // -2]
    assert (x % y).numpy().tolist() == [7 % 2, -7 % 2, 7 % -2, -7 % -2]
    assert (ember.constant(1.0, dtype=ember.float64) // 0.1).numpy() == 1.0 // 0.1  # 9.0, not 10.0
    assert (ember.constant(-7.5, dtype=ember.float64) % 2.0).numpy() == -7.5 % 2.0


def test_reflected_operators(mode):
    x = ember.constant([1, 2, 3])
    assert (10 // x).numpy().tolist() == [10, 5, 3]
    assert (10 % x).numpy().tolist() == [0, 0, 1]
    assert (2 ** x).numpy().tolist() == [2, 4, 8]
    assert (x ** 2).dtype == ember.int32
    assert (ember.constant([1.5]) ** 2).dtype == ember.float32


def test_bool_operators_are_logical(mode):
    p = ember.constant([True, True, False, False])
    q = ember.constant([True, False, True, False])
    assert (p & q).numpy().tolist() == [True, False, False, False]
    assert (p | q).numpy().tolist() == [True, True, True, False]
    assert (p ^ q).numpy().tolist() == [False, True, True, False]
    assert (~p).numpy().tolist() == [False, False, True, True]
    assert (True & q).numpy().tolist() == [True, False, True, False]
    assert (False | q).numpy().tolist() == [True, False, True, False]
    with pytest.raises(TypeError, match=r"^logical_and: .*dtype int32"):
        ember.constant([1]) & ember.constant([1])


def test_round_halves_to_even(mode):
    x = ember.constant([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
    assert ember.round(x).numpy().tolist() == [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0]


def test_truediv_promotes_integers_to_float64(mode):
    r = ember.truediv(ember.constant([7]), ember.constant([2]))
    assert r.dtype == ember.float64 and r.numpy().tolist() == [3.5]


def test_softplus_extremes(mode):
    r = ember.nn.softplus(ember.constant([-100.0, 0.0, 100.0], dtype=ember.float64)).numpy()
    np.testing.assert_allclose(r, [np.exp(-100.0), np.log(2.0), 100.0], rtol=1e-6)


def test_sign_of_nan_is_nan(mode):
    r = ember.sign(ember.constant([np.nan, -0.0, -2.0, 3.0])).numpy()
    assert np.isnan(r[0]) and r[1:].tolist() == [0.0, -1.0, 1.0]


@pytest.mark.skipif(not hasattr(ember, "where"), reason="where is not declared yet")
def test_where_with_bool_tensor_and_four_dim_broadcast(mode):
    rng = np.random.default_rng(0)
    c = rng.random((2, 1, 3, 1)) > 0.5
    x = rng.standard_normal((1, 4, 1, 5)).astype(np.float32)
    y = rng.standard_normal((4, 3, 1)).astype(np.float32)
    r = ember.where(ember.constant(c), x, y)
    np.testing.assert_array_equal(r.numpy(), np.where(c, x, y))
    big = rng.random((300, 1, 70)) > 0.5  # over the parallel threshold, three collapsed dims
    xb = rng.standard_normal((1, 40, 70)).astype(np.float64)
    np.testing.assert_array_equal(ember.where(big, xb, 0.0).numpy(), np.where(big, xb, 0.0))

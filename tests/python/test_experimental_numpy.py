"""ember.experimental.numpy (a subset of tf.experimental.numpy) against NumPy itself:
values and dtypes, with NumPy's dtype rules."""

import numpy as np
import pytest

import ember
import ember.experimental.numpy as tnp

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((4, 2))
P = np.abs(A) + 0.5


def check(ours, theirs, exact_dtype=True):
    ours_np = ours.numpy() if isinstance(ours, ember.Tensor) else np.asarray(ours)
    np.testing.assert_allclose(ours_np, theirs, rtol=1e-6, atol=1e-12)
    if exact_dtype:
        assert ours_np.dtype == np.asarray(theirs).dtype, (ours_np.dtype, np.asarray(theirs).dtype)


def test_creation_follows_numpy_dtypes():
    check(tnp.array([1.0, 2.0]), np.array([1.0, 2.0]))  # float64, as in NumPy
    check(tnp.asarray([1, 2]), np.asarray([1, 2]))
    check(tnp.zeros((2, 3)), np.zeros((2, 3)))
    check(tnp.ones([2], dtype=tnp.float32), np.ones([2], np.float32))
    check(tnp.full((2, 2), 7), np.full((2, 2), 7))
    check(tnp.arange(5), np.arange(5))
    check(tnp.arange(1.0, 2.0, 0.25), np.arange(1.0, 2.0, 0.25))
    check(tnp.linspace(0, 1, 5), np.linspace(0, 1, 5))
    check(tnp.linspace(0, 1, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False))
    check(tnp.eye(3, 4, 1), np.eye(3, 4, 1))
    assert tnp.array([1.0], ndmin=3).shape == (1, 1, 1)


@pytest.mark.parametrize("name, args", [
    ("reshape", (A, (4, 3))), ("transpose", (A,)), ("transpose", (np.zeros((2, 3, 4)), (1, 0, 2))),
    ("concatenate", ([A, A],)), ("stack", ([A, A], 1)), ("expand_dims", (A, 1)),
    ("squeeze", (np.zeros((1, 3, 1)),)),
])
def test_shape_functions(name, args):
    check(getattr(tnp, name)(*args), getattr(np, name)(*args))


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod", "var", "std"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_reductions(name, axis):
    check(getattr(tnp, name)(A, axis=axis), getattr(np, name)(A, axis=axis))
    check(getattr(tnp, name)(A, axis=axis, keepdims=True), getattr(np, name)(A, axis=axis, keepdims=True))


def test_integer_reductions_follow_numpy():
    ints = np.arange(6, dtype=np.int32).reshape(2, 3)
    check(tnp.sum(ints), np.sum(ints))  # int64
    check(tnp.mean(ints, axis=0), np.mean(ints, axis=0))  # float64
    check(tnp.argmax(A), np.argmax(A))
    check(tnp.argmin(A, axis=1), np.argmin(A, axis=1))
    check(tnp.cumsum(ints), np.cumsum(ints), exact_dtype=False)
    assert bool(tnp.all(ints >= 0)) and not bool(tnp.any(ints > 10))


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "cos", "tanh", "abs", "square", "negative"])
def test_unary(name):
    check(getattr(tnp, name)(P), getattr(np, name)(P))


def test_unary_on_integers_gives_float64():
    check(tnp.sqrt(np.array([1, 4, 9])), np.sqrt(np.array([1, 4, 9])))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum", "power", "divide"])
def test_binary_with_numpy_promotion(name):
    check(getattr(tnp, name)(P, P[::-1]), getattr(np, name)(P, P[::-1]))
    ints = np.array([1, 2, 3], np.int32)
    check(getattr(tnp, name)(ints, 2), getattr(np, name)(ints, 2))  # a Python int stays weak
    check(getattr(tnp, name)(ints, np.array([1.5, 2.0, 3.0], np.float32)),
          getattr(np, name)(ints, np.array([1.5, 2.0, 3.0], np.float32)))


def test_dot_matmul_where_clip():
    v = RNG.standard_normal(4)
    check(tnp.dot(A, B), np.dot(A, B))
    check(tnp.dot(v, v), np.dot(v, v))
    check(tnp.dot(A, v), np.dot(A, v))
    check(tnp.dot(2.0, v), np.dot(2.0, v))
    check(tnp.matmul(A, B), np.matmul(A, B))
    check(tnp.matmul(v, B), np.matmul(v, B))
    check(tnp.matmul(A, v), np.matmul(A, v))
    check(tnp.where(A > 0, A, 0.0), np.where(A > 0, A, 0.0))
    for ours, theirs in zip(tnp.where(A > 0), np.where(A > 0)):
        check(ours, theirs)
    check(tnp.clip(A, -0.5, 0.5), np.clip(A, -0.5, 0.5))
    check(tnp.sort(A), np.sort(A))
    check(tnp.argsort(A[0]), np.argsort(A[0]), exact_dtype=False)


def test_arrays_are_ember_tensors_with_gradients():
    x = tnp.asarray([1.0, 2.0, 3.0])
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = tnp.sum(tnp.square(x) * tnp.exp(x))
    check(tape.gradient(y, x), (2 * np.array([1.0, 2, 3]) + np.array([1.0, 2, 3]) ** 2) * np.exp([1.0, 2, 3]))
    f = ember.function(lambda a, b: tnp.dot(a, b) + tnp.mean(a))
    check(f(A, B), np.dot(A, B) + np.mean(A))

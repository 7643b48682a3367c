"""The C call paths: op functions (Note [Op functions], csrc/python/op_function.cc) and
ember.Function's common call (Note [Function calls in C], csrc/python/function_call.cc). Each test
takes a path off its fast case and checks that the call still behaves as the Python code did."""
import copy
import functools
import inspect
import pickle
import sys

import numpy as np
import pytest

import ember
from ember._generated import ops as generated_ops

_ALL_OPS = sorted(name for name, value in vars(generated_ops).items() if isinstance(value, ember._C.OpFunction))


# --- op functions -------------------------------------------------------------


def test_every_op_function_has_a_signature_and_a_doc():
    assert len(_ALL_OPS) > 150
    for name in _ALL_OPS:
        fn = getattr(generated_ops, name)
        sig = inspect.signature(fn)  # parsed from __text_signature__
        params = list(sig.parameters)
        assert params[-1] == "name", name
        assert sig.parameters["name"].default is None, name
        assert fn.__name__ == name and fn.__module__ == "ember._generated.ops"
        assert fn.__doc__ and "Args:" in fn.__doc__, name
        assert inspect.isroutine(fn), name


def test_binding_errors_name_the_op():
    x = ember.constant([1.0])
    with pytest.raises(TypeError, match=r"add\(\) missing 1 required argument: 'y'"):
        ember.add(x)
    with pytest.raises(TypeError, match=r"add\(\) takes from 2 to 3 positional arguments but 4 were given"):
        ember.add(x, x, None, 1)
    with pytest.raises(TypeError, match=r"add\(\) got an unexpected keyword argument 'z'"):
        ember.add(x, z=x)
    with pytest.raises(TypeError, match=r"add\(\) got multiple values for argument 'x'"):
        ember.add(x, x=x)


def test_keywords_defaults_and_name():
    a = ember.constant([[1.0, 2.0], [3.0, 4.0]])
    expected = a.numpy() @ a.numpy().T
    for out in (ember.matmul(a, a, False, True), ember.matmul(a, b=a, transpose_b=True),
                ember.matmul(b=a, a=a, transpose_b=True, name="mm"), ember.matmul(a, a, transpose_b=True, name=None)):
        np.testing.assert_array_equal(out.numpy(), expected)
    q, r = ember.linalg.qr(np.eye(3, dtype=np.float32))  # an output tuple
    assert type(ember.linalg.qr(np.eye(2, dtype=np.float32))).__name__ == "Qr"
    np.testing.assert_allclose(np.abs(q.numpy()), np.eye(3), atol=1e-6)


def test_pickles_by_name_and_wraps():
    assert pickle.loads(pickle.dumps(ember.add)) is ember.add
    assert copy.deepcopy(ember.add) is ember.add

    @functools.wraps(ember.add)
    def wrapper(*args):
        return ember.add(*args)

    assert wrapper.__name__ == "add" and wrapper.__wrapped__ is ember.add
    ember.add.custom_attribute = 1  # like a function, it has a __dict__
    assert ember.add.custom_attribute == 1
    del ember.add.custom_attribute


def test_binds_as_a_method():
    class Box:
        double = ember.add

    assert Box.double is ember.add  # through the class: the function itself
    bound = ember.add.__get__(ember.constant([2.0]))
    np.testing.assert_array_equal(bound(ember.constant([1.0])).numpy(), [3.0])  # self first, as for a def
    v = ember.Variable([1.0, 2.0])
    np.testing.assert_array_equal((v + v).numpy(), [2.0, 4.0])  # Variable's operators are op functions
    np.testing.assert_array_equal((v * 3.0).numpy(), [3.0, 6.0])


_donation_versions = pytest.mark.skipif(not (3, 11) <= sys.version_info[:2] < (3, 14),
                                        reason="donation is only enabled on CPython versions whose refcounts were checked")


def _pointer(t):
    return t.numpy().__array_interface__["data"][0]


@_donation_versions
def test_a_temporary_argument_is_donated():
    a = ember.constant(np.linspace(0, 1, 4096, dtype=np.float32))
    temporary = a * 2.0
    pointer = _pointer(temporary)
    holder = [temporary]
    del temporary
    out = ember.exp(holder.pop())  # the only reference is the caller's stack slot
    assert _pointer(out) == pointer


@_donation_versions
def test_arguments_owned_by_someone_else_are_never_donated():
    a = ember.constant(np.arange(6, dtype=np.float32))
    expected = np.arange(6, dtype=np.float32) * 2

    # *args: the tuple owns the tensor, and it lives on.
    args = (a * 2.0,)
    ember.exp(*args)
    np.testing.assert_array_equal(args[0].numpy(), expected)

    # functools.partial puts its argument into the caller's array.
    partial = functools.partial(ember.add, a * 2.0)
    partial(a)
    np.testing.assert_array_equal(partial.args[0].numpy(), expected)

    # A bound method puts its self there too.
    method = ember.negative.__get__(a * 2.0)
    method()
    np.testing.assert_array_equal(method.__self__.numpy(), expected)

    # list.sort calls its key with references borrowed from the list.
    b = ember.constant([-1.0])
    values = [b * 2.0, b * 3.0]
    values.sort(key=ember.abs)
    np.testing.assert_array_equal(values[0].numpy(), [-2.0])
    np.testing.assert_array_equal(values[1].numpy(), [-3.0])


# --- Function's call ----------------------------------------------------------


def test_function_is_a_function_base():
    f = ember.function(lambda t: t + t)
    assert isinstance(f, ember._C.FunctionBase)
    x = ember.constant([1.0, 2.0])
    np.testing.assert_array_equal(f(x).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(f.__call__(x).numpy(), [2.0, 4.0])


def test_function_calls_off_the_c_path():
    calls = []

    @ember.function
    def f(t, scale=2.0):
        calls.append(1)
        return t * scale

    x = ember.constant([1.0, 2.0])
    np.testing.assert_array_equal(f(x).numpy(), [2.0, 4.0])  # traced on this first call
    traced = len(calls)
    for _ in range(3):
        np.testing.assert_array_equal(f(x).numpy(), [2.0, 4.0])  # the C path: no Python body
    assert len(calls) == traced
    np.testing.assert_array_equal(f(x, scale=3.0).numpy(), [3.0, 6.0])  # keywords
    np.testing.assert_array_equal(f(t=x).numpy(), [2.0, 4.0])
    with pytest.raises(TypeError):
        f()  # a missing argument: Python's error

    ember.config.run_functions_eagerly(True)
    try:
        before = len(calls)
        f(x)
        assert len(calls) == before + 1  # eager: the body ran
    finally:
        ember.config.run_functions_eagerly(False)

    v = ember.Variable([3.0])
    with ember.GradientTape() as tape:
        y = f(v)  # under a tape: recorded, so it has a gradient
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2.0])

    @ember.function
    def outer(t):
        return f(t) + 1.0  # f traced inline: a trace is in progress

    np.testing.assert_array_equal(outer(x).numpy(), [3.0, 5.0])


def test_function_errors_surface_from_the_c_path():
    @ember.function
    def f(t):
        return ember.reshape(t, [3])

    with pytest.raises(Exception, match="reshape"):
        f(ember.constant([1.0, 2.0]))
    np.testing.assert_array_equal(f(ember.constant([1.0, 2.0, 3.0])).numpy(), [1.0, 2.0, 3.0])


def test_decorated_method():
    class Model:
        def __init__(self):
            self.scale = 3.0

        @ember.function
        def apply(self, t):
            return t * self.scale

    m = Model()
    np.testing.assert_array_equal(m.apply(ember.constant([1.0])).numpy(), [3.0])
    np.testing.assert_array_equal(m.apply(ember.constant([2.0])).numpy(), [6.0])

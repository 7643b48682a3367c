# Tests ember.Module against tf.Module's documented behaviour: tracking, order, name scopes, use in training.

import numpy as np
import pytest

import ember


class Dense(ember.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = ember.Variable(ember.ones([n_in, n_out]), name="w")
        self.b = ember.Variable(ember.zeros([n_out]), name="b")

    @ember.function
    def __call__(self, x):
        return ember.matmul(x, self.w) + self.b


class Net(ember.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(2, 3, name="first"), Dense(3, 1, name="second")]
        self.extra = {"z": ember.Variable(1.0, name="z"), "a": (ember.Variable(2.0, name="a", trainable=False),)}
        self.count = ember.Variable(0, name="count", trainable=False)


def test_default_name_is_snake_case_class_name():
    class MyFancyModule(ember.Module):
        pass

    assert MyFancyModule().name == "my_fancy_module"
    assert ember.Module().name == "module"
    assert ember.Module(name="named").name == "named"


def test_invalid_name_raises():
    with pytest.raises(ValueError, match="identifier"):
        ember.Module(name="not valid")


def test_tracks_attributes_lists_dicts_tuples_in_tf_order():
    net = Net()
    # Attributes by name (count, extra, layers); dict keys sorted; a module's own values before its submodules'.
    assert [v.name for v in net.variables] == ["count", "a", "z", "b", "w", "b", "w"]
    assert [v.name for v in net.trainable_variables] == ["z", "b", "w", "b", "w"]
    assert [v.name for v in net.non_trainable_variables] == ["count", "a"]
    assert [m.name for m in net.submodules] == ["first", "second"]


def test_submodules_depth_first_and_shared_values_once():
    a, b, c = ember.Module(name="a"), ember.Module(name="b"), ember.Module(name="c")
    a.b = b
    b.c = c
    shared = ember.Variable(1.0)
    a.v = shared
    c.v = shared
    assert a.submodules == (b, c)
    assert a.variables == (shared,)


def test_cycle_does_not_recurse_forever():
    a, b = ember.Module(name="a"), ember.Module(name="b")
    a.child = b
    b.parent = a
    b.v = ember.Variable(1.0)
    assert a.submodules == (b,)
    assert len(a.variables) == 1


def test_attribute_set_later_is_tracked():
    m = ember.Module()
    assert m.variables == ()
    m.v = ember.Variable(3.0)
    assert m.variables == (m.v,)


def test_name_scope_and_with_name_scope():
    class Scoped(ember.Module):
        @ember.Module.with_name_scope
        def where(self):
            return ember.get_current_name_scope()

    with ember.name_scope("outer"):
        m = Scoped(name="inner")
    assert m.name_scope.name == "outer/inner/"
    assert m.where() == "outer/inner"
    assert ember.get_current_name_scope() == ""


def test_optimizer_and_tape_train_a_module():
    layer = Dense(2, 1)
    opt = ember.optimizers.SGD(learning_rate=0.1)
    x = ember.constant([[1.0, 2.0]])
    with ember.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(layer.trainable_variables)
        loss = ember.reduce_sum(layer(x))
    grads = tape.gradient(loss, layer.trainable_variables)
    # trainable_variables is (b, w): d loss/d b = 1, d loss/d w = x^T.
    np.testing.assert_allclose(grads[0].numpy(), [1.0])
    np.testing.assert_allclose(grads[1].numpy(), [[1.0], [2.0]])
    opt.apply_gradients(zip(grads, layer.trainable_variables))
    np.testing.assert_allclose(layer.w.numpy(), [[0.9], [0.8]], rtol=1e-6)
    np.testing.assert_allclose(layer.b.numpy(), [-0.1], rtol=1e-6)


def test_function_method_traces_once_per_instance():
    class Counter(ember.Module):
        def __init__(self, scale):
            super().__init__()
            self.scale = ember.Variable(scale)

        @ember.function
        def __call__(self, x):
            return x * self.scale

    first, second = Counter(2.0), Counter(3.0)
    x = ember.constant([1.0, 2.0])
    for _ in range(3):
        np.testing.assert_allclose(first(x).numpy(), [2.0, 4.0])
        np.testing.assert_allclose(second(x).numpy(), [3.0, 6.0])
    assert Counter.__call__.experimental_get_tracing_count() == 2
    first.scale.assign(5.0)  # variables are read at each call, not frozen at trace time
    np.testing.assert_allclose(first(x).numpy(), [5.0, 10.0])
    assert Counter.__call__.experimental_get_tracing_count() == 2


def test_variables_made_in_the_name_scope_are_prefixed():
    class Lazy(ember.Module):
        @ember.Module.with_name_scope
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = ember.Variable(ember.ones([x.shape[1], 3]))
                self.b = ember.Variable(ember.zeros([3]), name="b")
            return ember.matmul(x, self.w) + self.b

    m = Lazy(name="my_module")
    m(ember.ones([1, 2]))
    assert m.w.name.startswith("my_module/Variable")  # TensorFlow: 'my_module/Variable:0'
    assert m.b.name == "my_module/b"
    assert ember.Variable(1.0, name="plain").name == "plain"

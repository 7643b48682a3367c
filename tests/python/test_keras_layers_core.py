"""ember.keras core layers: forward against NumPy, gradients against finite differences, shapes, configs."""

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import layers

from keras_helpers import check_layer_gradients


def _roundtrip(layer):
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    return clone


def test_dense_forward_matches_numpy_and_builds_from_input():
    layer = layers.Dense(3, activation="relu")
    assert not layer.built
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    y = layer(x).numpy()
    assert layer.built and layer.kernel.shape == (5, 3) and layer.bias.shape == (3,)
    np.testing.assert_allclose(y, np.maximum(x @ layer.kernel.numpy() + layer.bias.numpy(), 0), rtol=1e-5)
    assert [w.name for w in layer.weights] == ["kernel", "bias"]


def test_dense_on_rank_3_contracts_the_last_axis():
    layer = layers.Dense(2)
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(layer(x).numpy(), x @ layer.kernel.numpy(), rtol=1e-5, atol=1e-6)


def test_dense_gradients():
    layer = layers.Dense(3, activation="tanh", dtype="float64")
    check_layer_gradients(layer, np.random.default_rng(2).standard_normal((2, 4)))


def test_dense_config_roundtrip_and_errors():
    layer = layers.Dense(7, activation="softmax", use_bias=False, kernel_initializer="he_normal", name="d")
    clone = _roundtrip(layer)
    assert clone.units == 7 and clone.use_bias is False and clone.name == "d"
    with pytest.raises(ValueError):
        layers.Dense(0)


def test_symbolic_shapes_follow_keras():
    x = keras.Input((8, 8, 3))
    assert x.shape == (None, 8, 8, 3)
    assert layers.Flatten()(x).shape == (None, 192)
    assert layers.Reshape((64, 3))(x).shape == (None, 64, 3)
    assert layers.Reshape((-1, 3))(x).shape == (None, 64, 3)
    assert layers.Dense(5)(x).shape == (None, 8, 8, 5)
    assert layers.Dropout(0.5)(x).shape == (None, 8, 8, 3)
    ids = keras.Input((6,), dtype="int32")
    assert layers.Embedding(10, 4)(ids).shape == (None, 6, 4)
    assert layers.Concatenate()([x, x]).shape == (None, 8, 8, 6)
    assert layers.Add()([x, x]).shape == (None, 8, 8, 3)


def test_activation_flatten_reshape_rescaling_forward():
    x = np.random.default_rng(3).standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(layers.Activation("sigmoid")(x).numpy(), 1 / (1 + np.exp(-x)), rtol=1e-5)
    np.testing.assert_array_equal(layers.Flatten()(x).numpy(), x.reshape(2, 12))
    np.testing.assert_array_equal(layers.Reshape((4, 3))(x).numpy(), x.reshape(2, 4, 3))
    np.testing.assert_allclose(layers.Rescaling(1 / 255.0, offset=-1.0)(x).numpy(), x / 255.0 - 1.0, rtol=1e-6)
    for layer in (layers.Activation("relu"), layers.Flatten(), layers.Reshape((4, 3)), layers.Rescaling(0.5, 1.0)):
        _roundtrip(layer)


def test_dropout_only_when_training_and_scales_kept_values():
    layer = layers.Dropout(0.5)
    x = np.ones((200, 50), np.float32)
    np.testing.assert_array_equal(layer(x).numpy(), x)  # inference by default
    y = layer(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.4 < (y == 0).mean() < 0.6
    assert _roundtrip(layer).rate == 0.5


def test_embedding_forward_and_gradient():
    layer = layers.Embedding(5, 3)
    ids = np.array([[0, 4], [4, 2]], np.int32)
    out = layer(ids).numpy()
    table = layer.embeddings.numpy()
    np.testing.assert_array_equal(out, table[ids])
    assert np.abs(table).max() <= 0.05  # Keras' uniform(-0.05, 0.05)
    with ember.GradientTape() as tape:
        loss = ember.reduce_sum(layer(ids) * ember.constant(np.arange(12, dtype=np.float32).reshape(2, 2, 3)))
    grad = tape.gradient(loss, layer.embeddings)
    grad = ember.convert_to_tensor(grad).numpy()
    want = np.zeros((5, 3), np.float32)
    r = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    for (i, j), k in np.ndenumerate(ids):
        want[k] += r[i, j]
    np.testing.assert_allclose(grad, want)
    _roundtrip(layer)


def test_merging_layers():
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((2, 3), np.float32) * 2
    np.testing.assert_array_equal(layers.Add()([a, b]).numpy(), a + b)
    np.testing.assert_array_equal(layers.Subtract()([a, b]).numpy(), a - b)
    np.testing.assert_array_equal(layers.Multiply()([a, b]).numpy(), a * b)
    np.testing.assert_array_equal(layers.Average()([a, b]).numpy(), (a + b) / 2)
    np.testing.assert_array_equal(layers.Maximum()([a, b]).numpy(), np.maximum(a, b))
    np.testing.assert_array_equal(layers.Concatenate(axis=0)([a, b]).numpy(), np.concatenate([a, b]))
    assert _roundtrip(layers.Concatenate(axis=1)).axis == 1


def test_custom_layer_add_weight_trainable_and_training_argument():
    class Scale(layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
            self.count = self.add_weight(shape=(), initializer="zeros", trainable=False, name="count")

        def call(self, inputs, training=False):
            if training:
                self.count.assign_add(1.0)
            return inputs * self.w

    class Outer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Scale()

        def call(self, inputs):
            return self.inner(inputs)  # training flows in from the outer call

    layer = Outer()
    x = np.ones((2, 3), np.float32)
    layer(x, training=True)
    assert float(layer.inner.count.numpy()) == 1.0
    layer(x)
    assert float(layer.inner.count.numpy()) == 1.0
    assert [w.name for w in layer.trainable_weights] == ["w"]
    assert [w.name for w in layer.non_trainable_weights] == ["count"]
    assert isinstance(layer, ember.Module) and len(layer.variables) == 2
    layer.trainable = False
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 2
    assert layer.inner.trainable is False
    assert layer.count_params() == 4


def test_default_names_are_unique_and_reset_by_clear_session():
    keras.backend.clear_session()
    assert [layers.Dense(1).name for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    keras.backend.clear_session()
    assert layers.Dense(1).name == "dense"


def test_set_and_get_weights():
    layer = layers.Dense(2)
    layer(np.zeros((1, 3), np.float32))
    new = [np.ones((3, 2), np.float32), np.full((2,), 5.0, np.float32)]
    layer.set_weights(new)
    np.testing.assert_array_equal(layer(np.ones((1, 3), np.float32)).numpy(), [[8.0, 8.0]])
    with pytest.raises(ValueError):
        layer.set_weights(new[:1])

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


class _Pair(layers.Layer):
    """Feeds a merging layer two different tensors made from one input, for gradient checks."""

    def __init__(self, merge):
        super().__init__(dtype="float64")
        self.merge = merge

    def call(self, inputs):
        return self.merge([inputs, inputs * inputs])


@pytest.mark.parametrize("make, shape", [
    (lambda: layers.Activation("softplus", dtype="float64"), (2, 3)),
    (lambda: layers.Flatten(dtype="float64"), (2, 2, 3)),
    (lambda: layers.Reshape((3, 2), dtype="float64"), (2, 6)),
    (lambda: layers.Rescaling(0.5, offset=2.0, dtype="float64"), (2, 3)),
    (lambda: layers.AveragePooling2D(dtype="float64"), (1, 4, 4, 2)),
    (lambda: layers.AveragePooling1D(2, dtype="float64"), (1, 4, 2)),
    (lambda: layers.GlobalAveragePooling2D(dtype="float64"), (2, 3, 3, 2)),
    (lambda: layers.GlobalMaxPooling2D(dtype="float64"), (2, 3, 3, 2)),
    (lambda: layers.SimpleRNN(2, dtype="float64"), (2, 3, 2)),
    (lambda: _Pair(layers.Add(dtype="float64")), (2, 3)),
    (lambda: _Pair(layers.Multiply(dtype="float64")), (2, 3)),
    (lambda: _Pair(layers.Concatenate(dtype="float64")), (2, 3)),
    (lambda: _Pair(layers.Maximum(dtype="float64")), (2, 3)),
], ids=["activation", "flatten", "reshape", "rescaling", "avgpool2d", "avgpool1d", "gap2d", "gmp2d", "simplernn",
        "add", "multiply", "concatenate", "maximum"])
def test_layer_gradients_match_finite_differences(make, shape):
    check_layer_gradients(make(), np.random.default_rng(5).standard_normal(shape))


def test_dropout_gradient_is_the_mask_scaled():
    layer = layers.Dropout(0.25)
    x = ember.constant(np.random.default_rng(6).uniform(1.0, 2.0, (50, 8)).astype(np.float32))
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
        loss = ember.reduce_sum(y)
    grad = tape.gradient(loss, x).numpy()
    kept = y.numpy() != 0
    np.testing.assert_allclose(grad, np.where(kept, 1 / 0.75, 0.0), rtol=1e-6)


@pytest.mark.parametrize("layer, input_shape, output_shape", [
    (lambda: layers.Conv2D(5, 3, strides=2, padding="same"), (9, 9, 2), (None, 5, 5, 5)),
    (lambda: layers.Conv2D(5, (3, 1), dilation_rate=2), (9, 9, 2), (None, 5, 9, 5)),
    (lambda: layers.Conv1D(4, 3, strides=2), (9, 2), (None, 4, 4)),
    (lambda: layers.Conv2DTranspose(3, 3, strides=2), (4, 4, 2), (None, 9, 9, 3)),
    (lambda: layers.AveragePooling2D(3, strides=1, padding="same"), (5, 5, 2), (None, 5, 5, 2)),
    (lambda: layers.GlobalMaxPooling2D(), (5, 5, 2), (None, 2)),
    (lambda: layers.GlobalAveragePooling1D(), (7, 3), (None, 3)),
    (lambda: layers.GRU(6, return_sequences=True), (7, 3), (None, 7, 6)),
    (lambda: layers.LayerNormalization(), (7, 3), (None, 7, 3)),
])
def test_output_shapes_as_keras_documents(layer, input_shape, output_shape):
    assert layer()(keras.Input(input_shape)).shape == output_shape
    assert layer().compute_output_shape((None,) + input_shape) == output_shape


def test_lstm_return_state_shapes():
    seq, h, c = layers.LSTM(4, return_sequences=True, return_state=True)(keras.Input((5, 3)))
    assert (seq.shape, h.shape, c.shape) == ((None, 5, 4), (None, 4), (None, 4))


def test_weights_list_trainable_before_non_trainable():
    class Stats(layers.Layer):
        def build(self, input_shape):
            self.seen = self.add_weight(shape=(), initializer="zeros", trainable=False, name="seen")
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

        def call(self, inputs):
            return inputs * self.scale

    layer = Stats()
    layer(np.ones((1, 2), np.float32))
    assert [w.name for w in layer.weights] == ["scale", "seen"]  # Keras 3's order, not creation order


def test_normalization_adapt_given_stats_invert_and_save(tmp_path):
    rng = np.random.default_rng(7)
    data = (rng.random((100, 3)) * [1.0, 10.0, 100.0]).astype(np.float32)
    norm = layers.Normalization()
    norm.adapt(ember.data.Dataset.from_tensor_slices(data).batch(16))
    out = norm(data).numpy()
    np.testing.assert_allclose(out, (data - data.mean(0)) / data.std(0), rtol=1e-4, atol=1e-4)
    assert norm.trainable_weights == [] and len(norm.non_trainable_weights) == 2
    given = layers.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 4.0, 4.0])
    np.testing.assert_allclose(given(np.ones((1, 3), np.float32)).numpy(), [[0.0, -0.5, -1.0]])
    inverse = layers.Normalization(mean=2.0, variance=4.0, invert=True)
    np.testing.assert_allclose(inverse(np.zeros((1, 2), np.float32)).numpy(), [[2.0, 2.0]])
    model = keras.Sequential([keras.Input((3,)), norm, layers.Dense(1)])
    model.save(tmp_path / "n.keras")
    np.testing.assert_allclose(keras.models.load_model(tmp_path / "n.keras").predict(data, verbose=0),
                               model.predict(data, verbose=0), rtol=1e-6)


def test_activation_layers():
    x = np.array([[-3.0, -0.5, 0.5, 8.0]], np.float32)
    np.testing.assert_allclose(layers.ReLU(max_value=6.0)(x).numpy(), [[0, 0, 0.5, 6.0]])
    np.testing.assert_allclose(layers.ReLU(negative_slope=0.1, threshold=1.0)(x).numpy(),
                               np.where(x >= 1.0, x, 0.1 * (x - 1.0)), rtol=1e-6)
    np.testing.assert_allclose(layers.LeakyReLU()(x).numpy(), np.where(x > 0, x, 0.3 * x), rtol=1e-6)
    np.testing.assert_allclose(layers.ELU(0.5)(x).numpy(), np.where(x > 0, x, 0.5 * (np.exp(x) - 1)), rtol=1e-6)
    e = np.exp(x - x.max())
    np.testing.assert_allclose(layers.Softmax()(x).numpy(), e / e.sum(), rtol=1e-5)
    prelu = layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25))
    np.testing.assert_allclose(prelu(x).numpy(), np.where(x > 0, x, 0.25 * x), rtol=1e-6)
    assert prelu.alpha.shape == (4,) and len(prelu.trainable_weights) == 1
    check_layer_gradients(layers.PReLU(alpha_initializer=keras.initializers.Constant(0.3), dtype="float64"),
                          np.array([[-1.0, 0.5], [2.0, -0.7]]))
    for layer in (layers.ReLU(6.0), layers.LeakyReLU(0.2), layers.ELU(), layers.Softmax(axis=1), prelu):
        _roundtrip(layer)


def test_noise_and_spatial_dropout_layers():
    x = np.ones((64, 6, 8), np.float32)
    for layer in (layers.SpatialDropout1D(0.5), layers.GaussianNoise(0.3), layers.GaussianDropout(0.3)):
        np.testing.assert_array_equal(layer(x).numpy(), x)  # inference: identity
        assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
    y = layers.SpatialDropout1D(0.5)(x, training=True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert (y == y[:, :1, :]).all()  # one draw per example and channel, shared over the steps
    assert 0.4 < (y[:, 0] == 0).mean() < 0.6
    images = np.ones((32, 3, 3, 4), np.float32)
    z = layers.SpatialDropout2D(0.5)(images, training=True).numpy()
    assert (z == z[:, :1, :1, :]).all()
    noisy = layers.GaussianNoise(0.3)(x, training=True).numpy() - 1.0
    assert abs(noisy.std() - 0.3) < 0.03 and abs(noisy.mean()) < 0.03
    scaled = layers.GaussianDropout(0.3)(x, training=True).numpy()
    assert abs(scaled.mean() - 1.0) < 0.05 and abs(scaled.std() - np.sqrt(0.3 / 0.7)) < 0.05

"""ember.keras models: Sequential, the functional API, subclassed models, summary()."""

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import layers

RNG = np.random.default_rng(0)


def test_sequential_built_from_input_and_from_first_call():
    keras.backend.clear_session()
    model = keras.Sequential([keras.Input((4,)), layers.Dense(8, activation="relu"), layers.Dense(2)])
    assert model.built and model.output_shape == (None, 2)
    assert [layer.name for layer in model.layers] == ["dense", "dense_1"]
    assert model.count_params() == 4 * 8 + 8 + 8 * 2 + 2
    lazy = keras.Sequential()
    lazy.add(layers.Dense(3))
    lazy.add(layers.Dense(1))
    assert not lazy.built and lazy.weights == []
    x = RNG.standard_normal((5, 6)).astype(np.float32)
    y = lazy(x).numpy()
    assert lazy.built and y.shape == (5, 1) and lazy.output_shape == (None, 1)
    d0, d1 = lazy.layers
    np.testing.assert_allclose(y, (x @ d0.kernel.numpy() + d0.bias.numpy()) @ d1.kernel.numpy() + d1.bias.numpy(),
                               rtol=1e-5)
    first_input_shape = keras.Sequential([layers.Dense(2, input_shape=(3,))])
    assert first_input_shape.built and first_input_shape.output_shape == (None, 2)


def test_sequential_pop_and_errors():
    model = keras.Sequential([keras.Input((3,)), layers.Dense(4), layers.Dense(5)])
    model.pop()
    assert model.output_shape == (None, 4)
    with pytest.raises(TypeError):
        model.add("dense")


def test_functional_multi_input_multi_output():
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    shared = layers.Dense(4, name="shared")
    h = layers.Concatenate()([shared(a), layers.Dense(4)(b)])
    out1 = layers.Dense(1, name="out1")(h)
    out2 = layers.Dense(2, activation="softmax", name="out2")(h)
    model = keras.Model(inputs=[a, b], outputs=[out1, out2])
    assert isinstance(model, keras.Model) and type(model).__name__ == "Functional"
    assert model.output_names == ["out1", "out2"]
    assert [layer.name for layer in model.layers][:2] == ["a", "b"]
    xa, xb = RNG.standard_normal((4, 3)).astype(np.float32), RNG.standard_normal((4, 2)).astype(np.float32)
    y1, y2 = model([xa, xb])
    assert y1.shape == (4, 1) and y2.shape == (4, 2)
    np.testing.assert_allclose(y2.numpy().sum(-1), 1.0, rtol=1e-5)
    by_name = model({"a": xa, "b": xb})
    np.testing.assert_allclose(by_name[0].numpy(), y1.numpy(), rtol=1e-6)
    assert len(model.trainable_weights) == 8


def test_functional_model_nests_as_a_layer_and_shares_weights():
    inner_in = keras.Input((3,))
    inner = keras.Model(inner_in, layers.Dense(2)(inner_in), name="inner")
    x = keras.Input((3,))
    outer = keras.Model(x, layers.Dense(1)(inner(x)))
    assert len(outer.weights) == 4
    data = RNG.standard_normal((2, 3)).astype(np.float32)
    d = inner.layers[1]
    want = (data @ d.kernel.numpy() + d.bias.numpy()) @ outer.layers[2].kernel.numpy() + outer.layers[2].bias.numpy()
    np.testing.assert_allclose(outer(data).numpy(), want, rtol=1e-5)


def test_functional_rejects_outputs_not_from_its_inputs():
    a, b = keras.Input((2,)), keras.Input((2,))
    with pytest.raises(ValueError):
        keras.Model(a, layers.Add()([a, b]))


def test_subclassed_model_tracks_layers_and_training():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = layers.Dense(4, activation="relu", kernel_initializer="ones")  # all units active
            self.drop = layers.Dropout(0.5)
            self.out = layers.Dense(1)

        def call(self, inputs, training=False):
            return self.out(self.drop(self.hidden(inputs), training=training))

    net = Net()
    x = np.ones((64, 3), np.float32)
    y_infer = net(x).numpy()
    assert len(net.trainable_weights) == 4 and net.built
    np.testing.assert_array_equal(net(x).numpy(), y_infer)
    assert not np.allclose(net(x, training=True).numpy(), y_infer)
    assert isinstance(net, ember.Module) and len(net.submodules) >= 3


def test_summary_prints_keras_table(capsys):
    keras.backend.clear_session()
    model = keras.Sequential([keras.Input((784,)), layers.Dense(64, activation="relu"), layers.BatchNormalization(),
                              layers.Dense(10)], name="mlp")
    model.summary()
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == 'Model: "mlp"'
    assert "┃ Layer (type)" in lines[2] and "Output Shape" in lines[2] and "Param #" in lines[2]
    assert any("dense (Dense)" in l and "(None, 64)" in l and "50,240" in l for l in lines)
    assert any("batch_normalization (BatchNormalization)"[:31] in l and "256" in l for l in lines)
    assert " Total params: 51,146 (199.79 KB)" in lines
    assert " Trainable params: 51,018 (199.29 KB)" in lines
    assert " Non-trainable params: 128 (512.00 B)" in lines


def test_functional_summary_has_connections(capsys):
    keras.backend.clear_session()
    a = keras.Input((3,), name="a")
    out = layers.Dense(2, name="d")(a)
    keras.Model(a, out, name="f").summary()
    text = capsys.readouterr().out
    assert "Connected to" in text and "a[0][0]" in text and "d (Dense)" in text


def test_arithmetic_on_keras_tensors_records_layers(tmp_path):
    a = keras.Input((3,))
    b = layers.Dense(3)(a)
    out = 2.0 * (a + b) - 1.0
    model = keras.Model(a, 1.0 - out)
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    dense = model.layers[1]
    want = 1.0 - (2.0 * (x + x @ dense.kernel.numpy() + dense.bias.numpy()) - 1.0)
    np.testing.assert_allclose(model(x).numpy(), want, rtol=1e-5, atol=1e-6)
    model.save(tmp_path / "ops.keras")
    np.testing.assert_allclose(keras.models.load_model(tmp_path / "ops.keras")(x).numpy(), want, rtol=1e-5,
                               atol=1e-6)

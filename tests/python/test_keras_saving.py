"""ember.keras saving: the .keras archive, load_model, save/load_weights, get_config round trips."""

import io
import json
import zipfile

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import layers

RNG = np.random.default_rng(0)
try:
    import h5py  # noqa: F401 - an optional dependency: the archive holds model.weights.h5 with it, npz without
    WEIGHTS = "model.weights.h5"
except ImportError:
    WEIGHTS = "model.weights.npz"


def _archive_weights(path):
    """{path: array} of the weights in a .keras archive, whichever format it holds."""
    with zipfile.ZipFile(path) as z:
        data = z.read(WEIGHTS)
    if WEIGHTS.endswith(".npz"):
        with np.load(io.BytesIO(data)) as arrays:
            return {k: arrays[k] for k in arrays.files}
    out = {}
    with h5py.File(io.BytesIO(data), "r") as f:
        f.visititems(lambda name, node: out.__setitem__(name, node[()]) if hasattr(node, "shape") else None)
    return out


def _trained(model, x, y, loss="mse"):
    model.compile(keras.optimizers.Adam(0.01), loss, metrics=["mae"])
    model.fit(x, y, epochs=2, verbose=0)
    return model


def test_sequential_save_load_roundtrip(tmp_path):
    x = RNG.standard_normal((32, 6, 6, 1)).astype(np.float32)
    y = RNG.standard_normal((32, 2)).astype(np.float32)
    model = keras.Sequential([keras.Input((6, 6, 1)), layers.Conv2D(3, 3, activation="relu"),
                              layers.BatchNormalization(), layers.MaxPooling2D(), layers.Flatten(),
                              layers.Dropout(0.1), layers.Dense(2)], name="convnet")
    _trained(model, x, y)
    path = tmp_path / "m.keras"
    model.save(path)
    with zipfile.ZipFile(path) as z:
        assert set(z.namelist()) == {"config.json", "metadata.json", WEIGHTS}
        config = json.loads(z.read("config.json"))
        metadata = json.loads(z.read("metadata.json"))
    assert config["class_name"] == "Sequential" and config["config"]["name"] == "convnet"
    assert [l["class_name"] for l in config["config"]["layers"]] == [
        "InputLayer", "Conv2D", "BatchNormalization", "MaxPooling2D", "Flatten", "Dropout", "Dense"]
    assert config["compile_config"]["loss"] == "mse" and "keras_version" in metadata
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
    assert [type(l) for l in loaded.layers] == [type(l) for l in model.layers]
    assert loaded.compiled and isinstance(loaded.optimizer, keras.optimizers.Adam)
    assert loaded.optimizer.learning_rate == pytest.approx(0.01)
    assert np.isfinite(loaded.evaluate(x, y, verbose=0)[0])  # compiled: it can evaluate and train on


def test_functional_multi_io_save_load(tmp_path):
    a, b = keras.Input((4,), name="a"), keras.Input((3,), name="b")
    shared = layers.Dense(5, activation="tanh")
    h = layers.Concatenate()([shared(a), layers.Dense(5)(b)])
    h = layers.Add()([h, layers.Dense(10)(h)])
    model = keras.Model([a, b], [layers.Dense(1, name="o1")(h), layers.Dense(2, name="o2")(shared(a))])
    xa, xb = RNG.standard_normal((8, 4)).astype(np.float32), RNG.standard_normal((8, 3)).astype(np.float32)
    want = model.predict([xa, xb], verbose=0)
    model.save(tmp_path / "f.keras")
    loaded = keras.models.load_model(tmp_path / "f.keras", compile=False)
    got = loaded.predict([xa, xb], verbose=0)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    assert loaded.output_names == ["o1", "o2"] and not loaded.compiled
    assert len(loaded.weights) == len(model.weights)
    config = model.get_config()
    clone = keras.Model.from_config(config)
    assert clone.get_config() == config and type(clone).__name__ == "Functional"


def test_subclassed_model_with_custom_objects(tmp_path):
    class Residual(keras.Model):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.inner = layers.Dense(units)

        def call(self, inputs):
            return inputs + self.inner(inputs)

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    model = Residual(3)
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    want = model(x).numpy()
    model.save(tmp_path / "r.keras")
    with pytest.raises(ValueError, match="custom_objects"):
        keras.models.load_model(tmp_path / "r.keras")
    loaded = keras.models.load_model(tmp_path / "r.keras", custom_objects={"Residual": Residual})
    np.testing.assert_allclose(loaded(x).numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("suffix", [".weights.h5", ".weights.npz"])
def test_save_and_load_weights(tmp_path, suffix):
    if suffix == ".weights.h5":
        pytest.importorskip("h5py")

    def make():
        return keras.Sequential([keras.Input((3,)), layers.Dense(4), layers.Dense(1)])
    model, other = make(), make()
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    assert not np.allclose(model(x).numpy(), other(x).numpy())
    model.save_weights(tmp_path / f"w{suffix}")
    other.load_weights(tmp_path / f"w{suffix}")
    np.testing.assert_array_equal(model(x).numpy(), other(x).numpy())
    wrong = keras.Sequential([keras.Input((3,)), layers.Dense(5), layers.Dense(1)])
    with pytest.raises(ValueError):
        wrong.load_weights(tmp_path / f"w{suffix}")
    with pytest.raises(ValueError, match=".keras"):
        model.save(tmp_path / "model.h5")


ALL_LAYERS = [
    layers.Dense(3, activation="relu"), layers.Activation("tanh"), layers.Flatten(), layers.Reshape((2, -1)),
    layers.Dropout(0.3), layers.Conv1D(2, 3, padding="causal"), layers.Conv2D(2, (3, 1), strides=2),
    layers.Conv2DTranspose(2, 3, strides=2, padding="same"), layers.MaxPooling1D(2), layers.MaxPooling2D(),
    layers.AveragePooling1D(3), layers.AveragePooling2D((2, 1)), layers.GlobalAveragePooling1D(),
    layers.GlobalAveragePooling2D(), layers.GlobalMaxPooling2D(), layers.BatchNormalization(momentum=0.9),
    layers.LayerNormalization(epsilon=1e-5), layers.Embedding(10, 4), layers.Add(), layers.Concatenate(axis=1),
    layers.Rescaling(0.5, offset=1.0), layers.MultiHeadAttention(2, 4), layers.LSTM(3, return_sequences=True),
    layers.GRU(2, go_backwards=True), layers.SimpleRNN(2), layers.InputLayer(shape=(3,)),
    layers.TimeDistributed(layers.Dense(2)), layers.Bidirectional(layers.LSTM(2), merge_mode="ave"),
]


@pytest.mark.parametrize("layer", ALL_LAYERS, ids=lambda l: type(l).__name__)
def test_every_layer_config_roundtrips_through_json(layer):
    config = json.loads(json.dumps(keras.layers.serialize(layer)))
    clone = keras.layers.deserialize(config)
    assert type(clone) is type(layer)
    assert clone.get_config() == layer.get_config()


def test_ember_checkpoint_saves_a_keras_model_and_its_optimizer(tmp_path):
    def make():
        model = keras.Sequential([keras.Input((3,)), layers.Dense(4), layers.BatchNormalization(), layers.Dense(1)])
        model.compile("adam", "mse")
        return model
    x, y = RNG.random((16, 3)).astype(np.float32), RNG.random((16, 1)).astype(np.float32)
    model = make()
    model.fit(x, y, epochs=2, verbose=0)
    path = ember.train.Checkpoint(model=model, optimizer=model.optimizer).save(str(tmp_path / "ckpt"))
    other = make()
    other.fit(x[:1], y[:1], epochs=1, verbose=0)  # make the optimizer's slots
    ember.train.Checkpoint(model=other, optimizer=other.optimizer).restore(path)
    np.testing.assert_array_equal(other.predict(x, verbose=0), model.predict(x, verbose=0))
    assert int(other.optimizer.iterations.numpy()) == int(model.optimizer.iterations.numpy())


def test_load_model_restores_the_optimizer_state_so_training_resumes_exactly(tmp_path):
    x = RNG.standard_normal((32, 3)).astype(np.float32)
    y = RNG.standard_normal((32, 1)).astype(np.float32)
    model = keras.Sequential([keras.Input((3,)), layers.Dense(4, activation="tanh"), layers.Dense(1)])
    model.compile(keras.optimizers.Adam(0.05), "mse")
    model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=0)
    model.save(tmp_path / "m.keras")
    arrays = _archive_weights(tmp_path / "m.keras")
    assert int(arrays["optimizer/vars/0"]) == 8  # iterations
    loaded = keras.models.load_model(tmp_path / "m.keras")
    assert int(loaded.optimizer.iterations.numpy()) == 8
    model.fit(x, y, epochs=1, batch_size=8, shuffle=False, verbose=0)
    loaded.fit(x, y, epochs=1, batch_size=8, shuffle=False, verbose=0)
    for got, want in zip(loaded.get_weights(), model.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_compile_config_with_loss_and_metric_objects_and_per_output_dicts(tmp_path):
    x = RNG.random((8, 3)).astype(np.float32)
    y = np.array([0, 1] * 4)
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    model.compile(keras.optimizers.SGD(0.1, momentum=0.9),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", keras.metrics.SparseTopKCategoricalAccuracy(k=1)])
    model.fit(x, y, epochs=1, verbose=0)
    model.save(tmp_path / "a.keras")
    loaded = keras.models.load_model(tmp_path / "a.keras")
    assert isinstance(loaded.loss, keras.losses.SparseCategoricalCrossentropy)
    assert loaded.evaluate(x, y, verbose=0, return_dict=True) == pytest.approx(
        model.evaluate(x, y, verbose=0, return_dict=True))

    a = keras.Input((3,))
    two = keras.Model(a, [layers.Dense(1, name="r")(a), layers.Dense(2, name="c")(a)])
    two.compile("adam", loss={"r": "mse", "c": keras.losses.SparseCategoricalCrossentropy(from_logits=True)},
                metrics={"c": ["accuracy"]}, loss_weights={"r": 0.3, "c": 1.0})
    targets = {"r": x[:, :1], "c": y}
    two.fit(x, targets, epochs=1, verbose=0)
    two.save(tmp_path / "b.keras")
    again = keras.models.load_model(tmp_path / "b.keras")
    assert again.evaluate(x, targets, verbose=0, return_dict=True) == pytest.approx(
        two.evaluate(x, targets, verbose=0, return_dict=True))


def test_nested_models_save_and_load(tmp_path):
    i = keras.Input((3,))
    inner = keras.Model(i, layers.Dense(2)(i), name="inner")
    x = keras.Input((3,))
    outer = keras.Model(x, layers.Dense(1)(inner(x)), name="outer")
    stacked = keras.Sequential([keras.Input((3,)), inner, layers.Dense(2)], name="stacked")
    data = RNG.random((4, 3)).astype(np.float32)
    for model in (outer, stacked):
        model.save(tmp_path / f"{model.name}.keras")
        loaded = keras.models.load_model(tmp_path / f"{model.name}.keras")
        assert type(loaded) is type(model) and len(loaded.weights) == 4
        np.testing.assert_allclose(loaded.predict(data, verbose=0), model.predict(data, verbose=0), rtol=1e-6)


def test_files_are_written_atomically_and_by_the_chief_alone(tmp_path, monkeypatch):
    # Note [Keras files from one worker]: a failed write leaves the old file
    # whole, and a non-chief worker of a multi-worker job writes nothing.
    from ember.train import _chief, _format
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    path = tmp_path / "m.keras"
    model.save(path)
    before = path.read_bytes()
    model.layers[0].kernel.assign(np.ones((3, 2), np.float32))

    def failing_write(f, chunk):
        f.write(chunk[: len(chunk) // 2])
        raise OSError("disk full")

    monkeypatch.setattr(_format, "write_chunk", failing_write)
    with pytest.raises(OSError, match="disk full"):
        model.save(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.keras"]  # no temporary file left
    monkeypatch.undo()

    monkeypatch.setattr(_chief, "_chief", [False])  # a non-chief worker
    model.save(tmp_path / "other.keras")
    model.save_weights(tmp_path / "other.weights.npz")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.keras"]
    monkeypatch.setattr(_chief, "_chief", [True])  # the chief
    model.save_weights(tmp_path / "w.weights.npz")
    fresh = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    fresh.load_weights(tmp_path / "w.weights.npz")
    np.testing.assert_array_equal(fresh.layers[0].kernel.numpy(), np.ones((3, 2), np.float32))

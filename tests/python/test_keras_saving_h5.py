"""ember.keras HDF5 weights: Keras 3's `.weights.h5` layout, `.keras` archives holding model.weights.h5,
files laid out by hand as Keras writes them, and the clear error without h5py (an optional dependency)."""

import io
import json
import sys
import zipfile

import numpy as np
import pytest

from ember import keras
from ember.keras import layers

h5py = pytest.importorskip("h5py")
RNG = np.random.default_rng(7)


def _datasets(source):
    """{path: array} of every dataset in an HDF5 file (a path or bytes)."""
    out = {}
    with h5py.File(io.BytesIO(source) if isinstance(source, bytes) else source, "r") as f:
        f.visititems(lambda name, node: out.__setitem__(name, node[()]) if hasattr(node, "shape") else None)
    return out


def _groups(path):
    out = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, node: None if hasattr(node, "shape") else out.append(name))
    return set(out)


def _mlp():
    return keras.Sequential([keras.Input((3,)), layers.Dense(4, activation="relu"), layers.Dropout(0.5),
                             layers.Dense(2)])


def test_save_weights_writes_keras_3_paths(tmp_path):
    model = keras.Sequential([keras.Input((6, 6, 1)), layers.Conv2D(2, 3), layers.BatchNormalization(),
                              layers.Flatten(), layers.Dense(3), layers.Dense(1)])
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    arrays = _datasets(path)
    assert sorted(arrays) == sorted(
        ["layers/conv2d/vars/0", "layers/conv2d/vars/1"] +
        [f"layers/batch_normalization/vars/{i}" for i in range(4)] +
        ["layers/dense/vars/0", "layers/dense/vars/1", "layers/dense_1/vars/0", "layers/dense_1/vars/1"])
    # Keras makes a `vars` group for every layer it visits, and for the model itself.
    assert {"vars", "layers/flatten/vars", "layers/dense/vars"} <= _groups(path)
    bn = model.layers[1]
    for i, v in enumerate([bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance]):
        np.testing.assert_array_equal(arrays[f"layers/batch_normalization/vars/{i}"], v.numpy())
    np.testing.assert_array_equal(arrays["layers/dense_1/vars/0"], model.layers[-1].kernel.numpy())


def test_rnn_and_wrapper_weights_sit_where_keras_puts_them(tmp_path):
    model = keras.Sequential([keras.Input((5, 3)), layers.LSTM(4, return_sequences=True),
                              layers.Bidirectional(layers.GRU(2)), layers.Dense(1)])
    model.save_weights(tmp_path / "r.weights.h5")
    arrays = _datasets(tmp_path / "r.weights.h5")
    assert arrays["layers/lstm/cell/vars/0"].shape == (3, 16)
    assert arrays["layers/lstm/cell/vars/2"].shape == (16,)
    assert arrays["layers/bidirectional/forward_layer/cell/vars/2"].shape == (2, 6)
    assert "layers/bidirectional/backward_layer/cell/vars/1" in arrays
    assert not any(k.startswith("layers/lstm/vars/") for k in arrays)


def test_round_trip_through_weights_h5(tmp_path):
    model, other = _mlp(), _mlp()
    x = RNG.standard_normal((6, 3)).astype(np.float32)
    assert not np.allclose(model.predict(x, verbose=0), other.predict(x, verbose=0))
    model.save_weights(tmp_path / "w.weights.h5")
    other.load_weights(tmp_path / "w.weights.h5")
    np.testing.assert_array_equal(other.predict(x, verbose=0), model.predict(x, verbose=0))
    with pytest.raises(FileExistsError):
        model.save_weights(tmp_path / "w.weights.h5", overwrite=False)
    with pytest.raises(ValueError, match="weights.h5"):
        model.save_weights(tmp_path / "w.h5")


def _keras_layout_mlp(path, w1, b1, w2, b2):
    """A weights file built by hand as Keras 3 lays it out for Sequential([Dense, Dropout, Dense])."""
    with h5py.File(path, "w") as f:
        f.create_group("vars")
        f.create_group("layers/dropout/vars")
        for name, arrays in (("dense", (w1, b1)), ("dense_1", (w2, b2))):
            group = f.create_group(f"layers/{name}/vars")
            for i, a in enumerate(arrays):
                group.create_dataset(str(i), data=a)
        f.create_group("optimizer/vars")


def test_loads_a_file_laid_out_as_keras_writes_it(tmp_path):
    w1, b1 = RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    w2, b2 = RNG.standard_normal((4, 2)).astype(np.float32), RNG.standard_normal(2).astype(np.float32)
    _keras_layout_mlp(tmp_path / "k.weights.h5", w1, b1, w2, b2)
    model = _mlp()
    model.load_weights(tmp_path / "k.weights.h5")
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    want = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    np.testing.assert_allclose(model.predict(x, verbose=0), want, rtol=1e-5, atol=1e-6)


def _np_lstm(x, kernel, recurrent, bias):
    units = recurrent.shape[0]
    h = np.zeros((x.shape[0], units), np.float32)
    c = np.zeros_like(h)
    sigmoid = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ recurrent + bias
        i, f, g, o = np.split(z, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
    return h


def test_loads_keras_lstm_cell_weights(tmp_path):
    kernel = RNG.standard_normal((3, 8)).astype(np.float32) * 0.5
    recurrent = RNG.standard_normal((2, 8)).astype(np.float32) * 0.5
    bias = RNG.standard_normal(8).astype(np.float32)
    with h5py.File(tmp_path / "l.weights.h5", "w") as f:
        f.create_group("vars")
        f.create_group("layers/lstm/vars")
        cell = f.create_group("layers/lstm/cell/vars")
        for i, a in enumerate((kernel, recurrent, bias)):
            cell.create_dataset(str(i), data=a)
    model = keras.Sequential([keras.Input((4, 3)), layers.LSTM(2)])
    model.load_weights(tmp_path / "l.weights.h5")
    x = RNG.standard_normal((3, 4, 3)).astype(np.float32)
    np.testing.assert_allclose(model.predict(x, verbose=0), _np_lstm(x, kernel, recurrent, bias), rtol=1e-5,
                               atol=1e-6)


def _keras3_config():
    """config.json of Sequential([Input((3,)), Dense(4, relu), Dropout(0.5), Dense(2)]) compiled with
    SGD and mse, in the form Keras 3 writes it (dtype policies, initializer dicts, build configs)."""
    policy = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": None}

    def initializer(name, config):
        return {"module": "keras.initializers", "class_name": name, "config": config, "registered_name": None}

    def dense(name, units, activation, fan_in):
        return {"module": "keras.layers", "class_name": "Dense", "registered_name": None,
                "config": {"name": name, "trainable": True, "dtype": policy, "units": units,
                           "activation": activation, "use_bias": True,
                           "kernel_initializer": initializer("GlorotUniform", {"seed": None}),
                           "bias_initializer": initializer("Zeros", {}), "kernel_regularizer": None,
                           "bias_regularizer": None, "kernel_constraint": None, "bias_constraint": None},
                "build_config": {"input_shape": [None, fan_in]}}

    layers_config = [
        {"module": "keras.layers", "class_name": "InputLayer", "registered_name": None,
         "config": {"batch_shape": [None, 3], "dtype": "float32", "sparse": False, "name": "input_layer"}},
        dense("dense", 4, "relu", 3),
        {"module": "keras.layers", "class_name": "Dropout", "registered_name": None,
         "config": {"name": "dropout", "trainable": True, "dtype": policy, "rate": 0.5, "seed": None,
                    "noise_shape": None}, "build_config": {"input_shape": [None, 4]}},
        dense("dense_1", 2, "linear", 4)]
    sgd = {"name": "SGD", "learning_rate": 0.01, "weight_decay": None, "clipnorm": None, "global_clipnorm": None,
           "clipvalue": None, "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
           "loss_scale_factor": None, "gradient_accumulation_steps": None, "momentum": 0.0, "nesterov": False}
    return {"module": "keras", "class_name": "Sequential", "registered_name": None,
            "config": {"name": "sequential", "trainable": True, "dtype": policy, "layers": layers_config},
            "build_config": {"input_shape": [None, 3]},
            "compile_config": {"optimizer": {"module": "keras.optimizers", "class_name": "SGD", "config": sgd,
                                             "registered_name": None},
                               "loss": "mse", "loss_weights": None, "metrics": None, "weighted_metrics": None,
                               "run_eagerly": False, "steps_per_execution": 1, "jit_compile": False}}


def test_load_model_reads_a_keras_archive_holding_model_weights_h5(tmp_path):
    w1, b1 = RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    w2, b2 = RNG.standard_normal((4, 2)).astype(np.float32), RNG.standard_normal(2).astype(np.float32)
    _keras_layout_mlp(tmp_path / "w.h5", w1, b1, w2, b2)
    with h5py.File(tmp_path / "w.h5", "a") as f:  # Keras' optimizer: iterations and learning_rate
        f["optimizer/vars"].create_dataset("0", data=np.int64(3))
        f["optimizer/vars"].create_dataset("1", data=np.float32(0.01))
    with zipfile.ZipFile(tmp_path / "k.keras", "w") as z:
        z.writestr("metadata.json", json.dumps({"keras_version": "3.6.0", "date_saved": "2026-01-01@00:00:00"}))
        z.writestr("config.json", json.dumps(_keras3_config()))
        z.write(tmp_path / "w.h5", "model.weights.h5")
    with pytest.warns(UserWarning, match="optimizer"):  # Keras keeps other optimizer variables than Ember
        model = keras.models.load_model(tmp_path / "k.keras")
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(model.predict(x, verbose=0), np.maximum(x @ w1 + b1, 0) @ w2 + b2, rtol=1e-5,
                               atol=1e-6)
    assert [type(layer).__name__ for layer in model.layers] == ["Dense", "Dropout", "Dense"]
    assert isinstance(model.optimizer, keras.optimizers.SGD) and model.optimizer.learning_rate == pytest.approx(0.01)
    bad = _keras3_config()
    bad["compile_config"]["optimizer"]["config"]["use_ema"] = True
    with pytest.raises(ValueError, match="use_ema"):
        keras.optimizers.deserialize(bad["compile_config"]["optimizer"])


def test_keras_archive_holds_model_weights_h5_with_the_optimizer_state(tmp_path):
    x = RNG.standard_normal((16, 3)).astype(np.float32)
    y = RNG.standard_normal((16, 2)).astype(np.float32)
    model = _mlp()
    model.compile(keras.optimizers.Adam(0.01), "mse")
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        assert set(z.namelist()) == {"config.json", "metadata.json", "model.weights.h5"}
        arrays = _datasets(z.read("model.weights.h5"))
    assert int(arrays["optimizer/vars/0"]) == 4
    np.testing.assert_array_equal(arrays["layers/dense/vars/0"], model.layers[0].kernel.numpy())
    loaded = keras.models.load_model(tmp_path / "m.keras")
    assert int(loaded.optimizer.iterations.numpy()) == 4
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    fresh = _mlp()
    fresh.load_weights(tmp_path / "m.keras")  # load_weights reads a .keras archive too
    np.testing.assert_array_equal(fresh.predict(x, verbose=0), model.predict(x, verbose=0))


def test_mismatched_files_are_refused(tmp_path):
    _mlp().save_weights(tmp_path / "w.weights.h5")
    wider = keras.Sequential([keras.Input((3,)), layers.Dense(5), layers.Dense(2)])
    with pytest.raises(ValueError, match="shape"):
        wider.load_weights(tmp_path / "w.weights.h5")
    deeper = keras.Sequential([keras.Input((3,)), layers.Dense(4), layers.Dense(2), layers.Dense(1)])
    with pytest.raises(ValueError, match="layers/dense_2/vars"):
        deeper.load_weights(tmp_path / "w.weights.h5")


def test_npz_written_by_earlier_ember_versions_still_loads(tmp_path):
    model = _mlp()
    arrays = {f"_stack/{i}/vars/{j}": v.numpy() for i, layer in enumerate(model.layers)
              for j, v in enumerate(layer._own_weights)}
    with open(tmp_path / "old.weights.h5", "wb") as f:  # npz content under the Keras name, as Ember wrote it
        np.savez(f, **arrays)
    other = _mlp()
    other.load_weights(tmp_path / "old.weights.h5")
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_array_equal(other.predict(x, verbose=0), model.predict(x, verbose=0))


def test_without_h5py(tmp_path, monkeypatch):
    model = _mlp()
    model.save_weights(tmp_path / "w.weights.h5")
    monkeypatch.setitem(sys.modules, "h5py", None)  # `import h5py` now fails as if it were not installed
    with pytest.raises(ImportError, match="h5py"):
        model.save_weights(tmp_path / "x.weights.h5")
    with pytest.raises(ImportError, match="pip install h5py"):
        _mlp().load_weights(tmp_path / "w.weights.h5")
    model.save(tmp_path / "m.keras")  # the archive falls back to npz
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        assert "model.weights.npz" in z.namelist()
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    np.testing.assert_array_equal(keras.models.load_model(tmp_path / "m.keras").predict(x, verbose=0),
                                  model.predict(x, verbose=0))
    model.save_weights(tmp_path / "w.weights.npz")
    other = _mlp()
    other.load_weights(tmp_path / "w.weights.npz")
    np.testing.assert_array_equal(other.predict(x, verbose=0), model.predict(x, verbose=0))

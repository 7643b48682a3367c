"""keras.callbacks.TensorBoard: the event files under log_dir/train and log_dir/validation, read back with
Ember's TFRecord reader and decoded."""

import json
import os

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import callbacks, layers
from ember.summary._event import read_events

RNG = np.random.default_rng(11)


def _data(n=32):
    x = RNG.standard_normal((n, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.1).astype(np.float32)
    return x, y


def _model():
    model = keras.Sequential([keras.Input((3,)), layers.Dense(4, activation="tanh"), layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
    return model


def _scalars(directory):
    """{tag: [(step, value)]} of the scalar summaries in the one event file of a directory."""
    (name,) = os.listdir(directory)
    out = {}
    for event in read_events(os.path.join(directory, name))[1:]:
        for v in event["summary"]["value"]:
            if v["metadata"]["plugin_data"]["plugin_name"] == "scalars":
                value = float(ember.io.parse_tensor(v["tensor"], ember.float32).numpy())
                out.setdefault(v["tag"], []).append((event["step"], value))
    return out


def _tensors(directory, plugin, dtype):
    (name,) = os.listdir(directory)
    return [(event["step"], v["tag"], ember.io.parse_tensor(v["tensor"], dtype).numpy())
            for event in read_events(os.path.join(directory, name))[1:] for v in event["summary"]["value"]
            if v["metadata"]["plugin_data"]["plugin_name"] == plugin]


def test_epoch_scalars_in_train_and_validation_dirs(tmp_path):
    x, y = _data()
    model = _model()
    board = callbacks.TensorBoard(log_dir=str(tmp_path), write_steps_per_second=True)
    history = model.fit(x[:24], y[:24], validation_data=(x[24:], y[24:]), epochs=3, batch_size=8, verbose=0,
                        callbacks=[board])
    assert sorted(os.listdir(tmp_path)) == ["train", "validation"]
    train, val = _scalars(tmp_path / "train"), _scalars(tmp_path / "validation")
    assert sorted(train) == ["epoch_learning_rate", "epoch_loss", "epoch_mae", "epoch_steps_per_second"]
    assert all(v > 0 for _, v in train["epoch_steps_per_second"])
    for key in ("loss", "mae"):
        assert [s for s, _ in train[f"epoch_{key}"]] == [0, 1, 2]
        np.testing.assert_allclose([v for _, v in train[f"epoch_{key}"]], history.history[key], rtol=1e-6)
        np.testing.assert_allclose([v for _, v in val[f"epoch_{key}"]], history.history[f"val_{key}"], rtol=1e-6)
    assert [v for _, v in train["epoch_learning_rate"]] == pytest.approx([0.05] * 3)
    # After each validation pass: the evaluation logs at the optimizer's iteration count (3 batches an epoch).
    assert [s for s, _ in val["evaluation_loss_vs_iterations"]] == [3, 6, 9]
    np.testing.assert_allclose([v for _, v in val["evaluation_loss_vs_iterations"]], history.history["val_loss"],
                               rtol=1e-6)
    assert "batch_loss" not in train  # update_freq="epoch"


def test_batch_scalars_every_update_freq_batches(tmp_path):
    x, y = _data()
    model = _model()
    seen = []
    spy = callbacks.LambdaCallback(on_batch_end=lambda batch, logs: seen.append(logs["loss"]))
    model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=0,
              callbacks=[spy, callbacks.TensorBoard(str(tmp_path), update_freq=3, write_graph=False)])
    train = _scalars(tmp_path / "train")
    # 8 batches in all; the global batch count goes on across epochs: batches 3 and 6.
    assert [s for s, _ in train["batch_loss"]] == [3, 6]
    np.testing.assert_allclose([v for _, v in train["batch_loss"]], [seen[2], seen[5]], rtol=1e-6)
    assert [s for s, _ in train["batch_mae"]] == [3, 6]
    with pytest.raises(ValueError, match="update_freq"):
        callbacks.TensorBoard(str(tmp_path), update_freq=0)


def test_weight_histograms_and_model_graph(tmp_path):
    x, y = _data()
    model = _model()
    kernels = []
    spy = callbacks.LambdaCallback(on_epoch_end=lambda e, logs: kernels.append(model.layers[0].kernel.numpy().copy()))
    model.fit(x, y, epochs=3, batch_size=16, verbose=0,
              callbacks=[spy, callbacks.TensorBoard(str(tmp_path), histogram_freq=2)])
    histograms = _tensors(tmp_path / "train", "histograms", ember.float64)
    dense = model.layers[0].name
    tags = sorted({t for _, t, _ in histograms})
    assert tags == sorted(f"{layer.name}/{w}/histogram" for layer in model.layers for w in ("kernel", "bias"))
    kernel_hists = [(s, h) for s, t, h in histograms if t == f"{dense}/kernel/histogram"]
    assert [s for s, _ in kernel_hists] == [0, 2]
    for (step, table), kernel in zip(kernel_hists, (kernels[0].astype(np.float64), kernels[2].astype(np.float64))):
        counts, edges = np.histogram(kernel, bins=30, range=(kernel.min(), kernel.max()))
        np.testing.assert_allclose(table, np.stack([edges[:-1], edges[1:], counts], axis=1), rtol=1e-6)
    graph = _tensors(tmp_path / "train", "graph_keras_model", ember.string)
    assert len(graph) == 1 and graph[0][:2] == (0, "keras")
    config = json.loads(graph[0][2])
    assert config["class_name"] == "Sequential"

"""ember.keras callbacks: History, EarlyStopping, ModelCheckpoint, ReduceLROnPlateau, LambdaCallback, CSVLogger."""

import os

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import callbacks, layers


def regression(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    return x, (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)


def linear_model(lr=0.05):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    model.compile(keras.optimizers.SGD(lr), "mse")
    return model


class Scripted(callbacks.Callback):
    """Overwrites the monitored value with a script, so the stopping rules are tested exactly."""

    def __init__(self, values, key="val_loss"):
        super().__init__()
        self.values, self.key = values, key

    def on_epoch_end(self, epoch, logs=None):
        logs[self.key] = self.values[epoch]


def test_early_stopping_stops_after_patience_and_restores_best_weights():
    x, y = regression()
    model = linear_model()
    weights = []
    record = callbacks.LambdaCallback(on_epoch_end=lambda e, logs: weights.append(model.get_weights()))
    stop = callbacks.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True)
    history = model.fit(x, y, epochs=20, verbose=0,
                        callbacks=[Scripted([5.0, 3.0, 1.0, 2.0, 1.5, 0.5, 0.1]), record, stop])
    assert history.epoch == [0, 1, 2, 3, 4]  # no improvement on 1.0 for 2 epochs
    assert stop.stopped_epoch == 4 and stop.best == 1.0
    for got, want in zip(model.get_weights(), weights[2]):
        np.testing.assert_array_equal(got, want)


def test_early_stopping_mode_max_and_min_delta():
    x, y = regression()
    stop = callbacks.EarlyStopping(monitor="val_accuracy", patience=1, min_delta=0.1)
    assert stop.mode == "max"
    history = linear_model().fit(x, y, epochs=10, verbose=0,
                                 callbacks=[Scripted([0.5, 0.55, 0.58, 0.9], "val_accuracy"), stop])
    assert history.epoch == [0, 1]


def test_model_checkpoint_writes_every_epoch_and_best_only(tmp_path):
    x, y = regression()
    model = linear_model()
    pattern = str(tmp_path / "m-{epoch:02d}.keras")
    model.fit(x, y, epochs=3, verbose=0, callbacks=[callbacks.ModelCheckpoint(pattern, monitor="loss")])
    assert sorted(os.listdir(tmp_path)) == ["m-01.keras", "m-02.keras", "m-03.keras"]
    restored = keras.models.load_model(tmp_path / "m-03.keras")
    np.testing.assert_allclose(restored.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
    try:
        import h5py  # noqa: F401
        best = tmp_path / "best.weights.h5"
    except ImportError:  # h5py is optional; Ember's npz weights need nothing
        best = tmp_path / "best.weights.npz"
    weights = []
    check = callbacks.ModelCheckpoint(str(best), monitor="val_loss", save_best_only=True, save_weights_only=True)
    spy = callbacks.LambdaCallback(on_epoch_end=lambda e, logs: weights.append(model.get_weights()))
    model.fit(x, y, epochs=4, verbose=0, callbacks=[Scripted([3.0, 1.0, 2.0, 4.0]), check, spy])
    assert check.best == 1.0 and best.exists()
    fresh = linear_model()
    fresh.load_weights(best)  # the weights of epoch 2, the best one
    for got, want in zip(fresh.get_weights(), weights[1]):
        np.testing.assert_array_equal(got, want)


def test_reduce_lr_on_plateau_changes_the_rate_the_traced_step_uses():
    x, y = regression()
    model = linear_model(lr=0.1)
    reduce = callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1, min_lr=0.02)
    history = model.fit(x, y, epochs=5, verbose=0, callbacks=[Scripted([1.0, 1.0, 1.0, 1.0, 1.0]), reduce])
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.1, 0.05, 0.025, 0.02])
    assert float(model.optimizer.learning_rate) == pytest.approx(0.02)
    # The traced step reads the new rate: one more step moves the weights by lr * gradient.
    before = [w.numpy() for w in model.trainable_weights]
    xb, yb = ember.constant(x[:8]), ember.constant(y[:8])
    with ember.GradientTape() as tape:
        loss = ember.reduce_mean(ember.square(model(xb) - yb))
    grads = [g.numpy() for g in tape.gradient(loss, model.trainable_weights)]
    model.train_on_batch(x[:8], y[:8])
    for b, g, w in zip(before, grads, model.trainable_weights):
        np.testing.assert_allclose(w.numpy(), b - 0.02 * g, rtol=1e-5, atol=1e-7)


def test_learning_rate_scheduler_and_history_and_lambda():
    x, y = regression()
    model = linear_model()
    events = []
    lam = callbacks.LambdaCallback(on_train_begin=lambda logs: events.append("begin"),
                                   on_epoch_end=lambda e, logs: events.append(("epoch", e, "loss" in logs)),
                                   on_train_end=lambda logs: events.append("end"))
    sched = callbacks.LearningRateScheduler(lambda epoch, lr: 0.1 / (epoch + 1))
    history = model.fit(x, y, epochs=3, verbose=0, callbacks=[lam, sched])
    assert events == ["begin", ("epoch", 0, True), ("epoch", 1, True), ("epoch", 2, True), "end"]
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.05, 0.1 / 3])
    assert model.history is history and len(history.history["loss"]) == 3


def test_csv_logger_and_terminate_on_nan(tmp_path):
    x, y = regression()
    path = tmp_path / "log.csv"
    linear_model().fit(x, y, epochs=2, verbose=0, callbacks=[callbacks.CSVLogger(path)])
    rows = path.read_text().splitlines()
    assert rows[0] == "epoch,loss" and len(rows) == 3
    model = linear_model(lr=1e6)  # diverges
    history = model.fit(x * 1e3, y, epochs=50, verbose=0, callbacks=[callbacks.TerminateOnNaN()])
    assert len(history.epoch) < 50


def test_model_checkpoint_save_freq_in_batches(tmp_path):
    x, y = regression(32)  # 4 batches of 8 an epoch
    model = linear_model()
    saved = []

    class Spy(callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            saved.append(model.get_weights())

    pattern = str(tmp_path / "w-{epoch}-{batch}.weights.npz")
    model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=0,
              callbacks=[callbacks.ModelCheckpoint(pattern, save_freq=3, save_weights_only=True), Spy()])
    # Batches are counted across epochs: the 3rd (epoch 1, batch 3) and the 6th (epoch 2, batch 2).
    assert sorted(os.listdir(tmp_path)) == ["w-1-3.weights.npz", "w-2-2.weights.npz"]
    fresh = linear_model()
    fresh.load_weights(tmp_path / "w-2-2.weights.npz")
    for got, want in zip(fresh.get_weights(), saved[5]):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="save_freq"):
        callbacks.ModelCheckpoint(pattern, save_freq=0)


class _Crash(callbacks.Callback):
    def __init__(self, at_epoch):
        super().__init__()
        self.at_epoch = at_epoch

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.at_epoch:
            raise RuntimeError("interrupted")


def test_backup_and_restore_resumes_an_interrupted_fit_exactly(tmp_path):
    x, y = regression(32)

    def make():
        keras.utils.set_random_seed(3)
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(1)])
        model.compile(keras.optimizers.Adam(0.05), "mse")
        return model

    reference = make()
    reference.fit(x, y, epochs=5, batch_size=8, shuffle=False, verbose=0)
    backup = tmp_path / "backup"
    model = make()
    with pytest.raises(RuntimeError, match="interrupted"):
        model.fit(x, y, epochs=5, batch_size=8, shuffle=False, verbose=0,
                  callbacks=[callbacks.BackupAndRestore(backup), _Crash(at_epoch=2)])
    assert sorted(os.listdir(backup)) == ["latest.weights", "training_metadata.json"]
    resumed = make()  # a new process would start from fresh weights; the backup brings the state back
    history = resumed.fit(x, y, epochs=5, batch_size=8, shuffle=False, verbose=0,
                          callbacks=[callbacks.BackupAndRestore(backup)])
    assert history.epoch == [3, 4]  # epochs 0-2 ran before the crash
    assert int(resumed.optimizer.iterations.numpy()) == 20
    for got, want in zip(resumed.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert os.listdir(backup) == []  # finished: the backup is deleted
    with pytest.raises(NotImplementedError):
        callbacks.BackupAndRestore(backup, save_freq=10)

"""ember.keras under ember.distribute: fit/evaluate/predict with a MirroredStrategy over two
devices give the weights, logs and outputs of the same model trained on one device.

The two-device tests need two logical CPUs (EMBER_NUM_CPU_DEVICES=2), fixed when ember is
imported, so in a plain run test_two_device_cases_in_a_subprocess reruns this file with them
(as tests/python/test_distribute.py does).
"""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import layers

D = ember.distribute
TWO_CPUS = [n for n in ember.list_devices() if n.startswith("cpu:")][:2]
needs_two_cpus = pytest.mark.skipif(len(TWO_CPUS) < 2, reason="needs EMBER_NUM_CPU_DEVICES=2")


def classes(n=48, features=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    x = rng.standard_normal((n, features)).astype(np.float32) + y[:, None].astype(np.float32)
    return x, y


def images(n=24, seed=1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 6, 6, 2)).astype(np.float32), rng.integers(0, 3, n)


def mlp(regularizer=None):
    return keras.Sequential([keras.Input((4,)), layers.Dense(8, activation="relu", kernel_regularizer=regularizer),
                             layers.Dense(3)])


def cnn():
    return keras.Sequential([keras.Input((6, 6, 2)), layers.Conv2D(4, 3, activation="relu"),
                             layers.MaxPooling2D(2), layers.Flatten(), layers.Dense(3)])



def compile_args(optimizer):
    make = {"sgd": lambda: keras.optimizers.SGD(learning_rate=0.1, momentum=0.5),
            "adam": lambda: keras.optimizers.Adam(learning_rate=0.01)}[optimizer]
    return dict(optimizer=make(), loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=["accuracy"])


def twin_models(build, optimizer="adam", compile_fn=None):
    """(a model on one device, the same model with the same initial weights under a two-CPU
    MirroredStrategy, the strategy), both compiled alike."""
    compile_fn = compile_fn or (lambda m: m.compile(**compile_args(optimizer)))
    keras.utils.set_random_seed(0)
    single = build()
    compile_fn(single)
    strategy = D.MirroredStrategy(TWO_CPUS)
    with strategy.scope():
        mirrored = build()
        mirrored.set_weights(single.get_weights())
        compile_fn(mirrored)
    return single, mirrored, strategy


def assert_same_weights(single, mirrored):
    for a, b in zip(single.get_weights(), mirrored.get_weights()):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def assert_same_history(h1, h2):
    assert h1.history.keys() == h2.history.keys()
    for key in h1.history:
        np.testing.assert_allclose(h2.history[key], h1.history[key], rtol=1e-5, atol=1e-6, err_msg=key)


# --- Without extra devices ----------------------------------------------------
def test_a_model_remembers_the_strategy_of_its_scope():
    assert mlp().distribute_strategy is D.get_strategy()  # the default strategy
    strategy = D.OneDeviceStrategy("cpu:0")
    with strategy.scope():
        model = mlp()
        inputs = keras.Input((4,))
        functional = keras.Model(inputs, layers.Dense(2)(inputs))
    assert model.distribute_strategy is strategy and functional.distribute_strategy is strategy
    assert isinstance(model.layers[0].kernel, D.MirroredVariable)
    model.compile(**compile_args("sgd"))
    x, y = classes(16)
    history = model.fit(x, y, batch_size=8, epochs=1, verbose=0)  # one replica: the usual step
    assert np.isfinite(history.history["loss"][0])


# --- Two CPUs ---------------------------------------------------------------
@needs_two_cpus
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_fit_of_an_mlp_matches_one_device(optimizer):
    x, y = classes()
    single, mirrored, strategy = twin_models(mlp, optimizer)
    h1 = single.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    h2 = mirrored.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert_same_history(h1, h2)
    assert_same_weights(single, mirrored)
    assert mirrored.distribute_strategy is strategy
    for variable in mirrored.weights + mirrored.optimizer.variables:  # every copy took the same updates
        parts = [c.numpy() for c in variable.values]
        np.testing.assert_array_equal(parts[1], parts[0])
    assert int(mirrored.optimizer.iterations.numpy()) == 12


@needs_two_cpus
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_fit_of_a_cnn_matches_one_device(optimizer):
    x, y = images()
    single, mirrored, _ = twin_models(cnn, optimizer)
    h1 = single.fit(x, y, batch_size=6, epochs=2, shuffle=False, verbose=0)
    h2 = mirrored.fit(x, y, batch_size=6, epochs=2, shuffle=False, verbose=0)
    assert_same_history(h1, h2)
    assert_same_weights(single, mirrored)


@needs_two_cpus
def test_batch_normalization_keeps_one_moving_mean_for_all_replicas():
    def build():
        return keras.Sequential([keras.Input((4,)), layers.BatchNormalization(momentum=0.5), layers.Dense(3)])
    x, y = classes(16)
    single, mirrored, _ = twin_models(build, "sgd")
    single.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    mirrored.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    moving_mean = mirrored.layers[0].moving_mean
    np.testing.assert_array_equal(moving_mean.values[1].numpy(), moving_mean.values[0].numpy())
    # Each replica normalizes with its own slice's statistics (no cross-replica batch norm, as in
    # TensorFlow), but the mean of the slices' means is the batch's mean.
    np.testing.assert_allclose(moving_mean.numpy(), single.layers[0].moving_mean.numpy(), rtol=1e-5, atol=1e-6)
    variance = mirrored.layers[0].moving_variance
    np.testing.assert_array_equal(variance.values[1].numpy(), variance.values[0].numpy())


@needs_two_cpus
def test_the_replica_step_is_traced_once_per_replica():
    x, y = classes(32)
    _, mirrored, _ = twin_models(mlp)
    mirrored.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert mirrored._distributed_steps._replica_fns["train"].experimental_get_tracing_count() == 2


@needs_two_cpus
def test_evaluate_and_predict_match_one_device_with_an_uneven_last_batch():
    x, y = classes(21)
    single, mirrored, _ = twin_models(mlp)
    single.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    mirrored.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)  # a last batch of 5: 2 and 3
    assert_same_weights(single, mirrored)
    np.testing.assert_allclose(mirrored.evaluate(x, y, batch_size=6, verbose=0),
                               single.evaluate(x, y, batch_size=6, verbose=0), rtol=1e-5)
    p1 = single.predict(x, batch_size=6, verbose=0)
    p2 = mirrored.predict(x, batch_size=6, verbose=0)  # batches of 6, 6, 6, 3: joined in order
    assert p2.shape == (21, 3)
    np.testing.assert_allclose(p2, p1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mirrored.predict_on_batch(x[:5]), p1[:5], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mirrored.train_on_batch(x[:6], y[:6]), single.train_on_batch(x[:6], y[:6]),
                               rtol=1e-5)
    assert_same_weights(single, mirrored)


@needs_two_cpus
def test_a_summed_loss_on_uneven_batches_matches_one_device():
    def compile_fn(model):
        model.compile(optimizer=keras.optimizers.SGD(0.01), loss=keras.losses.MeanSquaredError(reduction="sum"))
    x, y = classes(13)
    target = np.eye(3, dtype=np.float32)[y]
    single, mirrored, _ = twin_models(mlp, compile_fn=compile_fn)
    h1 = single.fit(x, target, batch_size=5, epochs=2, shuffle=False, verbose=0)  # batches of 5, 5, 3
    h2 = mirrored.fit(x, target, batch_size=5, epochs=2, shuffle=False, verbose=0)
    assert_same_history(h1, h2)
    assert_same_weights(single, mirrored)


@needs_two_cpus
def test_a_batch_smaller_than_the_replicas_is_refused():
    x, y = classes(9)
    _, mirrored, _ = twin_models(mlp)
    with pytest.raises(ValueError, match="batch of 1 example.*2 replicas"):
        mirrored.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)


@needs_two_cpus
def test_fit_on_a_dataset_with_sample_weights_and_a_regularizer_matches_one_device():
    x, y = classes(32)
    weights = np.linspace(0.5, 1.5, 32).astype(np.float32)
    dataset = ember.data.Dataset.from_tensor_slices((x, y, weights)).batch(8)
    single, mirrored, _ = twin_models(lambda: mlp(keras.regularizers.L2(0.01)), "sgd")
    h1 = single.fit(dataset, epochs=2, verbose=0)
    h2 = mirrored.fit(dataset, epochs=2, verbose=0)
    assert_same_history(h1, h2)
    assert_same_weights(single, mirrored)


@needs_two_cpus
def test_a_two_output_model_logs_the_same_losses_and_metrics():
    def build():
        inputs = keras.Input((4,), name="x")
        hidden = layers.Dense(8, activation="relu")(inputs)
        return keras.Model(inputs, [layers.Dense(3, name="a")(hidden), layers.Dense(1, name="b")(hidden)])

    def compile_fn(model):
        model.compile(optimizer=keras.optimizers.Adam(0.01),
                      loss=[keras.losses.SparseCategoricalCrossentropy(from_logits=True), "mse"],
                      loss_weights=[1.0, 0.5], metrics=[["accuracy"], ["mae"]])
    x, y = classes(24)
    target = x.sum(axis=1, keepdims=True)
    single, mirrored, _ = twin_models(build, compile_fn=compile_fn)
    h1 = single.fit(x, [y, target], batch_size=8, epochs=2, shuffle=False, verbose=0)
    h2 = mirrored.fit(x, [y, target], batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert {"loss", "a_loss", "b_loss", "a_accuracy", "b_mae"} <= set(h2.history)
    assert_same_history(h1, h2)
    assert_same_weights(single, mirrored)


class _Logs(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_train_batch_end(self, batch, logs=None):
        self.seen.append(("batch", batch, dict(logs)))

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append(("epoch", epoch, dict(logs)))


@needs_two_cpus
def test_callbacks_see_the_logs_of_one_device(tmp_path):
    x, y = classes(32)
    runs = []
    for model in twin_models(mlp)[:2]:
        logs = _Logs()
        stop = keras.callbacks.EarlyStopping(monitor="val_loss", patience=0, min_delta=10.0)
        path = str(tmp_path / f"{len(runs)}.weights.h5")
        checkpoint = keras.callbacks.ModelCheckpoint(path, save_weights_only=True)
        history = model.fit(x, y, batch_size=8, epochs=4, shuffle=False, verbose=0, validation_data=(x[:8], y[:8]),
                            callbacks=[logs, stop, checkpoint])
        runs.append((logs.seen, history.epoch, path))
    (seen1, epochs1, path1), (seen2, epochs2, path2) = runs
    assert epochs1 == epochs2 == [0, 1]  # EarlyStopping stopped both after the same epoch
    assert [s[:2] for s in seen1] == [s[:2] for s in seen2]
    for (_, _, a), (_, _, b) in zip(seen1, seen2):
        assert a.keys() == b.keys()
        np.testing.assert_allclose([b[k] for k in a], [a[k] for k in a], rtol=1e-5, atol=1e-6)
    reloaded = mlp()
    reloaded.load_weights(path2)
    single_reloaded = mlp()
    single_reloaded.load_weights(path1)
    assert_same_weights(single_reloaded, reloaded)


@needs_two_cpus
def test_what_cannot_be_split_is_refused_by_name():
    class Custom(keras.Sequential):
        def train_step(self, data):
            return super().train_step(data)

    x, y = classes(8)
    strategy = D.MirroredStrategy(TWO_CPUS)
    with strategy.scope():
        custom = Custom([keras.Input((4,)), layers.Dense(3)])
        custom.compile(**compile_args("sgd"))
    with pytest.raises(NotImplementedError, match="overrides train_step"):
        custom.fit(x, y, batch_size=4, verbose=0)
    class AddsLoss(layers.Layer):
        def call(self, inputs):
            self.add_loss(ember.reduce_mean(inputs))
            return inputs
    with strategy.scope():
        adds_loss = keras.Sequential([keras.Input((4,)), AddsLoss(), layers.Dense(3)])
        adds_loss.compile(**compile_args("sgd"))
    with pytest.raises(NotImplementedError, match="add_loss"):
        adds_loss.fit(x, y, batch_size=4, verbose=0)
    with strategy.scope():
        unreduced = mlp()
        unreduced.compile("sgd", loss=keras.losses.MeanSquaredError(reduction=None))
    with pytest.raises(NotImplementedError, match="reduction=None"):
        unreduced.fit(x, np.eye(3, dtype=np.float32)[y], batch_size=4, verbose=0)
    with strategy.scope():
        model = mlp()
    model.compile(**compile_args("sgd"))  # outside the scope: the optimizer's state is not mirrored
    with pytest.raises(ValueError, match="optimizer was created outside MirroredStrategy.scope"):
        model.fit(x, y, batch_size=4, verbose=0)


# --- The two-CPU run ------------------------------------------------------------
@pytest.mark.skipif(len(TWO_CPUS) >= 2, reason="the two-CPU tests already ran in this process")
def test_two_device_cases_in_a_subprocess():
    env = dict(os.environ, EMBER_NUM_CPU_DEVICES="2")
    env.pop("EMBER_SIMULATED_DEVICES", None)
    env.pop("EMBER_TEST_DEVICE", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-k", "not subprocess"],
        env=env, capture_output=True, text=True, timeout=600, cwd=os.path.dirname(__file__))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "skipped" not in result.stdout, result.stdout[-2000:]
    assert int(re.search(r"(\d+) passed", result.stdout).group(1)) >= 12

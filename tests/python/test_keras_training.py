"""ember.keras training: fit/evaluate/predict, the traced train step, data inputs, the progress bar."""

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import layers


def blobs(n=400, seed=0):
    """Two well separated Gaussian blobs in 4-D: labels 0/1."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.standard_normal((n, 4)).astype(np.float32) + (y[:, None] * 2.0 - 1.0) * 1.5
    return x, y


def mlp(seed=0, out=2, activation=None):
    keras.utils.set_random_seed(seed)  # Ember's generator (weights) and NumPy's (fit's shuffling)
    keras.backend.clear_session()
    return keras.Sequential([keras.Input((4,)), layers.Dense(16, activation="relu"),
                             layers.Dense(out, activation=activation)])


def test_fit_separable_data_reaches_high_accuracy():
    x, y = blobs()
    model = mlp()
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=8, verbose=0)
    assert isinstance(history, keras.callbacks.History) and history.epoch == list(range(8))
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["accuracy"][-1] > 0.9
    loss, acc = model.evaluate(x, y, verbose=0)
    assert acc > 0.9 and loss < 0.4
    probs = model.predict(x[:10], verbose=0)
    assert probs.shape == (10, 2)


def test_train_step_traces_once_per_signature():
    x, y = blobs(100)
    model = mlp()
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x, y, batch_size=32, epochs=3, verbose=0)  # batches of 32, 32, 32 and a last one of 4
    assert model._train_fn.experimental_get_tracing_count() == 2
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert model._train_fn.experimental_get_tracing_count() == 2


def test_fit_matches_a_hand_written_gradient_tape_loop():
    x, y = blobs(64, seed=3)
    y = y.astype(np.float32)[:, None]
    model = mlp(seed=1, out=1)
    initial = model.get_weights()
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse")
    history = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)

    # The same model, weights and SGD, by hand.
    reference = mlp(seed=1, out=1)
    reference.set_weights(initial)
    epoch_losses = []
    for _ in range(3):
        total = 0.0
        for start in range(0, 64, 16):
            xb, yb = ember.constant(x[start:start + 16]), ember.constant(y[start:start + 16])
            with ember.GradientTape() as tape:
                loss = ember.reduce_mean(ember.square(reference(xb) - yb))
            grads = tape.gradient(loss, reference.trainable_weights)
            for v, g in zip(reference.trainable_weights, grads):
                v.assign(v - 0.1 * g)
            total += float(loss.numpy()) * 16
        epoch_losses.append(total / 64)
    np.testing.assert_allclose(history.history["loss"], epoch_losses, rtol=1e-5)
    for got, want in zip(model.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_fit_with_dataset_validation_and_steps_per_epoch():
    x, y = blobs(200)
    model = mlp()
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    train = ember.data.Dataset.from_tensor_slices((x[:160], y[:160])).shuffle(160, seed=0).batch(32)
    val = ember.data.Dataset.from_tensor_slices((x[160:], y[160:])).batch(20)
    history = model.fit(train, validation_data=val, epochs=3, verbose=0)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert len(history.history["val_loss"]) == 3
    seen = []
    model.fit(train.repeat(), epochs=2, steps_per_epoch=3, verbose=0,
              callbacks=[keras.callbacks.LambdaCallback(on_batch_end=lambda b, logs: seen.append(b))])
    assert seen == [0, 1, 2, 0, 1, 2]
    split = model.fit(x, y, validation_split=0.25, epochs=1, verbose=0)
    assert "val_accuracy" in split.history


def test_evaluate_predict_and_on_batch_methods():
    x, y = blobs(64)
    model = mlp()
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    logs = model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)
    assert set(logs) == {"loss", "accuracy"}
    logits = model.predict(x, batch_size=10, verbose=0)
    want = -np.mean(logits[np.arange(64), y] - np.log(np.exp(logits).sum(-1)))
    assert logs["loss"] == pytest.approx(want, rel=1e-5)
    assert logs["accuracy"] == pytest.approx(np.mean(logits.argmax(-1) == y))
    before = model.get_weights()[0].copy()
    loss, acc = model.train_on_batch(x[:8], y[:8])
    assert np.isfinite(loss) and 0 <= acc <= 1
    assert not np.array_equal(model.get_weights()[0], before)
    assert isinstance(model.test_on_batch(x[:8], y[:8], return_dict=True)["loss"], float)
    np.testing.assert_allclose(model.predict_on_batch(x[:3]), model(x[:3]).numpy(), rtol=1e-6)


def test_fit_requires_compile():
    with pytest.raises(RuntimeError, match="compile"):
        mlp().fit(*blobs(8), verbose=0)


def test_multi_output_losses_and_metrics_are_named_per_output():
    keras.utils.set_random_seed(0)
    a = keras.Input((4,))
    h = layers.Dense(8, activation="relu")(a)
    model = keras.Model(a, [layers.Dense(1, name="reg")(h), layers.Dense(2, name="cls")(h)])
    model.compile("adam", loss={"reg": "mse", "cls": keras.losses.SparseCategoricalCrossentropy(from_logits=True)},
                  metrics={"cls": ["accuracy"]}, loss_weights={"reg": 0.5, "cls": 1.0})
    x, y = blobs(64)
    history = model.fit(x, {"reg": x[:, :1], "cls": y}, epochs=2, verbose=0)
    assert {"loss", "reg_loss", "cls_loss", "cls_accuracy"} <= set(history.history)
    h = history.history
    assert h["loss"][0] == pytest.approx(0.5 * h["reg_loss"][0] + h["cls_loss"][0], rel=1e-4)


def test_batchnorm_and_dropout_models_train_in_the_traced_step():
    keras.utils.set_random_seed(0)
    x, y = blobs(128)
    model = keras.Sequential([keras.Input((4,)), layers.Dense(16), layers.BatchNormalization(momentum=0.8),
                              layers.Activation("relu"), layers.Dropout(0.2), layers.Dense(2)])
    model.compile(keras.optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    bn = model.layers[1]
    model.fit(x, y, epochs=6, verbose=0)
    assert np.abs(bn.moving_mean.numpy()).sum() > 0  # updated inside the traced step
    # The moving mean (momentum 0.8, 24 steps) has caught up with the data's mean.
    hidden = model.layers[0](x).numpy()
    np.testing.assert_allclose(bn.moving_mean.numpy(), hidden.mean(0), atol=0.1 * np.abs(hidden).mean() + 0.05)
    assert model.evaluate(x, y, verbose=0)[1] > 0.9  # inference: moving statistics, no dropout


def test_progress_bar_output(capsys):
    # Captured output is not a terminal: one line per epoch, as Keras prints to logs.
    x, y = blobs(64)
    model = mlp()
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    model.fit(x, y, batch_size=16, epochs=2, validation_data=(x[:16], y[:16]))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    import re
    pattern = (r"^4/4 ━{20} \d+s \d+(us|ms|s)/step - accuracy: \d\.\d{4} - loss: \d\.\d{4} - "
               r"val_accuracy: \d\.\d{4} - val_loss: \d\.\d{4}$")
    assert re.match(pattern, lines[1]), lines[1]
    model.fit(x, y, batch_size=16, epochs=1, verbose=2)
    line = capsys.readouterr().out.splitlines()[1]
    assert re.match(r"^4/4 - \d+s - \d+(us|ms|s)/step - accuracy: \d\.\d{4} - loss: \d\.\d{4}$", line), line
    model.fit(x, y, epochs=1, verbose=0)
    assert capsys.readouterr().out == ""
    model.evaluate(x, y)
    assert re.match(r"^2/2 ━{20} .* - accuracy: .* - loss: ", capsys.readouterr().out)


def test_progbar_redraws_in_a_terminal(capsys):
    bar = keras.utils.Progbar(3, interval=0.0)
    bar._dynamic = True
    for i in range(1, 4):
        bar.update(i, {"loss": 1.0 / i})
    out = capsys.readouterr().out
    assert out.count("\r") == 3 and out.endswith("\n")
    assert "1/3 ━━━━━━──────────────" in out and "3/3 ━━━━━━━━━━━━━━━━━━━━" in out


def test_string_losses_metrics_and_optimizers():
    x, y = blobs(64)
    onehot = keras.utils.to_categorical(y, 2)
    model = mlp(activation="softmax")
    model.compile("rmsprop", "categorical_crossentropy", metrics=["accuracy", "auc"])
    assert isinstance(model.optimizer, keras.optimizers.RMSprop)
    model.optimizer.learning_rate = 0.02
    history = model.fit(x, onehot, batch_size=8, epochs=4, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["accuracy"][-1] > 0.85
    assert 0.5 < history.history["auc"][-1] <= 1.0
    binary = mlp(out=1, activation="sigmoid")
    binary.compile("sgd", "binary_crossentropy", metrics=["accuracy"])
    assert "accuracy" in binary.fit(x, y[:, None].astype(np.float32), epochs=1, verbose=0).history


def test_regularizers_add_loss_and_sample_weight():
    ember.random.set_seed(0)
    layer = layers.Dense(2, kernel_regularizer=keras.regularizers.L2(0.1))
    model = keras.Sequential([keras.Input((4,)), layer])
    model.compile("sgd", "mse")
    x, y = np.ones((8, 4), np.float32), np.zeros((8, 2), np.float32)
    penalty = 0.1 * float(np.sum(layer.kernel.numpy() ** 2))
    assert float(model.losses[0].numpy()) == pytest.approx(penalty, rel=1e-5)
    mse = float(np.mean(model.predict(x, verbose=0) ** 2))
    assert model.evaluate(x, y, verbose=0) == pytest.approx(mse + penalty, rel=1e-5)
    sw = np.array([1, 1, 1, 1, 0, 0, 0, 0], np.float32)
    # Keras' "sum_over_batch_size": weighted values summed, divided by the batch size.
    assert model.evaluate(x, y, sample_weight=sw, verbose=0) == pytest.approx(mse / 2 + penalty, rel=1e-5)

    class WithLoss(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)

        def call(self, inputs):
            out = self.dense(inputs)
            return out

    sub = WithLoss()
    sub.compile("sgd", "mse")
    sub(x)
    sub.dense.add_loss(lambda: 3.0 * ember.reduce_sum(ember.abs(sub.dense.kernel)))
    value = sub.evaluate(x, np.zeros((8, 1), np.float32), verbose=0)
    want = float(np.mean(sub.predict(x, verbose=0) ** 2)) + 3.0 * float(np.abs(sub.dense.kernel.numpy()).sum())
    assert value == pytest.approx(want, rel=1e-5)


def test_frozen_layers_do_not_train():
    x, y = blobs(64)
    model = mlp()
    model.layers[0].trainable = False
    frozen = model.layers[0].get_weights()
    head = model.layers[1].get_weights()[0].copy()
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, epochs=2, verbose=0)
    for got, want in zip(model.layers[0].get_weights(), frozen):
        np.testing.assert_array_equal(got, want)
    assert not np.array_equal(model.layers[1].get_weights()[0], head)  # the rest still trains
    assert len(model.trainable_weights) == 2 and len(model.non_trainable_weights) == 2


def test_cnn_and_functional_dict_inputs_train():
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 64)
    images = (rng.standard_normal((64, 8, 8, 1)) + (labels * 2.0 - 1.0)[:, None, None, None]).astype(np.float32)
    cnn = keras.Sequential([keras.Input((8, 8, 1)), layers.Conv2D(4, 3, padding="same", activation="relu"),
                            layers.MaxPooling2D(), layers.Conv2D(8, 3, activation="relu"),
                            layers.GlobalAveragePooling2D(), layers.Dense(2)])
    cnn.compile(keras.optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=["accuracy"])
    history = cnn.fit(images, labels, batch_size=16, epochs=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["accuracy"][-1] > 0.75
    a, b = keras.Input((4,), name="a"), keras.Input((4,), name="b")
    out = layers.Dense(1)(layers.Concatenate()([a, b]))
    model = keras.Model({"a": a, "b": b}, out)
    model.compile("sgd", "mse")
    x, _ = blobs(32)
    target = (x[:, :1] * 2).astype(np.float32)
    ds = ember.data.Dataset.from_tensor_slices(({"a": x, "b": -x}, target)).batch(8)
    history = model.fit(ds, epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert model.predict({"a": x, "b": -x}, verbose=0).shape == (32, 1)


def test_fit_from_a_generator_and_a_py_dataset():
    x, y = blobs(96)

    def batches():
        while True:
            for i in range(0, 96, 32):
                yield x[i:i + 32], y[i:i + 32]

    model = mlp()
    model.compile(keras.optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(batches(), steps_per_epoch=3, epochs=4, verbose=0)
    assert len(history.history["loss"]) == 4 and history.history["accuracy"][-1] > 0.9

    class Batches(keras.utils.PyDataset):
        def __init__(self):
            super().__init__()
            self.epochs_seen = 0

        def __len__(self):
            return 3

        def __getitem__(self, i):
            return x[i * 32:(i + 1) * 32], y[i * 32:(i + 1) * 32]

        def on_epoch_end(self):
            self.epochs_seen += 1

    data = Batches()
    seen = []
    history = model.fit(data, epochs=2, verbose=0, validation_data=Batches(),
                        callbacks=[keras.callbacks.LambdaCallback(on_batch_end=lambda b, logs: seen.append(b))])
    assert seen == [0, 1, 2, 0, 1, 2] and data.epochs_seen == 2
    assert len(history.history["val_loss"]) == 2
    assert model.evaluate(data, verbose=0)[1] > 0.9


def test_class_weight_scales_each_example_loss():
    x, y = blobs(32)
    model = mlp()
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    logits = model.predict(x, verbose=0)
    per_example = -(logits[np.arange(32), y] - np.log(np.exp(logits).sum(-1)))
    weights = np.where(y == 1, 3.0, 0.5)
    history = model.fit(x, y, batch_size=32, epochs=1, shuffle=False, verbose=0, class_weight={0: 0.5, 1: 3.0})
    assert history.history["loss"][0] == pytest.approx(np.mean(per_example * weights), rel=1e-5)


def test_custom_train_step_in_keras_3_style():
    class Custom(keras.Model):
        def train_step(self, data):
            x, y = data  # no sample weights: a pair, as Keras packs it
            with ember.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    keras.utils.set_random_seed(0)
    inputs = keras.Input((4,))
    model = Custom(inputs, layers.Dense(2)(layers.Dense(16, activation="relu")(inputs)))
    model.compile(keras.optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    x, y = blobs(128)
    history = model.fit(x, y, epochs=4, verbose=0)
    assert history.history["accuracy"][-1] > 0.9 and history.history["loss"][-1] < history.history["loss"][0]
    assert isinstance(model, Custom) and len(model.layers) == 3  # a functional model that keeps Custom's methods


def test_functional_subclass_saves_and_loads_as_itself(tmp_path):
    class Custom(keras.Model):
        def double(self, x):
            return 2 * self.predict(x, verbose=0)

    inputs = keras.Input((4,))
    model = Custom(inputs=inputs, outputs=layers.Dense(3)(inputs))
    model.save(tmp_path / "c.keras")
    loaded = keras.models.load_model(tmp_path / "c.keras", custom_objects={"Custom": Custom})
    assert isinstance(loaded, Custom)
    x, _ = blobs(5)
    np.testing.assert_allclose(loaded.double(x), model.double(x), rtol=1e-6)


def test_metrics_ignore_sample_weights_weighted_metrics_use_them():
    x, y = blobs(32)
    model = mlp()
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"],
                  weighted_metrics=["accuracy"])
    right = model.predict(x, verbose=0).argmax(-1) == y
    sw = np.where(right, 1.0, 0.0).astype(np.float32)  # weight only the examples it gets right
    logs = model.evaluate(x, y, sample_weight=sw, verbose=0, return_dict=True)
    assert set(logs) == {"loss", "accuracy", "weighted_accuracy"}
    assert logs["accuracy"] == pytest.approx(right.mean())
    assert logs["weighted_accuracy"] == pytest.approx(1.0)

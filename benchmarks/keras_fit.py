"""Times a Keras `fit` epoch per step against the same training written by
hand as one `@ember.function` step per batch, and against TensorFlow's
`model.fit` when TensorFlow is importable, on the same synthetic
MNIST-shaped data (issue 26's measurement): an MLP 784-512-512-10 and a
small CNN (conv 3x3x32, max-pool, dense 10), batch 128, Adam, sparse
categorical cross-entropy from logits. Each framework trains its own
model from the same initial weights; the best of several epochs is kept.

Usage:  python benchmarks/keras_fit.py [--samples N] [--epochs E] [--json FILE]
"""
import argparse
import json
import time

import numpy as np

import ember
from ember import keras

BATCH = 128


def mlp(k):
    return k.Sequential([k.Input((784,)), k.layers.Dense(512, activation="relu"),
                         k.layers.Dense(512, activation="relu"), k.layers.Dense(10)])


def cnn(k):
    return k.Sequential([k.Input((28, 28, 1)), k.layers.Conv2D(32, 3, activation="relu"),
                         k.layers.MaxPooling2D(2), k.layers.Flatten(), k.layers.Dense(10)])


def data(samples, image):
    rng = np.random.default_rng(0)
    x = rng.random((samples, 28, 28, 1) if image else (samples, 784), dtype=np.float32)
    y = rng.integers(0, 10, samples).astype(np.int64)
    return x, y


def best_epoch_per_step(run_epoch, epochs, steps):
    run_epoch()  # warm-up: tracing, kernel cache, allocator
    best = float("inf")
    for _ in range(epochs):
        start = time.perf_counter()
        run_epoch()
        best = min(best, time.perf_counter() - start)
    return best / steps


def ember_fit(build, x, y, weights):
    model = build(keras)
    model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return lambda: model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)


def ember_hand_written(build, x, y, weights):
    model = build(keras)
    model.set_weights(weights)
    optimizer = ember.optimizers.Adam(1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @ember.function
    def step(xb, yb):
        with ember.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    batches = [(ember.constant(x[i:i + BATCH]), ember.constant(y[i:i + BATCH])) for i in range(0, len(x), BATCH)]

    def epoch():
        for xb, yb in batches:
            loss = step(xb, yb)
        loss.numpy()
    return epoch


def tensorflow_fit(build, x, y, weights):
    import tensorflow as tf
    model = build(tf.keras)
    model.set_weights(weights)
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return lambda: model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    try:
        import tensorflow  # noqa: F401
        have_tf = True
    except ImportError:
        have_tf = False
    rows = []
    for name, build, image in (("mlp", mlp, False), ("cnn", cnn, True)):
        x, y = data(args.samples, image)
        weights = build(keras).get_weights()
        steps = -(-args.samples // BATCH)
        row = {"case": name, "samples": args.samples, "batch": BATCH}
        row["keras_fit_ms_per_step"] = 1e3 * best_epoch_per_step(ember_fit(build, x, y, weights), args.epochs, steps)
        row["hand_written_ms_per_step"] = 1e3 * best_epoch_per_step(
            ember_hand_written(build, x, y, weights), args.epochs, steps)
        row["fit_over_hand_written"] = row["keras_fit_ms_per_step"] / row["hand_written_ms_per_step"]
        if have_tf:
            row["tf_fit_ms_per_step"] = 1e3 * best_epoch_per_step(tensorflow_fit(build, x, y, weights), args.epochs,
                                                                  steps)
            row["fit_over_tf_fit"] = row["keras_fit_ms_per_step"] / row["tf_fit_ms_per_step"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

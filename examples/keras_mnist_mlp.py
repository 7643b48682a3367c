"""Trains an MNIST-shaped MLP with ember.keras: Sequential, compile, fit, evaluate, save and load.

The data is synthetic so the script runs offline in a few seconds: 28x28
"images" made from ten fixed random prototypes plus noise, one class per
prototype (real MNIST: `keras.datasets.mnist.load_data()`, which reads
~/.keras/datasets/mnist.npz). The model is Keras' classic
784 -> 128 -> 10 MLP with dropout, trained with Adam and sparse categorical
cross-entropy, its train step traced once into an `@ember.function`.

Usage:  python examples/keras_mnist_mlp.py [--epochs N] [--train N] [--batch B]
"""
import argparse
import os
import tempfile

import numpy as np

from ember import keras


def make_data(n, rng, prototypes):
    labels = rng.integers(0, 10, n)
    images = prototypes[labels] + rng.normal(0.0, 1.5, (n, 28, 28))
    return np.clip(images * 255, 0, 255).astype(np.uint8), labels.astype(np.int64)


def build_model():
    return keras.Sequential([
        keras.Input((28, 28)),
        keras.layers.Rescaling(1 / 255.0),
        keras.layers.Flatten(),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dropout(0.2),
        keras.layers.Dense(10),
    ], name="mnist_mlp")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--train", type=int, default=6000)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args(argv)

    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    prototypes = rng.random((10, 28, 28))
    x_train, y_train = make_data(args.train, rng, prototypes)
    x_test, y_test = make_data(1000, np.random.default_rng(1), prototypes)

    model = build_model()
    model.summary()
    model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=args.batch, epochs=args.epochs, validation_split=0.1,
              callbacks=[keras.callbacks.EarlyStopping(monitor="val_loss", patience=2)])
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"test loss {loss:.4f}, test accuracy {accuracy:.4f}")
    assert accuracy > 0.9, accuracy

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mnist_mlp.keras")
        model.save(path)
        restored = keras.models.load_model(path)
        same = np.allclose(restored.predict(x_test[:100], verbose=0), model.predict(x_test[:100], verbose=0))
    assert same
    print("saved and reloaded: predictions match")


if __name__ == "__main__":
    main()

"""One MPI worker of test_distribute_multiworker.py: keras fit/evaluate/predict under
MultiWorkerMirroredStrategy must give one device's weights, logs and outputs.

Usage: keras_fit_worker.py OUT_DIR. Each worker trains a small MLP with fit on its share
of each global batch of 8 (Adam), trains the same model alone on every example (the
reference), and compares; it writes OUT_DIR/ok-<rank> when every check passes.
"""

import os
import sys

import numpy as np

import ember
from ember import keras
from ember.keras import layers

out_dir = sys.argv[1]
rng = np.random.default_rng(0)
y = rng.integers(0, 3, 32)
x = rng.standard_normal((32, 4)).astype(np.float32) + y[:, None].astype(np.float32)


def build():
    return keras.Sequential([keras.Input((4,)), layers.Dense(8, activation="relu"), layers.Dense(3)])


def compile_model(model):
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])


keras.utils.set_random_seed(0)
single = build()
compile_model(single)
strategy = ember.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id
with strategy.scope():
    mirrored = build()
    mirrored.set_weights(single.get_weights())
    compile_model(mirrored)

h1 = single.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
h2 = mirrored.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
for key in h1.history:
    np.testing.assert_allclose(h2.history[key], h1.history[key], rtol=1e-5, atol=1e-6, err_msg=key)
for a, b in zip(single.get_weights(), mirrored.get_weights()):
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(mirrored.evaluate(x, y, batch_size=8, verbose=0),
                           single.evaluate(x, y, batch_size=8, verbose=0), rtol=1e-5)
np.testing.assert_allclose(mirrored.predict(x, batch_size=8, verbose=0), single.predict(x, batch_size=8, verbose=0),
                           rtol=1e-5, atol=1e-6)
try:
    mirrored.fit(x[:5], y[:5], batch_size=5, verbose=0)
    raise AssertionError("a global batch of 5 was split among 2 workers")
except ValueError as error:
    assert "does not split evenly" in str(error), error
strategy.barrier()
open(os.path.join(out_dir, f"ok-{rank}"), "w").close()

"""Keras' masking: Embedding(mask_zero=True) masks padding for the RNNs and pooling after it."""

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import layers

IDS = np.array([[3, 5, 2, 0, 0], [4, 1, 6, 7, 2]], np.int32)  # the first row is padded after 3 steps


@pytest.mark.parametrize("rnn", [lambda: layers.LSTM(4), lambda: layers.GRU(4), lambda: layers.SimpleRNN(4)],
                         ids=["lstm", "gru", "simplernn"])
def test_rnn_ignores_padding_in_sequential_and_functional(rnn):
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((5,), dtype="int32"), layers.Embedding(10, 3, mask_zero=True), rnn()])
    out = model(IDS).numpy()
    emb, cell = model.layers
    unpadded = cell(emb(IDS[:1, :3])).numpy()
    np.testing.assert_allclose(out[0], unpadded[0], rtol=1e-5, atol=1e-6)
    assert not np.allclose(out[0], cell(emb(IDS[:1])).numpy()[0])  # without the mask, padding would count
    inputs = keras.Input((5,), dtype="int32")
    functional = keras.Model(inputs, cell(emb(inputs)))
    np.testing.assert_allclose(functional(IDS).numpy(), out, rtol=1e-6)


def test_masked_sequences_and_pooling():
    keras.utils.set_random_seed(0)
    emb = layers.Embedding(10, 3, mask_zero=True)
    model = keras.Sequential([keras.Input((5,), dtype="int32"), emb, layers.LSTM(2, return_sequences=True),
                              layers.GlobalAveragePooling1D()])
    seq_model = keras.Sequential(model.layers[:2])
    seq = seq_model(IDS).numpy()
    np.testing.assert_array_equal(seq[0, 3:], 0.0)  # masked steps output zeros
    np.testing.assert_allclose(model(IDS).numpy()[0], seq[0, :3].mean(0), rtol=1e-5, atol=1e-6)
    pooled = keras.Sequential([keras.Input((5,), dtype="int32"), emb, layers.GlobalAveragePooling1D()])
    table = emb.embeddings.numpy()
    np.testing.assert_allclose(pooled(IDS).numpy()[0], table[[3, 5, 2]].mean(0), rtol=1e-5)
    maxed = keras.Sequential([keras.Input((5,), dtype="int32"), emb, layers.GlobalMaxPooling1D()])
    np.testing.assert_allclose(maxed(IDS).numpy()[0], table[[3, 5, 2]].max(0), rtol=1e-6)
    assert emb.compute_mask(ember.constant(IDS)).numpy().tolist()[0] == [True] * 3 + [False] * 2


def test_bidirectional_with_mask_and_training():
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    lengths = rng.integers(2, 9, 200)
    ids = np.zeros((200, 8), np.int32)
    for i, n in enumerate(lengths):
        ids[i, :n] = rng.integers(1, 20, n)
    labels = (lengths > 5).astype(np.int64)  # only the unpadded length decides the class
    model = keras.Sequential([keras.Input((8,), dtype="int32"), layers.Embedding(20, 8, mask_zero=True),
                              layers.Bidirectional(layers.LSTM(8)), layers.Dense(2)])
    model.compile(keras.optimizers.Adam(0.02), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(ids, labels, epochs=8, batch_size=32, verbose=0)
    assert history.history["accuracy"][-1] > 0.85


def test_masking_layer():
    x = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]], np.float32)
    masking = layers.Masking()
    assert masking.compute_mask(ember.constant(x)).numpy().tolist() == [[True, False, True]]
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3, 2)), masking, layers.SimpleRNN(2)])
    rnn = model.layers[1]
    np.testing.assert_allclose(model(x).numpy(), rnn(x[:, [0, 2]]).numpy(), rtol=1e-5, atol=1e-6)

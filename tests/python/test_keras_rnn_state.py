"""Stateful RNNs (states carried between calls, reset_state) and RNN dropout / recurrent_dropout,
against NumPy references."""

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import layers

RNG = np.random.default_rng(5)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_lstm(x, k, u, b, h=None, c=None, in_mask=None, rec_mask=None):
    """Keras' LSTM; the input mask multiplies every step's input, the recurrent mask h where it meets u."""
    n, units = x.shape[0], u.shape[0]
    h = np.zeros((n, units)) if h is None else h
    c = np.zeros((n, units)) if c is None else c
    outs = []
    for s in range(x.shape[1]):
        xs = x[:, s] if in_mask is None else x[:, s] * in_mask
        hr = h if rec_mask is None else h * rec_mask
        i, f, g, o = np.split(xs @ k + hr @ u + b, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1), h, c


def np_gru(x, k, u, b, in_mask=None, rec_mask=None):
    n, units = x.shape[0], u.shape[0]
    h = np.zeros((n, units))
    for s in range(x.shape[1]):
        xs = x[:, s] if in_mask is None else x[:, s] * in_mask
        hr = h if rec_mask is None else h * rec_mask
        xz, xr, xh = np.split(xs @ k + b[0], 3, axis=-1)
        hz, hrr, hh = np.split(hr @ u + b[1], 3, axis=-1)
        z, r = sigmoid(xz + hz), sigmoid(xr + hrr)
        h = z * h + (1 - z) * np.tanh(xh + r * hh)
    return h


def _weights(layer):
    return [v.numpy().astype(np.float64) for v in (layer.kernel, layer.recurrent_kernel, layer.bias)]


def test_stateful_lstm_carries_states_across_calls_and_resets():
    model = keras.Sequential([keras.Input((3, 2), batch_size=4), layers.LSTM(5, stateful=True,
                                                                             return_sequences=True)])
    lstm = model.layers[0]
    x = RNG.standard_normal((4, 9, 2)).astype(np.float32)
    k, u, b = _weights(lstm)
    want, h, c = np_lstm(x.astype(np.float64), k, u, b)
    got = np.concatenate([lstm(x[:, i:i + 3]).numpy() for i in (0, 3, 6)], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)  # three chunks = one long sequence
    np.testing.assert_allclose(lstm.states[0].numpy(), h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lstm.states[1].numpy(), c, rtol=1e-5, atol=1e-6)
    model.reset_states()
    np.testing.assert_array_equal(lstm.states[0].numpy(), np.zeros((4, 5)))
    np.testing.assert_allclose(lstm(x[:, :3]).numpy(), want[:, :3], rtol=1e-5, atol=1e-6)
    h0 = RNG.standard_normal((4, 5))
    c0 = RNG.standard_normal((4, 5))
    lstm.reset_state([h0, c0])
    np.testing.assert_allclose(lstm(x[:, :3]).numpy(), np_lstm(x[:, :3].astype(np.float64), k, u, b, h0, c0)[0],
                               rtol=1e-5, atol=1e-6)
    assert len(lstm.weights) == 3  # the states are not weights: not saved, not trained
    with pytest.raises(ValueError, match="batch"):
        lstm(x[:2, :3])


def test_stateful_rnn_in_predict_and_fit_uses_the_traced_step():
    model = keras.Sequential([keras.Input((4, 2), batch_size=3), layers.GRU(3, stateful=True), layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.0), "mse")  # lr 0: the weights stay, the states move on
    gru = model.layers[0]
    x = RNG.standard_normal((6, 4, 2)).astype(np.float32)
    y = RNG.standard_normal((6, 1)).astype(np.float32)
    first = model.predict(x[:3], batch_size=3, verbose=0)
    second = model.predict(x[:3], batch_size=3, verbose=0)
    assert not np.allclose(first, second)  # the second call started from the first's final state
    model.reset_states()
    np.testing.assert_allclose(model.predict(x[:3], batch_size=3, verbose=0), first, rtol=1e-6)
    model.reset_states()
    model.fit(x, y, batch_size=3, epochs=1, shuffle=False, verbose=0)
    k, u, b = _weights(gru)
    # After two batches the state is the GRU run over batch 1, then batch 2 from there, i.e. example i's
    # eight steps x[i] then x[i + 3] in one sequence.
    joined = np.concatenate([x[:3], x[3:]], axis=1).astype(np.float64)
    np.testing.assert_allclose(gru.states[0].numpy(), np_gru(joined, k, u, b), rtol=1e-5, atol=1e-6)


def test_stateful_needs_a_batch_size():
    with pytest.raises(ValueError, match="batch size"):
        keras.Sequential([keras.Input((3, 2)), layers.SimpleRNN(2, stateful=True)])
    with pytest.raises(AttributeError, match="stateful"):
        layers.LSTM(2).reset_state()
    config = layers.LSTM(2, stateful=True, dropout=0.25, recurrent_dropout=0.5).get_config()
    assert (config["stateful"], config["dropout"], config["recurrent_dropout"]) == (True, 0.25, 0.5)


def _identity_rnn(units, **kwargs):
    layer = layers.SimpleRNN(units, activation="linear", use_bias=False, return_sequences=True, **kwargs)
    layer.build((None, None, units))
    layer.kernel.assign(np.eye(units, dtype=np.float32))
    layer.recurrent_kernel.assign(np.zeros((units, units), np.float32))
    return layer


def test_dropout_draws_one_input_mask_per_call_and_only_in_training():
    layer = _identity_rnn(64, dropout=0.5)  # output_t = x_t * mask
    x = RNG.uniform(1, 2, (8, 5, 64)).astype(np.float32)
    np.testing.assert_allclose(layer(x).numpy(), x, rtol=1e-6)  # inference: no dropout
    out = layer(x, training=True).numpy()
    ratio = out / x
    mask = ratio[:, 0]
    assert set(np.round(np.unique(mask), 5)) == {0.0, 2.0}  # dropped, or kept and scaled by 1 / (1 - 0.5)
    for t in range(5):
        np.testing.assert_allclose(ratio[:, t], mask, rtol=1e-5)  # the same mask at every step
    assert 0.3 < (mask == 0).mean() < 0.7
    assert not np.array_equal(layer(x, training=True).numpy() == 0, out == 0)  # a new mask each call


def test_recurrent_dropout_masks_the_state_where_it_enters_the_recurrent_matmul():
    layer = _identity_rnn(64, recurrent_dropout=0.5)
    layer.recurrent_kernel.assign(np.eye(64, dtype=np.float32))  # h_t = x_t + (h_{t-1} * m)
    x = np.zeros((8, 3, 64), np.float32)
    x[:, 0] = 1.0
    out = layer(x, training=True).numpy()
    m = out[:, 1]  # h_1 = 1, so h_2 = m and h_3 = m * m
    assert set(np.round(np.unique(m), 5)) == {0.0, 2.0}
    np.testing.assert_allclose(out[:, 2], m * m, rtol=1e-6)
    np.testing.assert_allclose(layer(x).numpy(), np.ones((8, 3, 64)), rtol=1e-6)


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_dropout_masks_enter_lstm_and_gru_as_in_keras(cls, monkeypatch):
    layer = getattr(layers, cls)(4, dropout=0.3, recurrent_dropout=0.4)
    x = RNG.standard_normal((5, 6, 3)).astype(np.float32)
    layer(x)
    in_mask = (RNG.random((5, 3)) > 0.3) / 0.7
    rec_mask = (RNG.random((5, 4)) > 0.4) / 0.6
    masks = {0.3: in_mask, 0.4: rec_mask}
    monkeypatch.setattr(layer, "_dropout_mask", lambda like, rate: ember.constant(masks[rate].astype(np.float32)))
    k, u, b = _weights(layer)
    x64 = x.astype(np.float64)
    if cls == "LSTM":
        want = np_lstm(x64, k, u, b, in_mask=in_mask, rec_mask=rec_mask)[1]
        plain = np_lstm(x64, k, u, b)[1]
    else:
        want, plain = np_gru(x64, k, u, b, in_mask, rec_mask), np_gru(x64, k, u, b)
    np.testing.assert_allclose(layer(x, training=True).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer(x).numpy(), plain, rtol=1e-5, atol=1e-6)


def test_fit_with_rnn_dropout_trains_and_predict_is_deterministic():
    model = keras.Sequential([keras.Input((5, 2)), layers.LSTM(8, dropout=0.2, recurrent_dropout=0.2),
                              layers.Dense(1)])
    model.compile(keras.optimizers.Adam(0.02), "mse")
    x = RNG.standard_normal((64, 5, 2)).astype(np.float32)
    y = x.sum(axis=(1, 2))[:, None].astype(np.float32)
    history = model.fit(x, y, epochs=8, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    # No dropout at inference: two runs agree (up to the last bit of a threaded matmul).
    np.testing.assert_allclose(model.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


def test_stateful_bidirectional_carries_both_directions():
    model = keras.Sequential([keras.Input((3, 2), batch_size=2),
                              layers.Bidirectional(layers.SimpleRNN(3, stateful=True), merge_mode=None)])
    bi = model.layers[0]
    x = RNG.standard_normal((2, 3, 2)).astype(np.float32)
    first = [t.numpy() for t in bi(x)]
    second = [t.numpy() for t in bi(x)]
    assert len(bi.states) == 2 and not np.allclose(first[0], second[0]) and not np.allclose(first[1], second[1])
    k, u, b = (v.numpy().astype(np.float64) for v in bi.forward_layer.weights)
    h = np.zeros((2, 3))
    for _ in range(2):  # the forward direction: the sequence twice, the state carried over
        for t in range(3):
            h = np.tanh(x[:, t] @ k + h @ u + b)
    np.testing.assert_allclose(second[0], h, rtol=1e-5, atol=1e-6)
    bi.reset_state()
    np.testing.assert_allclose(bi(x)[0].numpy(), first[0], rtol=1e-6)
    with pytest.raises(AttributeError):
        layers.Bidirectional(layers.LSTM(2)).reset_state()

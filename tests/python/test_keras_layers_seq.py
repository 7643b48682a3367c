"""ember.keras normalization, recurrent and attention layers against NumPy references, with gradients."""

import numpy as np
import pytest

from ember import keras
from ember.keras import layers

from keras_helpers import check_layer_gradients

RNG = np.random.default_rng(0)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_batch_normalization_training_updates_moving_stats_inference_uses_them():
    layer = layers.BatchNormalization(momentum=0.9, epsilon=1e-3)
    x = RNG.standard_normal((16, 3)).astype(np.float32) * 2 + 5
    y = layer(x, training=True).numpy()
    mean, var = x.mean(0), x.var(0)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(layer.moving_variance.numpy(), 0.9 + 0.1 * var, rtol=1e-5)
    inference = layer(x).numpy()
    np.testing.assert_allclose(inference, (x - 0.1 * mean) / np.sqrt(0.9 + 0.1 * var + 1e-3), rtol=1e-4)
    assert [w.name for w in layer.trainable_weights] == ["gamma", "beta"]
    assert [w.name for w in layer.non_trainable_weights] == ["moving_mean", "moving_variance"]
    # A frozen layer runs in inference mode even when training (Keras 3).
    layer.trainable = False
    before = layer.moving_mean.numpy().copy()
    np.testing.assert_allclose(layer(x, training=True).numpy(), inference, rtol=1e-5)
    np.testing.assert_array_equal(layer.moving_mean.numpy(), before)


def test_batch_normalization_conv_axis_and_gradients():
    layer = layers.BatchNormalization()
    assert layer(keras.Input((4, 4, 3))).shape == (None, 4, 4, 3)
    assert layer.gamma.shape == (3,)
    check_layer_gradients(layers.BatchNormalization(dtype="float64"), RNG.standard_normal((4, 2, 3)),
                          rtol=1e-4, atol=1e-6, training=True)
    config = layer.get_config()
    assert layers.BatchNormalization.from_config(config).get_config() == config


def test_layer_normalization():
    layer = layers.LayerNormalization(epsilon=1e-5)
    x = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-4, atol=1e-5)
    check_layer_gradients(layers.LayerNormalization(dtype="float64"), RNG.standard_normal((2, 4)), rtol=1e-4,
                          atol=1e-6)


def np_lstm(x, k, u, b):
    n, t, _ = x.shape
    units = u.shape[0]
    h, c = np.zeros((n, units)), np.zeros((n, units))
    outs = []
    for s in range(t):
        z = x[:, s] @ k + h @ u + b
        i, f, g, o = np.split(z, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs, 1), h, c


def np_gru(x, k, u, b):
    n, t, _ = x.shape
    units = u.shape[0]
    h = np.zeros((n, units))
    outs = []
    for s in range(t):
        xz, xr, xh = np.split(x[:, s] @ k + b[0], 3, axis=-1)
        hz, hr, hh = np.split(h @ u + b[1], 3, axis=-1)
        z, r = sigmoid(xz + hz), sigmoid(xr + hr)
        h = z * h + (1 - z) * np.tanh(xh + r * hh)
        outs.append(h)
    return np.stack(outs, 1), h


def test_lstm_matches_numpy_and_returns_sequences_and_state():
    layer = layers.LSTM(4, return_sequences=True, return_state=True)
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    seq, h, c = [t.numpy() for t in layer(x)]
    bias = layer.bias.numpy()
    np.testing.assert_array_equal(bias[4:8], 1.0)  # unit_forget_bias
    want_seq, want_h, want_c = np_lstm(x, layer.kernel.numpy(), layer.recurrent_kernel.numpy(), bias)
    np.testing.assert_allclose(seq, want_seq, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h, want_h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c, want_c, rtol=1e-4, atol=1e-5)
    assert layers.LSTM(4)(keras.Input((5, 3))).shape == (None, 4)
    assert layers.LSTM(4, return_sequences=True)(keras.Input((5, 3))).shape == (None, 5, 4)


def test_gru_matches_numpy():
    layer = layers.GRU(3)
    x = RNG.standard_normal((2, 4, 2)).astype(np.float32)
    y = layer(x).numpy()
    assert layer.bias.shape == (2, 9)
    _, want = np_gru(x, layer.kernel.numpy(), layer.recurrent_kernel.numpy(), layer.bias.numpy())
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)


def test_simple_rnn_and_go_backwards():
    layer = layers.SimpleRNN(3, go_backwards=True)
    x = RNG.standard_normal((2, 4, 2)).astype(np.float32)
    layer(x)
    h = np.zeros((2, 3))
    for s in reversed(range(4)):
        h = np.tanh(x[:, s] @ layer.kernel.numpy() + h @ layer.recurrent_kernel.numpy() + layer.bias.numpy())
    np.testing.assert_allclose(layer(x).numpy(), h, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls", [layers.LSTM, layers.GRU])
def test_recurrent_gradients_and_config(cls):
    check_layer_gradients(cls(2, dtype="float64"), RNG.standard_normal((2, 3, 2)), rtol=1e-4, atol=1e-6)
    config = cls(5, return_sequences=True).get_config()
    assert cls.from_config(config).get_config() == config


def np_mha(q, v, layer, mask=None):
    def proj(x, name):
        return np.einsum("btd,dhk->bthk", x, getattr(layer, f"{name}_kernel").numpy()) + getattr(
            layer, f"{name}_bias").numpy()
    qp, kp, vp = proj(q, "query") / np.sqrt(layer.key_dim), proj(v, "key"), proj(v, "value")
    scores = np.einsum("bthk,bshk->bhts", qp, kp)
    if mask is not None:
        scores = np.where(mask[:, None], scores, -1e9)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    ctx = np.einsum("bhts,bshk->bthk", w, vp)
    return np.einsum("bthk,hko->bto", ctx, layer.output_kernel.numpy()) + layer.output_bias.numpy(), w


def test_multi_head_attention_matches_numpy_with_mask():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3)
    q = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    v = RNG.standard_normal((2, 6, 5)).astype(np.float32)
    mask = RNG.random((2, 4, 6)) > 0.3
    mask[:, :, 0] = True
    out, scores = layer(q, v, attention_mask=mask, return_attention_scores=True)
    want, want_scores = np_mha(q, v, layer, mask)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-4, atol=1e-5)
    assert layer.output_kernel.shape == (2, 3, 5)
    sym = layers.MultiHeadAttention(2, 4)(keras.Input((4, 8)), keras.Input((6, 8)))
    assert sym.shape == (None, 4, 8)


def test_multi_head_attention_gradients():
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=2, dtype="float64")
    x = RNG.standard_normal((1, 3, 4))

    class Self(layers.Layer):
        def __init__(self):
            super().__init__(dtype="float64")
            self.mha = layer

        def call(self, inputs):
            return self.mha(inputs, inputs)

    check_layer_gradients(Self(), x, rtol=1e-4, atol=1e-6)


def test_recurrent_kernels_start_orthogonal_like_keras():
    layer = layers.GRU(4)
    layer(np.zeros((1, 2, 3), np.float32))
    u = layer.recurrent_kernel.numpy()  # (4, 12): orthonormal rows
    np.testing.assert_allclose(u @ u.T, np.eye(4), atol=1e-5)
    config = layer.get_config()
    assert config["recurrent_initializer"]["class_name"] == "Orthogonal"
    assert layers.GRU.from_config(config).get_config() == config


def test_time_distributed_applies_the_layer_per_step():
    layer = layers.TimeDistributed(layers.Dense(4))
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    dense = layer.layer
    np.testing.assert_allclose(layer(x).numpy(), x @ dense.kernel.numpy() + dense.bias.numpy(), rtol=1e-5,
                               atol=1e-6)
    assert layer(keras.Input((5, 3))).shape == (None, 5, 4)
    assert len(layer.trainable_weights) == 2
    check_layer_gradients(layers.TimeDistributed(layers.Dense(2, dtype="float64"), dtype="float64"),
                          RNG.standard_normal((2, 3, 2)))


@pytest.mark.parametrize("merge_mode", ["concat", "sum"])
def test_bidirectional_lstm_matches_numpy(merge_mode):
    layer = layers.Bidirectional(layers.LSTM(3, return_sequences=True), merge_mode=merge_mode)
    x = RNG.standard_normal((2, 4, 2)).astype(np.float32)
    out = layer(x).numpy()
    f, b = layer.forward_layer, layer.backward_layer
    forward, _, _ = np_lstm(x, f.kernel.numpy(), f.recurrent_kernel.numpy(), f.bias.numpy())
    backward, _, _ = np_lstm(x[:, ::-1], b.kernel.numpy(), b.recurrent_kernel.numpy(), b.bias.numpy())
    backward = backward[:, ::-1]  # back in input time order
    want = np.concatenate([forward, backward], -1) if merge_mode == "concat" else forward + backward
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
    assert len(layer.weights) == 6
    config = layer.get_config()
    assert layers.Bidirectional.from_config(config).get_config() == config
    assert layers.Bidirectional(layers.GRU(3))(keras.Input((4, 2))).shape == (None, 6)


def test_group_normalization():
    layer = layers.GroupNormalization(groups=2, epsilon=1e-5)
    x = RNG.standard_normal((2, 3, 3, 4)).astype(np.float32)
    g = x.reshape(2, 3, 3, 2, 2)
    mean, var = g.mean(axis=(1, 2, 4), keepdims=True), g.var(axis=(1, 2, 4), keepdims=True)
    want = ((g - mean) / np.sqrt(var + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-4, atol=1e-5)
    assert layer.gamma.shape == (4,) and layer(keras.Input((3, 3, 4))).shape == (None, 3, 3, 4)
    check_layer_gradients(layers.GroupNormalization(groups=2, dtype="float64"), RNG.standard_normal((2, 2, 4)),
                          rtol=1e-4, atol=1e-6)
    config = layer.get_config()
    assert layers.GroupNormalization.from_config(config).get_config() == config
    with pytest.raises(ValueError):
        layers.GroupNormalization(groups=3)(x)


def test_unknown_time_steps_are_a_clear_error():
    with pytest.raises(ValueError, match="time steps must be known"):
        layers.LSTM(2)(keras.Input((None, 3)))
    with pytest.raises(ValueError, match="must be known"):
        layers.Flatten()(keras.Input((None, 3)))


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_dot_product_and_additive_attention():
    q = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    v = RNG.standard_normal((2, 5, 4)).astype(np.float32)
    out, w = layers.Attention()([q, v], return_attention_scores=True)
    want_w = _softmax(q @ v.transpose(0, 2, 1))
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.numpy(), want_w @ v, rtol=1e-5, atol=1e-6)
    causal = layers.Attention()([q, q], use_causal_mask=True, return_attention_scores=True)[1].numpy()
    np.testing.assert_allclose(np.triu(causal, 1), 0.0, atol=1e-7)
    value_mask = np.array([[True] * 5, [True, True, False, False, False]])
    masked = layers.Attention()([q, v], mask=[None, value_mask], return_attention_scores=True)[1].numpy()
    np.testing.assert_allclose(masked[1, :, 2:], 0.0, atol=1e-7)
    additive = layers.AdditiveAttention()
    out = additive([q, v]).numpy()
    scores = (np.tanh(q[:, :, None] + v[:, None]) * additive.scale.numpy()).sum(-1)
    np.testing.assert_allclose(out, _softmax(scores) @ v, rtol=1e-4, atol=1e-5)
    assert additive([keras.Input((3, 4)), keras.Input((5, 4))]).shape == (None, 3, 4)

    class SelfAttention(layers.Layer):
        def __init__(self, inner):
            super().__init__(dtype="float64")
            self.inner = inner

        def call(self, inputs):
            return self.inner([inputs, inputs * 0.5])

    for inner in (layers.Attention(use_scale=True, dtype="float64"), layers.AdditiveAttention(dtype="float64")):
        check_layer_gradients(SelfAttention(inner), RNG.standard_normal((2, 3, 2)), rtol=1e-4, atol=1e-6)
    for layer in (layers.Attention(use_scale=True, score_mode="concat"), additive):
        assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()

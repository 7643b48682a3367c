"""ember.keras losses and metrics against NumPy formulas; activations; sample weights; reductions."""

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import activations, losses, metrics

RNG = np.random.default_rng(0)
EPS = 1e-7


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_regression_losses():
    y, p = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    y, p = y.astype(np.float32), p.astype(np.float32)
    assert float(losses.MeanSquaredError()(y, p)) == pytest.approx(np.mean((y - p) ** 2), rel=1e-5)
    assert float(losses.MeanAbsoluteError()(y, p)) == pytest.approx(np.mean(np.abs(y - p)), rel=1e-5)
    np.testing.assert_allclose(losses.mean_squared_error(y, p).numpy(), np.mean((y - p) ** 2, -1), rtol=1e-5)
    sw = np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    per = np.mean((y - p) ** 2, -1)
    assert float(losses.MeanSquaredError()(y, p, sample_weight=sw)) == pytest.approx((per * sw).sum() / 4, rel=1e-5)
    assert float(losses.MeanSquaredError(reduction="sum")(y, p)) == pytest.approx(per.sum(), rel=1e-5)
    np.testing.assert_allclose(losses.MeanSquaredError(reduction=None)(y, p).numpy(), per, rtol=1e-5)


def test_binary_crossentropy_probabilities_and_logits():
    y = RNG.integers(0, 2, (5, 1)).astype(np.float32)
    z = RNG.standard_normal((5, 1)).astype(np.float32)
    p = 1 / (1 + np.exp(-z))
    want = np.mean(-(y * np.log(p) + (1 - y) * np.log(1 - p)))
    assert float(losses.BinaryCrossentropy()(y, p)) == pytest.approx(want, rel=1e-4)
    assert float(losses.BinaryCrossentropy(from_logits=True)(y, z)) == pytest.approx(want, rel=1e-4)
    # Probabilities are clipped to [eps, 1 - eps], as in Keras.
    assert float(losses.binary_crossentropy(np.array([[1.0]]), np.array([[0.0]]))) == pytest.approx(
        -np.log(EPS), rel=1e-3)


def test_categorical_and_sparse_crossentropy():
    labels = RNG.integers(0, 4, 6)
    onehot = keras.utils.to_categorical(labels, 4)
    z = RNG.standard_normal((6, 4)).astype(np.float32)
    p = softmax(z)
    want = np.mean(-np.log(p[np.arange(6), labels]))
    assert float(losses.CategoricalCrossentropy()(onehot, p)) == pytest.approx(want, rel=1e-4)
    assert float(losses.CategoricalCrossentropy(from_logits=True)(onehot, z)) == pytest.approx(want, rel=1e-4)
    assert float(losses.SparseCategoricalCrossentropy()(labels, p)) == pytest.approx(want, rel=1e-4)
    assert float(losses.SparseCategoricalCrossentropy(from_logits=True)(labels[:, None], z)) == pytest.approx(
        want, rel=1e-4)
    smooth = onehot * 0.9 + 0.1 / 4
    assert float(losses.CategoricalCrossentropy(label_smoothing=0.1)(onehot, p)) == pytest.approx(
        np.mean(-(smooth * np.log(p)).sum(-1)), rel=1e-4)


def test_loss_gradients_from_logits():
    labels = np.array([0, 2], np.int32)
    z = ember.constant(RNG.standard_normal((2, 3)).astype(np.float32))
    with ember.GradientTape() as tape:
        tape.watch(z)
        loss = losses.SparseCategoricalCrossentropy(from_logits=True)(labels, z)
    grad = tape.gradient(loss, z).numpy()
    want = (softmax(z.numpy()) - np.eye(3)[labels]) / 2
    np.testing.assert_allclose(grad, want, rtol=1e-4, atol=1e-6)


def test_losses_get_and_config():
    assert isinstance(losses.get("mse"), losses.MeanSquaredError)
    assert isinstance(losses.get("sparse_categorical_crossentropy"), losses.SparseCategoricalCrossentropy)
    bce = losses.BinaryCrossentropy(from_logits=True, label_smoothing=0.2)
    assert losses.BinaryCrossentropy.from_config(bce.get_config()).get_config() == bce.get_config()
    with pytest.raises(ValueError):
        losses.get("nope")


def test_mean_metric_accumulates_and_resets():
    m = metrics.Mean()
    m.update_state([1.0, 2.0, 3.0])
    m.update_state([10.0], sample_weight=[2.0])
    assert float(m.result()) == pytest.approx(26.0 / 5.0)
    m.reset_state()
    assert float(m.result()) == 0.0
    assert float(m([4.0, 6.0])) == 5.0


def test_accuracy_metrics():
    y_true = np.array([1, 0, 2, 2])
    logits = np.array([[0, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32)
    m = metrics.SparseCategoricalAccuracy()
    m.update_state(y_true, logits)
    assert float(m.result()) == 0.75
    c = metrics.CategoricalAccuracy()
    c.update_state(keras.utils.to_categorical(y_true, 3), logits)
    assert float(c.result()) == 0.75
    b = metrics.BinaryAccuracy()
    b.update_state([[1], [0], [1]], [[0.7], [0.6], [0.2]])
    assert float(b.result()) == pytest.approx(1 / 3)
    a = metrics.Accuracy()
    a.update_state([1, 2, 3, 4], [1, 2, 0, 4])
    assert float(a.result()) == 0.75


def test_auc_matches_the_rank_statistic():
    y = RNG.integers(0, 2, 300)
    s = np.clip(y * 0.3 + RNG.random(300) * 0.7, 0, 1).astype(np.float32)
    m = metrics.AUC(num_thresholds=1000)
    m.update_state(y, s)
    pos, neg = s[y == 1], s[y == 0]
    exact = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    assert float(m.result()) == pytest.approx(exact, abs=5e-3)
    m.reset_state()
    m.update_state([0, 1], [0.1, 0.9])
    assert float(m.result()) == pytest.approx(1.0)


def test_metrics_get():
    assert isinstance(metrics.get("mae"), metrics.MeanAbsoluteError)
    custom = metrics.get(lambda y, p: ember.abs(y - p))
    custom.update_state(np.array([1.0, 2.0]), np.array([2.0, 2.0]))
    assert float(custom.result()) == 0.5


def test_activations():
    x = np.array([-2.0, -0.5, 0.0, 1.5], np.float32)
    np.testing.assert_allclose(activations.get("relu")(x).numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(activations.get("softsign")(x).numpy(), x / (1 + np.abs(x)), rtol=1e-6)
    np.testing.assert_allclose(activations.leaky_relu(x, 0.1).numpy(), np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    np.testing.assert_allclose(activations.softmax(x[None]).numpy(), softmax(x[None]), rtol=1e-5)
    np.testing.assert_allclose(activations.elu(x, alpha=2.0).numpy(), np.where(x > 0, x, 2 * (np.exp(x) - 1)),
                               rtol=1e-5)
    assert activations.get(None) is activations.linear
    assert activations.serialize(activations.get("gelu")) == "gelu"
    with pytest.raises(ValueError):
        activations.get("nope")


def test_more_losses():
    y = RNG.random((4, 3)).astype(np.float32)
    p = RNG.random((4, 3)).astype(np.float32)
    y01 = (y > 0.5).astype(np.float32)
    assert float(losses.Hinge()(y01, p)) == pytest.approx(
        np.mean(np.maximum(1 - np.where(y01 == 0, -1, 1) * p, 0)), rel=1e-5)
    t, q = y / y.sum(-1, keepdims=True), p / p.sum(-1, keepdims=True)
    assert float(losses.KLDivergence()(t, q)) == pytest.approx(np.mean((t * np.log(t / q)).sum(-1)), rel=1e-4)
    assert float(losses.LogCosh()(y, p)) == pytest.approx(np.mean(np.log(np.cosh(p - y))), rel=1e-4)
    cos = (y * p).sum(-1) / np.linalg.norm(y, axis=-1) / np.linalg.norm(p, axis=-1)
    assert float(losses.CosineSimilarity()(y, p)) == pytest.approx(-cos.mean(), rel=1e-5)
    assert isinstance(losses.get("kld"), losses.KLDivergence)


def test_precision_recall_and_top_k():
    y = np.array([1, 0, 1, 1, 0], np.float32)
    p = np.array([0.9, 0.8, 0.4, 0.7, 0.1], np.float32)
    precision, recall = metrics.Precision(), metrics.Recall()
    precision.update_state(y, p)
    recall.update_state(y, p)
    assert float(precision.result()) == pytest.approx(2 / 3) and float(recall.result()) == pytest.approx(2 / 3)
    scores = np.array([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1], [0.2, 0.35, 0.45]], np.float32)
    top2 = metrics.SparseTopKCategoricalAccuracy(k=2)
    top2.update_state(np.array([2, 2, 1]), scores)
    assert float(top2.result()) == pytest.approx(2 / 3)
    dense = metrics.TopKCategoricalAccuracy(k=1)
    dense.update_state(keras.utils.to_categorical([1, 0, 0], 3), scores)
    assert float(dense.result()) == pytest.approx(2 / 3)

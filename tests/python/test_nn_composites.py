"""Tests of the Python-level ember.nn composites (python/ember/nn.py) and of kernel-time nn errors."""

import numpy as np
import pytest

import ember


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)


def test_depthwise_conv2d_matches_grouped_reference():
    x, f = _rand(2, 6, 6, 3), _rand(3, 3, 3, 2, seed=1)
    got = ember.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME").numpy()
    xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = np.zeros((2, 6, 6, 3, 2))
    for i in range(3):
        for j in range(3):
            want += xp[:, i:i + 6, j:j + 6, :, None] * f[i, j]
    want = want.reshape(2, 6, 6, 6)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_depthwise_conv2d_rejects_channel_mismatch():
    with pytest.raises(ValueError, match="^depthwise_conv2d: "):
        ember.nn.depthwise_conv2d(_rand(1, 4, 4, 3), _rand(3, 3, 2, 1), 1, "SAME")


@pytest.mark.parametrize("with_params", [True, False])
def test_batch_normalization(with_params):
    x, mean, var = _rand(2, 3, 4), _rand(4, seed=1), np.abs(_rand(4, seed=2)) + 0.5
    offset, scale = (_rand(4, seed=3), _rand(4, seed=4)) if with_params else (None, None)
    got = ember.nn.batch_normalization(x, mean, var, offset, scale, 1e-3).numpy()
    want = (x - mean) / np.sqrt(var + 1e-3) * (1 if scale is None else scale) + (0 if offset is None else offset)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm_inference_and_training(data_format):
    x = _rand(2, 3, 4, 5)
    c = x.shape[1] if data_format == "NCHW" else x.shape[3]
    scale, offset, mean, var = _rand(c, seed=1), _rand(c, seed=2), _rand(c, seed=3), np.abs(_rand(c, seed=4)) + .5
    shape = (1, c, 1, 1) if data_format == "NCHW" else (1, 1, 1, c)
    p = lambda v: v.reshape(shape)  # noqa: E731
    y, m, v = ember.nn.fused_batch_norm(x, scale, offset, mean, var, data_format=data_format)
    np.testing.assert_allclose(y.numpy(), (x - p(mean)) / np.sqrt(p(var) + 1e-3) * p(scale) + p(offset), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_array_equal(m.numpy(), mean)
    axes = (0, 2, 3) if data_format == "NCHW" else (0, 1, 2)
    y, m, v = ember.nn.fused_batch_norm(x, scale, offset, data_format=data_format, is_training=True)
    bm, bv = x.mean(axes), x.var(axes)
    np.testing.assert_allclose(y.numpy(), (x - p(bm)) / np.sqrt(p(bv) + 1e-3) * p(scale) + p(offset), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(m.numpy(), bm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v.numpy(), x.var(axes, ddof=1), rtol=1e-4, atol=1e-6)


def test_swish_is_silu_and_attention_mask_is_optional():
    x = _rand(3, 4)
    np.testing.assert_array_equal(ember.nn.swish(x).numpy(), ember.nn.silu(x).numpy())
    q = _rand(2, 3, 4)
    assert ember.nn.scaled_dot_product_attention(q, q, q).shape == (2, 3, 4)


def test_embedding_lookup():
    if not hasattr(ember, "gather"):
        pytest.skip("ember.gather is not built")
    params, ids = _rand(5, 3), np.array([[0, 4], [2, 2]], np.int32)
    np.testing.assert_array_equal(ember.nn.embedding_lookup(params, ids).numpy(), params[ids])


@pytest.mark.parametrize("async_", [False, True])
def test_sparse_xent_out_of_range_label_is_a_kernel_error(async_):
    previous = ember.config.is_async()
    ember.config.set_async(async_)
    try:
        with pytest.raises(ValueError, match="sparse_softmax_cross_entropy_with_logits: .*label value of 3"):
            loss = ember.nn.sparse_softmax_cross_entropy_with_logits(np.array([0, 3], np.int32), _rand(2, 3))
            loss.numpy()
    finally:
        ember.config.set_async(previous)
        try:
            ember.sync()
        except ValueError:
            pass

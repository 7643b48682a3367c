"""Tests of the Python-level ember.nn composites (python/ember/nn.py) and of kernel-time nn errors."""

import ml_dtypes  # noqa: F401 - registers bfloat16 with NumPy
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
    y, m, v = ember.nn.fused_batch_norm(x, scale, offset, mean, var, data_format=data_format, is_training=False)
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


def test_fused_batch_norm_defaults_to_training():
    # As TensorFlow's: is_training=True unless told otherwise; mean and variance are then ignored.
    x, c = _rand(2, 3, 4, 5), 5
    ones, zeros = np.ones(c, np.float32), np.zeros(c, np.float32)
    y, m, v = ember.nn.fused_batch_norm(x, ones, zeros, mean=zeros + 7, variance=ones)
    np.testing.assert_allclose(m.numpy(), x.mean((0, 1, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v.numpy(), x.var((0, 1, 2), ddof=1), rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="^fused_batch_norm: mean and variance are required"):
        ember.nn.fused_batch_norm(x, ones, zeros, is_training=False)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_batch_norms_of_half_types_compute_in_float32(dtype):
    # x is rounded to dtype; everything after is float32, with one rounding of y to dtype (the
    # float64 reference rounded once, so within one unit in the last place).
    tol = {"float16": 1e-3, "bfloat16": 1e-2}[dtype]
    x = _rand(2, 3, 4, 5).astype(dtype)
    xd = x.astype(np.float64)
    scale, offset, mean, var = _rand(5, seed=1), _rand(5, seed=2), _rand(5, seed=3), np.abs(_rand(5, seed=4)) + .5

    def check(y, want):
        assert y.dtype.name == dtype
        np.testing.assert_allclose(y.numpy().astype(np.float64), want.astype(dtype).astype(np.float64), rtol=tol,
                                   atol=tol)

    check(ember.nn.batch_normalization(x, mean, var, offset, scale, 1e-3),
          (xd - mean) / np.sqrt(var + 1e-3) * scale + offset)
    y, m, v = ember.nn.fused_batch_norm(x, scale, offset, mean, var, is_training=False)
    check(y, (xd - mean) / np.sqrt(var + 1e-3) * scale + offset)
    y, m, v = ember.nn.fused_batch_norm(x, scale, offset)
    bm, bv = xd.mean((0, 1, 2)), xd.var((0, 1, 2))
    check(y, (xd - bm) / np.sqrt(bv + 1e-3) * scale + offset)
    assert m.dtype.name == v.dtype.name == "float32"  # TensorFlow's statistics are float32 for half x
    np.testing.assert_allclose(m.numpy(), bm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v.numpy(), xd.var((0, 1, 2), ddof=1), rtol=1e-4, atol=1e-6)


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

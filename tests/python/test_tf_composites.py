"""Composites TensorFlow programs use next to the ops: clip_by_norm,
clip_by_global_norm, linalg.global_norm, nn.moments,
math.reduce_euclidean_norm and meshgrid, against NumPy references, with
gradients and inside @ember.function."""

import numpy as np
import pytest

import ember


def grad_of(fn, x):
    v = ember.Variable(x)
    with ember.GradientTape() as tape:
        y = fn(v)
    return tape.gradient(y, v).numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clip_by_norm(dtype):
    rng = np.random.default_rng(0)
    t = rng.standard_normal((3, 4)).astype(dtype)
    for axes, clip in [(None, 1.0), ([1], 0.5), ([0], 10.0)]:
        norm = np.sqrt((t * t).sum(axis=None if axes is None else tuple(axes), keepdims=True))
        want = t * clip / np.maximum(norm, clip)
        got = ember.clip_by_norm(t, clip, axes=axes)
        assert got.dtype == ember.as_dtype(dtype)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6 if dtype == np.float32 else 1e-12)
    # A zero slice stays zero and its gradient is finite.
    zeros = np.zeros((2, 3), dtype)
    np.testing.assert_array_equal(ember.clip_by_norm(zeros, 1.0).numpy(), zeros)
    assert np.isfinite(grad_of(lambda v: ember.reduce_sum(ember.clip_by_norm(v, 1.0)), zeros)).all()
    with pytest.raises(ValueError, match="scalar"):
        ember.clip_by_norm(t, [1.0, 2.0])
    with pytest.raises(TypeError, match="floating"):
        ember.clip_by_norm(np.array([1, 2], np.int32), 1.0)


def test_clip_by_norm_gradient_matches_finite_differences():
    x = np.array([3.0, 4.0, 1.0])
    f = lambda v: ember.reduce_sum(ember.clip_by_norm(v, 2.0) * np.array([1.0, 2.0, 3.0]))  # noqa: E731
    analytic = grad_of(f, x)
    eps = 1e-6
    numeric = [(float(f(ember.constant(x + eps * e))) - float(f(ember.constant(x - eps * e)))) / (2 * eps)
               for e in np.eye(3)]
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6)


def test_clip_by_global_norm_and_global_norm():
    a = np.array([3.0, 4.0], np.float32)
    b = np.array([[12.0]], np.float32)
    norm = np.sqrt(9 + 16 + 144)  # 13
    np.testing.assert_allclose(ember.linalg.global_norm([a, None, b]).numpy(), norm, rtol=1e-6)
    clipped, got_norm = ember.clip_by_global_norm([a, None, b], 6.5)
    assert clipped[1] is None
    np.testing.assert_allclose(got_norm.numpy(), norm, rtol=1e-6)
    np.testing.assert_allclose(clipped[0].numpy(), a * 0.5, rtol=1e-6)
    np.testing.assert_allclose(clipped[2].numpy(), b * 0.5, rtol=1e-6)
    # Under the limit nothing changes; use_norm replaces the computed norm.
    same, _ = ember.clip_by_global_norm([a], 100.0)
    np.testing.assert_allclose(same[0].numpy(), a, rtol=1e-6)
    halved, used = ember.clip_by_global_norm([a], 1.0, use_norm=2.0)
    np.testing.assert_allclose(halved[0].numpy(), a / 2, rtol=1e-6)
    assert float(used) == 2.0
    # An infinite norm makes every value NaN, as in TensorFlow.
    inf_clipped, inf_norm = ember.clip_by_global_norm([np.array([np.inf, 1.0], np.float32)], 1.0)
    assert np.isinf(inf_norm.numpy()) and np.isnan(inf_clipped[0].numpy()).all()
    with pytest.raises(TypeError, match="sequence"):
        ember.clip_by_global_norm(ember.constant([1.0]), 1.0)


@pytest.mark.parametrize("keepdims", [False, True])
def test_moments(keepdims):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 5, 6)).astype(np.float32)
    for axes in ([0], [0, 1], [2]):
        mean, variance = ember.nn.moments(x, axes, keepdims=keepdims)
        np.testing.assert_allclose(mean.numpy(), x.mean(axis=tuple(axes), keepdims=keepdims), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(variance.numpy(), x.var(axis=tuple(axes), keepdims=keepdims), rtol=1e-5,
                                   atol=1e-6)
    # The mean is a constant inside the variance, as in TensorFlow: d var / dx = 2 (x - mean) / n.
    v = np.array([1.0, 2.0, 6.0])
    np.testing.assert_allclose(grad_of(lambda t: ember.nn.moments(t, [0])[1], v), 2 * (v - v.mean()) / 3)


def test_reduce_euclidean_norm():
    x = np.array([[3.0, 4.0], [6.0, 8.0]], np.float32)
    np.testing.assert_allclose(ember.math.reduce_euclidean_norm(x).numpy(), np.sqrt((x * x).sum()), rtol=1e-6)
    np.testing.assert_allclose(ember.math.reduce_euclidean_norm(x, axis=1, keepdims=True).numpy(), [[5.0], [10.0]])
    ints = ember.math.reduce_euclidean_norm(np.array([[1, 2], [3, 3]], np.int32), axis=1)
    assert ints.dtype == ember.int32
    np.testing.assert_array_equal(ints.numpy(), [2, 4])  # sqrt 5 and sqrt 18, truncated
    with pytest.raises(TypeError, match="complex"):
        ember.math.reduce_euclidean_norm(np.array([3 + 4j], np.complex64))


def test_meshgrid_matches_numpy():
    for args in ([[1, 2, 3], [4, 5]], [[1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0]], [[1, 2, 3]]):
        for indexing in ("xy", "ij"):
            got = ember.meshgrid(*args, indexing=indexing)
            want = np.meshgrid(*[np.array(a) for a in args], indexing=indexing)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g.numpy(), w)
    assert ember.meshgrid() == []
    with pytest.raises(ValueError, match="indexing"):
        ember.meshgrid([1], [2], indexing="yx")


def test_composites_inside_a_function():
    @ember.function
    def step(x):
        mean, variance = ember.nn.moments(x, [0])
        (clipped,), _ = ember.clip_by_global_norm([x], 1.0)
        return mean, variance, ember.clip_by_norm(x, 1.0), clipped, ember.math.reduce_euclidean_norm(x)

    x = np.array([[3.0, 0.0], [0.0, 4.0]], np.float32)
    mean, variance, clipped, global_clipped, norm = step(x)
    np.testing.assert_allclose(mean.numpy(), [1.5, 2.0])
    np.testing.assert_allclose(variance.numpy(), [2.25, 4.0])
    np.testing.assert_allclose(clipped.numpy(), x / 5.0, rtol=1e-6)
    np.testing.assert_allclose(global_clipped.numpy(), x / 5.0, rtol=1e-6)
    np.testing.assert_allclose(norm.numpy(), 5.0)


def test_matrix_helpers_match_numpy():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(ember.linalg.matrix_transpose(x).numpy(), np.swapaxes(x, -1, -2))
    v = rng.standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(ember.linalg.matvec(x, v).numpy(), np.einsum("bij,bj->bi", x, v), rtol=1e-5)
    w = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(ember.linalg.matvec(x, w, transpose_a=True).numpy(), np.einsum("bij,bi->bj", x, w),
                               rtol=1e-5)
    d = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(ember.linalg.diag(d).numpy(), np.stack([np.diag(r) for r in d]))
    np.testing.assert_array_equal(ember.linalg.diag_part(x).numpy(), np.diagonal(x, axis1=-2, axis2=-1))
    np.testing.assert_allclose(ember.linalg.trace(x).numpy(), np.trace(x, axis1=-2, axis2=-1), rtol=1e-6)
    # Off-diagonal infinities do not leak into the diagonal.
    inf = np.array([[1.0, np.inf], [-np.inf, 2.0]], np.float32)
    np.testing.assert_array_equal(ember.linalg.diag_part(inf).numpy(), [1.0, 2.0])
    with pytest.raises(NotImplementedError, match="k=0"):
        ember.linalg.diag_part(x, k=1)
    with pytest.raises(ValueError, match="rank 2"):
        ember.linalg.trace(np.ones(3, np.float32))


@pytest.mark.parametrize("lower,upper", [(-1, 0), (0, -1), (0, 0), (1, 2), (-1, -1)])
def test_band_part_matches_the_definition(lower, upper):
    x = np.arange(1, 21, dtype=np.float32).reshape(4, 5)
    i, j = np.indices(x.shape)
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    np.testing.assert_array_equal(ember.linalg.band_part(x, lower, upper).numpy(), np.where(keep, x, 0))


def test_matrix_helpers_differentiate():
    x = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(grad_of(ember.linalg.trace, x), np.eye(3))
    np.testing.assert_array_equal(grad_of(lambda v: ember.reduce_sum(ember.linalg.band_part(v, 0, -1)), x),
                                  np.triu(np.ones((3, 3))))


def conv1d_reference(x, f, stride, padding, dilation=1):
    k = (f.shape[0] - 1) * dilation + 1
    if padding == "SAME":
        out = -(-x.shape[1] // stride)
        total = max((out - 1) * stride + k - x.shape[1], 0)
        x = np.pad(x, ((0, 0), (total // 2, total - total // 2), (0, 0)))
    width = (x.shape[1] - k) // stride + 1
    return np.stack([sum(x[:, i * stride + t * dilation, :] @ f[t] for t in range(f.shape[0]))
                     for i in range(width)], axis=1)


@pytest.mark.parametrize("stride,padding,dilation", [(1, "VALID", 1), (2, "SAME", 1), (1, "SAME", 2), (3, "VALID", 2)])
def test_conv1d_matches_a_direct_sum(stride, padding, dilation):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 9, 3)).astype(np.float32)
    f = rng.standard_normal((3, 3, 4)).astype(np.float32)
    want = conv1d_reference(x, f, stride, padding, dilation)
    np.testing.assert_allclose(ember.nn.conv1d(x, f, stride, padding, dilations=dilation).numpy(), want, atol=1e-5)
    ncw = ember.nn.conv1d(np.transpose(x, (0, 2, 1)), f, [1, 1, stride], padding, data_format="NCW",
                          dilations=dilation)
    np.testing.assert_allclose(np.transpose(ncw.numpy(), (0, 2, 1)), want, atol=1e-5)
    with pytest.raises(ValueError, match="rank 3"):
        ember.nn.conv1d(x[0], f, 1, "VALID")

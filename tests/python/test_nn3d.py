"""nn.conv3d, nn.max_pool3d and nn.avg_pool3d (composites of the 2-D ops, python/ember/_nn3d.py)
against direct NumPy loops over each output position, and their gradients against central
differences."""

import numpy as np
import pytest

import ember

nn = ember.nn


def _geometry(size, window, stride, padding):
    """TensorFlow's output length and padding before, for one dim."""
    if padding == "SAME":
        out = -(-size // stride)
        return out, max((out - 1) * stride + window - size, 0) // 2
    return (size - window) // stride + 1, 0


def ref_conv3d(x, f, strides, padding, dilations=(1, 1, 1)):
    """NDHWC x, [kd, kh, kw, in / groups, out] f; float64 loops over output positions."""
    x, f = x.astype(np.float64), f.astype(np.float64)
    n, *spatial, channels = x.shape
    *window, f_in, f_out = f.shape
    groups = channels // f_in
    eff = [(k - 1) * d + 1 for k, d in zip(window, dilations)]
    geo = [_geometry(s, e, st, padding) for s, e, st in zip(spatial, eff, strides)]
    out = np.zeros((n, *[g[0] for g in geo], f_out))
    per_group = f_out // groups
    for pos in np.ndindex(*[g[0] for g in geo]):
        acc = np.zeros((n, f_out))
        for tap in np.ndindex(*window):
            src = [p * st + t * d - g[1] for p, st, t, d, g in zip(pos, strides, tap, dilations, geo)]
            if any(s < 0 or s >= size for s, size in zip(src, spatial)):
                continue
            v = x[(slice(None), *src)]  # [n, channels]
            for g in range(groups):
                acc[:, g * per_group:(g + 1) * per_group] += (
                    v[:, g * f_in:(g + 1) * f_in] @ f[(*tap,)][:, g * per_group:(g + 1) * per_group])
        out[(slice(None), *pos)] = acc
    return out


def ref_pool3d(x, ksize, strides, padding, kind):
    x = x.astype(np.float64)
    n, *spatial, c = x.shape
    geo = [_geometry(s, k, st, padding) for s, k, st in zip(spatial, ksize, strides)]
    out = np.zeros((n, *[g[0] for g in geo], c))
    for pos in np.ndindex(*[g[0] for g in geo]):
        lo = [max(p * st - g[1], 0) for p, st, g in zip(pos, strides, geo)]
        hi = [min(p * st - g[1] + k, s) for p, st, g, k, s in zip(pos, strides, geo, ksize, spatial)]
        window = x[:, lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2], :]
        out[(slice(None), *pos)] = window.max(axis=(1, 2, 3)) if kind == "max" else window.mean(axis=(1, 2, 3))
    return out


_CONV_CASES = [
    # (input shape, filter shape, strides, padding, dilations)
    ((2, 5, 6, 4, 3), (2, 3, 2, 3, 4), (1, 1, 1), "VALID", (1, 1, 1)),
    ((1, 5, 5, 5, 2), (3, 3, 3, 2, 3), (1, 1, 1), "SAME", (1, 1, 1)),
    ((2, 7, 6, 5, 2), (3, 2, 3, 2, 2), (2, 2, 1), "SAME", (1, 1, 1)),
    ((1, 8, 5, 6, 1), (2, 2, 2, 1, 2), (3, 1, 2), "VALID", (1, 1, 1)),
    ((1, 7, 7, 7, 2), (2, 2, 2, 2, 1), (1, 1, 1), "SAME", (2, 3, 1)),
    ((1, 4, 4, 4, 4), (1, 1, 1, 2, 6), (1, 1, 1), "VALID", (1, 1, 1)),  # two groups
    ((1, 1, 3, 3, 2), (1, 3, 3, 2, 2), (1, 1, 1), "SAME", (1, 1, 1)),
    ((0, 4, 4, 4, 2), (2, 2, 2, 2, 3), (1, 1, 1), "SAME", (1, 1, 1)),  # empty batch
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("x_shape, f_shape, strides, padding, dilations", _CONV_CASES)
def test_conv3d_matches_loops(x_shape, f_shape, strides, padding, dilations, dtype):
    rng = np.random.default_rng(sum(x_shape))
    x = rng.uniform(-1, 1, x_shape).astype(dtype)
    f = rng.uniform(-1, 1, f_shape).astype(dtype)
    got = nn.conv3d(x, f, [1, *strides, 1], padding, dilations=[1, *dilations, 1])
    want = ref_conv3d(x, f, strides, padding, dilations)
    assert got.dtype == ember.as_dtype(dtype) and got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    # Channels first gives the same values, transposed.
    first = nn.conv3d(np.transpose(x, (0, 4, 1, 2, 3)), f, [1, 1, *strides], padding, data_format="NCDHW",
                      dilations=[1, 1, *dilations])
    np.testing.assert_allclose(first.numpy(), np.transpose(want, (0, 4, 1, 2, 3)), rtol=1e-5, atol=1e-5)


_POOL_CASES = [
    ((2, 4, 5, 6, 3), (2, 2, 2), (2, 2, 2), "VALID"),
    ((1, 5, 5, 5, 2), (3, 3, 3), (1, 1, 1), "SAME"),
    ((2, 7, 4, 5, 1), (3, 2, 2), (2, 1, 2), "SAME"),
    ((1, 6, 3, 3, 2), (4, 1, 3), (3, 1, 1), "VALID"),
    ((1, 2, 2, 2, 1), (3, 3, 3), (2, 2, 2), "SAME"),  # windows wider than the input
    ((0, 3, 3, 3, 2), (2, 2, 2), (1, 1, 1), "SAME"),
]


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("x_shape, ksize, strides, padding", _POOL_CASES)
def test_pool3d_matches_loops(x_shape, ksize, strides, padding, kind):
    x = np.random.default_rng(sum(x_shape)).uniform(-2, 2, x_shape).astype(np.float32)
    pool = nn.max_pool3d if kind == "max" else nn.avg_pool3d
    want = ref_pool3d(x, ksize, strides, padding, kind)
    got = pool(x, [1, *ksize, 1], [1, *strides, 1], padding)
    assert got.shape == want.shape and got.dtype == ember.float32
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)
    # The rank-generic tf.nn.max_pool / avg_pool take rank-5 inputs, with 3-element windows.
    generic = (nn.max_pool if kind == "max" else nn.avg_pool)(x, list(ksize), list(strides), padding)
    np.testing.assert_allclose(generic.numpy(), want, rtol=1e-6, atol=1e-6)
    first = pool(np.transpose(x, (0, 4, 1, 2, 3)), list(ksize), list(strides), padding, data_format="NCDHW")
    np.testing.assert_allclose(first.numpy(), np.transpose(want, (0, 4, 1, 2, 3)), rtol=1e-6, atol=1e-6)


def test_max_pool3d_keeps_integer_dtypes_and_ignores_padding():
    x = -np.arange(1, 28, dtype=np.int32).reshape(1, 3, 3, 3, 1)  # all negative: padding must not win
    got = nn.max_pool3d(x, 2, 2, "SAME")
    assert got.dtype == ember.int32
    np.testing.assert_array_equal(got.numpy(), ref_pool3d(x, (2, 2, 2), (2, 2, 2), "SAME", "max").astype(np.int32))


def _numeric_grad(fn, x, weights, step=1e-6):
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[idx] += step
        minus[idx] -= step
        grad[idx] = (np.sum(fn(plus) * weights) - np.sum(fn(minus) * weights)) / (2 * step)
    return grad


def _tape_grads(fn, arrays, weights):
    tensors = [ember.constant(a) for a in arrays]
    with ember.GradientTape() as tape:
        tape.watch(tensors)
        loss = ember.reduce_sum(fn(*tensors) * ember.constant(weights))
    return [g.numpy() for g in tape.gradient(loss, tensors)]


@pytest.mark.parametrize("strides, padding, dilations", [((1, 1, 1), "SAME", (1, 1, 1)),
                                                         ((2, 1, 2), "VALID", (1, 1, 1)),
                                                         ((1, 2, 1), "SAME", (2, 1, 1))])
def test_conv3d_gradients(strides, padding, dilations):
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, (2, 4, 3, 4, 2))
    f = rng.uniform(-1, 1, (2, 2, 2, 2, 3))
    fn = lambda a, b: nn.conv3d(a, b, [1, *strides, 1], padding, dilations=[1, *dilations, 1])  # noqa: E731
    weights = rng.standard_normal(ref_conv3d(x, f, strides, padding, dilations).shape)
    dx, df = _tape_grads(fn, [x, f], weights)
    np.testing.assert_allclose(dx, _numeric_grad(lambda v: ref_conv3d(v, f, strides, padding, dilations), x, weights),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(df, _numeric_grad(lambda v: ref_conv3d(x, v, strides, padding, dilations), f, weights),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_pool3d_gradients(kind, padding):
    rng = np.random.default_rng(11)
    # Distinct values one step apart: no window has a tie, so max pooling is smooth here.
    x = rng.permutation(90).astype(np.float64).reshape(1, 3, 5, 6, 1) * 0.1
    ksize, strides = (2, 3, 2), (1, 2, 2)
    pool = nn.max_pool3d if kind == "max" else nn.avg_pool3d
    weights = rng.standard_normal(ref_pool3d(x, ksize, strides, padding, kind).shape)
    (dx,) = _tape_grads(lambda a: pool(a, list(ksize), list(strides), padding), [x], weights)
    want = _numeric_grad(lambda v: ref_pool3d(v, ksize, strides, padding, kind), x, weights)
    np.testing.assert_allclose(dx, want, rtol=1e-5, atol=1e-6)


def test_errors_name_the_function():
    x = np.ones((1, 3, 3, 3, 2), np.float32)
    f = np.ones((2, 2, 2, 2, 1), np.float32)
    with pytest.raises(ValueError, match="^conv3d: input must have rank 5"):
        nn.conv3d(np.ones((3, 3, 3, 2), np.float32), f, [1, 1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="^conv3d: filters must have rank 5"):
        nn.conv3d(x, np.ones((2, 2, 2, 1), np.float32), [1, 1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="^conv3d: input channels"):
        nn.conv3d(x, np.ones((2, 2, 2, 3, 1), np.float32), [1, 1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="^conv3d: strides must be 1 in the batch"):
        nn.conv3d(x, f, [2, 1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="^conv3d: strides"):
        nn.conv3d(x, f, [1, 0, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="^conv3d: padding"):
        nn.conv3d(x, f, [1, 1, 1, 1, 1], "FULL")
    with pytest.raises(ValueError, match="^conv3d: data_format"):
        nn.conv3d(x, f, [1, 1, 1, 1, 1], "SAME", data_format="NHWC")
    with pytest.raises(ValueError, match="^conv3d: the depth window"):
        nn.conv3d(x, np.ones((4, 1, 1, 2, 1), np.float32), [1, 1, 1, 1, 1], "VALID")
    with pytest.raises(TypeError, match="^conv3d: input must have a floating dtype"):
        nn.conv3d(x.astype(np.int32), f.astype(np.int32), [1, 1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="^max_pool3d: ksize"):
        nn.max_pool3d(x, [1, 2, 2, 1], 1, "SAME")
    with pytest.raises(ValueError, match="^avg_pool3d: the width window"):
        nn.avg_pool3d(x, [1, 1, 1, 4, 1], 1, "VALID")
    with pytest.raises(TypeError, match="^avg_pool3d: input must have a floating dtype"):
        nn.avg_pool3d(x.astype(np.int32), 2, 1, "SAME")
    with pytest.raises(TypeError, match="^max_pool3d: input must have a real dtype"):
        nn.max_pool3d(x.astype(np.bool_), 2, 1, "SAME")


def test_huge_windows_cost_no_more_than_the_input():
    # Window depths that only read padding are skipped: a 2^40-deep window is one input's worth.
    x = np.random.default_rng(5).uniform(-1, 1, (1, 3, 3, 3, 2)).astype(np.float32)
    np.testing.assert_allclose(nn.avg_pool3d(x, 2 ** 40, 2 ** 40, "SAME").numpy(),
                               x.mean(axis=(1, 2, 3), keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nn.max_pool3d(x, [1, 2 ** 62, 1, 1, 1], 1, "SAME").numpy(),
                               np.broadcast_to(x.max(axis=1, keepdims=True), x.shape), rtol=1e-6)
    f = np.ones((2, 1, 1, 2, 1), np.float32)
    # Dilated by 2^40, both filter taps sit 2^39 depths away from every output: zeros.
    got = nn.conv3d(x, f, [1, 1, 1, 1, 1], "SAME", dilations=[1, 2 ** 40, 1, 1, 1])
    np.testing.assert_array_equal(got.numpy(), np.zeros((1, 3, 3, 3, 1), np.float32))
    with pytest.raises(ValueError, match="^max_pool3d: ksize"):
        nn.max_pool3d(x, "x", 1, "SAME")


def test_deeply_nested_arguments_raise_named_errors():
    deep = 1
    for _ in range(3000):
        deep = [deep]
    x = np.ones((1, 2, 2, 2, 1), np.float32)
    with pytest.raises(ValueError, match="^max_pool3d: ksize"):
        nn.max_pool3d(x, deep, 1, "SAME")
    with pytest.raises(ValueError, match="^conv3d: padding"):
        nn.conv3d(x, np.ones((1, 1, 1, 1, 1), np.float32), 1, deep)
    with pytest.raises(ValueError, match="^resize: size"):
        ember.image.resize(np.ones((2, 2, 1), np.float32), deep)
    with pytest.raises(ValueError, match="^resize: method"):
        ember.image.resize(np.ones((2, 2, 1), np.float32), [3, 3], method=deep)
    with pytest.raises(ValueError, match="^rfft2d: fft_length"):
        ember.signal.rfft2d(np.ones((2, 2), np.float32), fft_length=deep)

"""ember.keras convolution and pooling layers against NumPy references; gradients; Keras' output shapes."""

import numpy as np
import pytest

import ember
from ember import keras
from ember.keras import layers

from keras_helpers import check_layer_gradients


def np_conv2d(x, k, stride=(1, 1), padding="valid"):
    """Cross-correlation, NHWC input, [kh, kw, in, out] kernel, TensorFlow's SAME padding."""
    n, h, w, c = x.shape
    kh, kw, _, o = k.shape
    sh, sw = stride
    if padding == "same":
        oh, ow = -(-h // sh), -(-w // sw)
        ph, pw = max((oh - 1) * sh + kh - h, 0), max((ow - 1) * sw + kw - w, 0)
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    oh, ow = (x.shape[1] - kh) // sh + 1, (x.shape[2] - kw) // sw + 1
    out = np.zeros((n, oh, ow, o))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * sh:i * sh + kh, j * sw:j * sw + kw, :]
            out[:, i, j, :] = np.tensordot(patch, k, axes=([1, 2, 3], [0, 1, 2]))
    return out


def np_conv2d_transpose(x, k, stride, padding):
    """Scatter each input pixel times the kernel ([kh, kw, out, in]); crop for SAME as TensorFlow."""
    n, h, w, c = x.shape
    kh, kw, o, _ = k.shape
    sh, sw = stride
    full = np.zeros((n, (h - 1) * sh + kh, (w - 1) * sw + kw, o))
    for i in range(h):
        for j in range(w):
            full[:, i * sh:i * sh + kh, j * sw:j * sw + kw, :] += np.einsum("nc,hwoc->nhwo", x[:, i, j, :], k)
    if padding == "valid":
        return full
    oh, ow = h * sh, w * sw
    top, left = max(kh - sh, 0) // 2, max(kw - sw, 0) // 2
    full = np.pad(full, [(0, 0), (0, max(oh - full.shape[1], 0)), (0, max(ow - full.shape[2], 0)), (0, 0)])
    return full[:, top:top + oh, left:left + ow, :]


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("strides, padding", [((1, 1), "valid"), ((2, 2), "same"), ((2, 1), "valid")])
def test_conv2d_forward(strides, padding):
    layer = layers.Conv2D(4, (3, 2), strides=strides, padding=padding)
    x = RNG.standard_normal((2, 7, 6, 3)).astype(np.float32)
    y = layer(x).numpy()
    want = np_conv2d(x, layer.kernel.numpy(), strides, padding) + layer.bias.numpy()
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    assert layer.kernel.shape == (3, 2, 3, 4)


def test_conv2d_channels_first_and_gradients():
    layer = layers.Conv2D(2, 2, data_format="channels_first")
    x = RNG.standard_normal((1, 3, 4, 4)).astype(np.float32)
    y = layer(x).numpy()
    want = np_conv2d(x.transpose(0, 2, 3, 1), layer.kernel.numpy()).transpose(0, 3, 1, 2) + layer.bias.numpy()[
        :, None, None]
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    check_layer_gradients(layers.Conv2D(2, 2, strides=2, padding="same", dtype="float64"),
                          RNG.standard_normal((1, 3, 3, 2)))


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
def test_conv1d_forward_and_shapes(padding):
    layer = layers.Conv1D(3, 3, padding=padding)
    x = RNG.standard_normal((2, 6, 2)).astype(np.float32)
    y = layer(x).numpy()
    xs = x
    if padding == "causal":
        xs = np.pad(x, [(0, 0), (2, 0), (0, 0)])
    want = np_conv2d(xs[:, None], layer.kernel.numpy()[None], (1, 1), "same" if padding == "same" else "valid")
    np.testing.assert_allclose(y, want[:, 0] + layer.bias.numpy(), rtol=1e-4, atol=1e-5)
    assert layer(keras.Input((6, 2))).shape == (None, 4 if padding == "valid" else 6, 3)


def test_conv1d_gradients():
    check_layer_gradients(layers.Conv1D(2, 2, strides=2, dtype="float64"), RNG.standard_normal((2, 5, 2)))


@pytest.mark.parametrize("kernel, strides, padding", [((3, 3), (2, 2), "same"), ((3, 3), (2, 2), "valid"),
                                                      ((2, 3), (1, 2), "same"), ((1, 1), (3, 3), "same")])
def test_conv2d_transpose_matches_numpy_and_ember_op(kernel, strides, padding):
    layer = layers.Conv2DTranspose(3, kernel, strides=strides, padding=padding, use_bias=False)
    x = RNG.standard_normal((2, 4, 3, 2)).astype(np.float32)
    y = layer(x).numpy()
    want = np_conv2d_transpose(x, layer.kernel.numpy(), strides, padding)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    op = ember.nn.conv2d_transpose(x, layer.kernel, list(y.shape), [1, *strides, 1], padding.upper()).numpy()
    np.testing.assert_allclose(y, op, rtol=1e-4, atol=1e-5)
    assert layer(keras.Input((4, 3, 2))).shape == (None,) + y.shape[1:]


def test_conv2d_transpose_gradients():
    check_layer_gradients(layers.Conv2DTranspose(2, 3, strides=2, padding="same", dtype="float64"),
                          RNG.standard_normal((1, 2, 2, 2)))


def _np_pool(x, size, stride, op):
    n, h, w, c = x.shape
    oh, ow = (h - size[0]) // stride[0] + 1, (w - size[1]) // stride[1] + 1
    out = np.zeros((n, oh, ow, c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = op(x[:, i * stride[0]:i * stride[0] + size[0], j * stride[1]:j * stride[1] + size[1]],
                              axis=(1, 2))
    return out


def test_pooling_2d_and_1d():
    x = RNG.standard_normal((2, 6, 5, 3)).astype(np.float32)
    np.testing.assert_allclose(layers.MaxPooling2D()(x).numpy(), _np_pool(x, (2, 2), (2, 2), np.max))
    np.testing.assert_allclose(layers.AveragePooling2D((3, 2), strides=1)(x).numpy(),
                               _np_pool(x, (3, 2), (1, 1), np.mean), rtol=1e-5)
    x1 = RNG.standard_normal((2, 7, 3)).astype(np.float32)
    np.testing.assert_allclose(layers.MaxPooling1D(3)(x1).numpy(),
                               _np_pool(x1[:, :, None], (3, 1), (3, 1), np.max)[:, :, 0])
    np.testing.assert_allclose(layers.AveragePooling1D(2, strides=1)(x1).numpy(),
                               _np_pool(x1[:, :, None], (2, 1), (1, 1), np.mean)[:, :, 0], rtol=1e-5)
    assert layers.MaxPooling2D(padding="same")(keras.Input((5, 5, 2))).shape == (None, 3, 3, 2)
    assert layers.MaxPooling1D(2)(keras.Input((7, 3))).shape == (None, 3, 3)
    config = layers.MaxPooling2D((3, 3), strides=2).get_config()
    assert layers.MaxPooling2D.from_config(config).get_config() == config


def test_global_pooling():
    x = RNG.standard_normal((2, 4, 5, 3)).astype(np.float32)
    np.testing.assert_allclose(layers.GlobalAveragePooling2D()(x).numpy(), x.mean(axis=(1, 2)), rtol=1e-5)
    np.testing.assert_allclose(layers.GlobalMaxPooling2D()(x).numpy(), x.max(axis=(1, 2)))
    np.testing.assert_allclose(layers.GlobalAveragePooling1D()(x[:, 0]).numpy(), x[:, 0].mean(axis=1), rtol=1e-5)
    assert layers.GlobalAveragePooling2D(keepdims=True)(keras.Input((4, 5, 3))).shape == (None, 1, 1, 3)


def test_pooling_gradient_flows():
    layer = layers.MaxPooling2D(dtype="float64")
    check_layer_gradients(layer, RNG.standard_normal((1, 4, 4, 1)))


def np_depthwise(x, k, stride=(1, 1), padding="valid"):
    c, m = k.shape[2], k.shape[3]
    outs = [np_conv2d(x[..., i:i + 1], k[:, :, i:i + 1, j:j + 1], stride, padding) for i in range(c) for j in range(m)]
    return np.concatenate(outs, axis=-1)


def test_depthwise_and_separable_conv2d():
    x = RNG.standard_normal((2, 6, 5, 3)).astype(np.float32)
    dw = layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same", strides=2)
    y = dw(x).numpy()
    assert dw.kernel.shape == (3, 3, 3, 2) and y.shape == (2, 3, 3, 6)
    np.testing.assert_allclose(y, np_depthwise(x, dw.kernel.numpy(), (2, 2), "same") + dw.bias.numpy(), rtol=1e-4,
                               atol=1e-5)
    sep = layers.SeparableConv2D(4, (3, 2))
    y = sep(x).numpy()
    mid = np_depthwise(x, sep.depthwise_kernel.numpy())
    np.testing.assert_allclose(y, mid @ sep.pointwise_kernel.numpy()[0, 0] + sep.bias.numpy(), rtol=1e-4, atol=1e-5)
    assert sep(keras.Input((6, 5, 3))).shape == (None, 4, 4, 4)
    check_layer_gradients(layers.SeparableConv2D(2, 2, dtype="float64"), RNG.standard_normal((1, 3, 3, 2)))
    for layer in (dw, sep):
        config = layer.get_config()
        assert type(layer).from_config(config).get_config() == config


def test_conv3d_and_3d_pooling():
    x = RNG.standard_normal((1, 4, 5, 3, 2)).astype(np.float32)
    layer = layers.Conv3D(2, (2, 3, 2))
    y = layer(x).numpy()
    k = layer.kernel.numpy()
    want = np.zeros((1, 3, 3, 2, 2))
    for d in range(3):
        for h in range(3):
            for w in range(2):
                want[0, d, h, w] = np.tensordot(x[0, d:d + 2, h:h + 3, w:w + 2], k, axes=([0, 1, 2, 3], [0, 1, 2, 3]))
    np.testing.assert_allclose(y, want + layer.bias.numpy(), rtol=1e-4, atol=1e-5)
    assert layers.Conv3D(4, 3, padding="same", strides=2)(keras.Input((4, 5, 3, 2))).shape == (None, 2, 3, 2, 4)
    pooled = layers.MaxPooling3D()(x[:, :4, :4, :2]).numpy()
    np.testing.assert_allclose(pooled, x[:, :4, :4, :2].reshape(1, 2, 2, 2, 2, 1, 2, 2).max(axis=(2, 4, 6)))
    avg = layers.AveragePooling3D((2, 1, 1))(x).numpy()
    np.testing.assert_allclose(avg, x.reshape(1, 2, 2, 5, 3, 2).mean(axis=2), rtol=1e-5)
    np.testing.assert_allclose(layers.GlobalAveragePooling3D()(x).numpy(), x.mean(axis=(1, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(layers.GlobalMaxPooling3D()(x).numpy(), x.max(axis=(1, 2, 3)))
    check_layer_gradients(layers.Conv3D(1, 2, dtype="float64"), RNG.standard_normal((1, 2, 3, 2, 1)))
    config = layer.get_config()
    assert layers.Conv3D.from_config(config).get_config() == config


def test_a_3d_cnn_builds_symbolically_and_trains():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4, 4, 4, 1)), layers.Conv3D(2, 2, activation="relu"),
                              layers.MaxPooling3D(padding="same"), layers.Flatten(), layers.Dense(1)])
    assert model.output_shape == (None, 1) and model.layers[1].output.shape == (None, 2, 2, 2, 2)
    model.compile("adam", "mse")
    x = RNG.standard_normal((10, 4, 4, 4, 1)).astype(np.float32)
    history = model.fit(x, x.mean(axis=(1, 2, 3)), batch_size=4, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_conv1d_transpose(padding):
    layer = layers.Conv1DTranspose(3, 3, strides=2, padding=padding, use_bias=False)
    x = RNG.standard_normal((2, 4, 2)).astype(np.float32)
    y = layer(x).numpy()
    want = np_conv2d_transpose(x[:, None], layer.kernel.numpy()[None], (1, 2), padding)[:, 0]
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    assert layer(keras.Input((4, 2))).shape == (None,) + want.shape[1:]
    check_layer_gradients(layers.Conv1DTranspose(2, 2, strides=2, dtype="float64"), RNG.standard_normal((1, 3, 2)))

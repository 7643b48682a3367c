"""ember.keras reshaping layers (up-sampling, padding, cropping, repeat, permute) against NumPy."""

import json

import numpy as np
import pytest

from ember import keras
from ember.keras import layers

from keras_helpers import check_layer_gradients

X4 = np.random.default_rng(0).standard_normal((2, 3, 4, 2)).astype(np.float32)
X3 = X4[:, 0]


@pytest.mark.parametrize("layer, x, want", [
    (layers.UpSampling2D((2, 3)), X4, X4.repeat(2, 1).repeat(3, 2)),
    (layers.UpSampling1D(3), X3, X3.repeat(3, 1)),
    (layers.ZeroPadding2D(((1, 2), (0, 1))), X4, np.pad(X4, [(0, 0), (1, 2), (0, 1), (0, 0)])),
    (layers.ZeroPadding2D(1), X4, np.pad(X4, [(0, 0), (1, 1), (1, 1), (0, 0)])),
    (layers.ZeroPadding1D((2, 1)), X3, np.pad(X3, [(0, 0), (2, 1), (0, 0)])),
    (layers.Cropping2D(((1, 0), (1, 2))), X4, X4[:, 1:, 1:2]),
    (layers.Cropping1D((1, 2)), X3, X3[:, 1:2]),
    (layers.RepeatVector(3), X3[:, 0], np.repeat(X3[:, 0][:, None], 3, 1)),
    (layers.Permute((2, 1)), X3, X3.transpose(0, 2, 1)),
], ids=lambda v: type(v).__name__ if isinstance(v, layers.Layer) else "")
def test_forward_shape_and_config(layer, x, want):
    np.testing.assert_array_equal(layer(x).numpy(), want)
    assert layer(keras.Input(x.shape[1:])).shape == (None,) + want.shape[1:]
    config = json.loads(json.dumps(layer.get_config()))
    assert type(layer).from_config(config).get_config() == layer.get_config()


def test_gradients():
    check_layer_gradients(layers.UpSampling2D(dtype="float64"), X4[:1].astype(np.float64))
    check_layer_gradients(layers.ZeroPadding2D(1, dtype="float64"), X4[:1].astype(np.float64))
    check_layer_gradients(layers.Cropping1D((1, 0), dtype="float64"), X3.astype(np.float64))


def test_bad_padding_is_rejected():
    with pytest.raises(ValueError):
        layers.ZeroPadding2D((1, 2, 3))

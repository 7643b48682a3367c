"""ember.image.resize: values worked out by hand from TensorFlow 2's half-pixel
rules, the wrapper's rank, dtype and aspect-ratio handling, and gradients."""

import numpy as np
import pytest

import ember
import op_db  # noqa: F401 - op_db imports op_db_image: load it first
from op_db_image import ref_resize_bilinear, ref_resize_nearest

resize = ember.image.resize


def test_bilinear_upscale_2x2_to_4x4():
    # Rows (and columns) sample -0.25, 0.25, 0.75, 1.25: clamped, then 1:3 and 3:1 mixes.
    image = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32).reshape(2, 2, 1)
    want = np.array([[1.0, 1.25, 1.75, 2.0],
                     [1.5, 1.75, 2.25, 2.5],
                     [2.5, 2.75, 3.25, 3.5],
                     [3.0, 3.25, 3.75, 4.0]], np.float32)
    got = resize(image, [4, 4])
    assert got.shape == (4, 4, 1) and got.dtype == ember.float32
    np.testing.assert_array_equal(got.numpy()[..., 0], want)


def test_bilinear_downscale_3_to_2():
    # Columns sample 0.25 and 1.75.
    row = np.array([0.0, 4.0, 8.0], np.float32).reshape(1, 3, 1)
    np.testing.assert_allclose(resize(row, [1, 2]).numpy()[0, :, 0], [1.0, 7.0])


def test_nearest_known_values():
    image = np.array([[1, 2], [3, 4]], np.uint8).reshape(2, 2, 1)
    got = resize(image, [4, 4], method="nearest")
    assert got.dtype == ember.uint8
    np.testing.assert_array_equal(got.numpy()[..., 0], [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]])
    # 3 -> 2: centers at 0.75 and 2.25 pick columns 0 and 2.
    row = np.array([10, 20, 30], np.int32).reshape(1, 3, 1)
    np.testing.assert_array_equal(resize(row, [1, 2], method="nearest").numpy()[0, :, 0], [10, 30])


def test_references_agree_with_the_known_values():
    image = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32).reshape(1, 2, 2, 1)
    np.testing.assert_array_equal(ref_resize_bilinear(image, [4, 4])[0, 1, :, 0], [1.5, 1.75, 2.25, 2.5])
    np.testing.assert_array_equal(ref_resize_nearest(image, [1, 1])[0, :, :, 0], [[4.0]])


@pytest.mark.parametrize("method", ["bilinear", "nearest", ember.image.ResizeMethod.BILINEAR, "BILINEAR"])
def test_rank_3_and_rank_4(method):
    rng = np.random.default_rng(0)
    batch = rng.uniform(-1, 1, (2, 5, 6, 3)).astype(np.float32)
    four = resize(batch, [7, 4], method=method)
    assert four.shape == (2, 7, 4, 3)
    three = resize(batch[1], [7, 4], method=method)
    assert three.shape == (7, 4, 3)
    np.testing.assert_array_equal(three.numpy(), four.numpy()[1])


def test_bilinear_returns_float32_for_every_dtype():
    for dtype in (np.uint8, np.int32, np.float16, np.float64):
        assert resize(np.ones((2, 2, 1), dtype), [3, 3]).dtype == ember.float32
        assert resize(np.ones((2, 2, 1), dtype), [3, 3], method="nearest").dtype == ember.as_dtype(dtype)


@pytest.mark.parametrize("shape, size, want", [((4, 8), [4, 4], (2, 4)), ((10, 20), [7, 7], (4, 7)),
                                               ((6, 6), [3, 9], (3, 3)), ((3, 5), [30, 50], (30, 50))])
def test_preserve_aspect_ratio(shape, size, want):
    # TensorFlow scales both sides by the smaller factor in float32 and rounds half to even
    # (10 x 20 into 7 x 7: 0.35 * 10 is 3.5 in float32, which rounds to 4).
    image = np.ones(shape + (1,), np.float32)
    assert resize(image, size, preserve_aspect_ratio=True).shape == want + (1,)


def test_unsupported_options_raise():
    image = np.ones((2, 2, 1), np.float32)
    with pytest.raises(NotImplementedError, match="antialias"):
        resize(image, [3, 3], antialias=True)
    with pytest.raises(NotImplementedError, match="bicubic"):
        resize(image, [3, 3], method="bicubic")
    with pytest.raises(ValueError, match="^resize: unknown method"):
        resize(image, [3, 3], method="cubist")
    with pytest.raises(ValueError, match="^resize: .*rank"):
        resize(np.ones((2, 2), np.float32), [3, 3])
    with pytest.raises(ValueError, match="^resize: size"):
        resize(image, [3])
    with pytest.raises(ValueError, match="^resize: size must be positive"):
        resize(image, [3, 0])


def test_size_accepts_a_tensor():
    assert resize(np.ones((2, 2, 1), np.float32), ember.constant([3, 5])).shape == (3, 5, 1)


def _grad(images, size, method, weights):
    x = ember.constant(images)
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = resize(x, size, method=method)
        loss = ember.reduce_sum(ember.cast(y, ember.float32) * ember.constant(weights))
    return tape.gradient(loss, x)


def test_bilinear_gradient_spreads_with_the_interpolation_weights():
    # 1 x 2 -> 1 x 4: output columns read (0, 0, w .75), (0, 1, w .25), (0, 1, w .75), (1, 1, w .25).
    weights = np.array([1.0, 10.0, 100.0, 1000.0], np.float32).reshape(1, 1, 4, 1)
    got = _grad(np.zeros((1, 1, 2, 1), np.float32), [1, 4], "bilinear", weights)
    want = [1 + 10 * 0.75 + 100 * 0.25, 10 * 0.25 + 100 * 0.75 + 1000]
    np.testing.assert_allclose(got.numpy()[0, 0, :, 0], want, rtol=1e-6)


def test_bilinear_gradient_keeps_the_input_dtype():
    images = np.random.default_rng(1).uniform(size=(2, 3, 3, 2))
    weights = np.ones((2, 5, 4, 2), np.float32)
    got = _grad(images, [5, 4], "bilinear", weights)
    assert got.dtype == ember.float64
    # Every output pixel's weights sum to 1, so the gradient sums to the output's size.
    np.testing.assert_allclose(got.numpy().sum(), weights.size, rtol=1e-6)


def test_nearest_gradient_sums_the_copies():
    weights = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    got = _grad(np.zeros((1, 2, 2, 1), np.float32), [4, 4], "nearest", weights)
    want = weights[0, :, :, 0].reshape(2, 2, 2, 2).sum(axis=(1, 3))
    np.testing.assert_array_equal(got.numpy()[0, :, :, 0], want)


def test_integer_images_have_no_gradient():
    x = ember.constant(np.ones((1, 2, 2, 1), np.int32))
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = resize(x, [3, 3])
    assert tape.gradient(y, x) is None


def test_size_must_be_integers():
    with pytest.raises(ValueError, match="^resize: size must be a 1-D list of 2 ints"):
        resize(np.ones((2, 2, 1), np.float32), [3.5, 3])

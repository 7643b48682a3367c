"""op_db entries for the image resizing ops (op_defs/image.yaml).

The references follow TensorFlow 2's kernels with half_pixel_centers=True,
written from their documented formulas in float32 as TensorFlow computes:
bilinear output (y, x) samples row (y + 0.5) * in / out - 0.5 (its floor and
ceil clamped to the image, weight the fractional part), nearest copies row
min(floor((y + 0.5) * in / out), in - 1). test_image.py checks them against
values worked out by hand.
"""

import numpy as np

from op_db import ErrorInput, OpInfo, Sample, make


def _lerps(out_size, in_size):
    scale = np.float32(in_size) / np.float32(out_size)
    src = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    floor = np.floor(src)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(src).astype(np.int64), in_size - 1)
    return lower, upper, (src - floor).astype(np.float32)


def ref_resize_bilinear(images, size):
    x = images.astype(np.float32)
    y0, y1, fy = _lerps(size[0], x.shape[1])
    x0, x1, fx = _lerps(size[1], x.shape[2])
    fx = fx[None, None, :, None]
    top, bottom = x[:, y0], x[:, y1]
    t = top[:, :, x0] + (top[:, :, x1] - top[:, :, x0]) * fx
    b = bottom[:, :, x0] + (bottom[:, :, x1] - bottom[:, :, x0]) * fx
    return (t + (b - t) * fy[None, :, None, None]).astype(np.float32)


def _nearest(out_size, in_size):
    scale = np.float32(in_size) / np.float32(out_size)
    src = np.floor((np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale).astype(np.int64)
    return np.clip(src, 0, in_size - 1)


def ref_resize_nearest(images, size):
    return images[:, _nearest(size[0], images.shape[1])][:, :, _nearest(size[1], images.shape[2])]


def ref_resize_bilinear_grad(grads, original_size):
    n, out_h, out_w, c = grads.shape
    out = np.zeros((n, original_size[0], original_size[1], c), np.float64)
    y0, y1, fy = _lerps(out_h, original_size[0])
    x0, x1, fx = _lerps(out_w, original_size[1])
    g = grads.astype(np.float64)
    fy = fy.astype(np.float64)[None, :, None, None]
    fx = fx.astype(np.float64)[None, None, :, None]
    for rows, wy in ((y0, 1 - fy), (y1, fy)):
        for cols, wx in ((x0, 1 - fx), (x1, fx)):
            contribution = g * wy * wx
            for oy in range(out_h):
                np.add.at(out, (slice(None), rows[oy], cols), contribution[:, oy])
    return out.astype(np.float32)


# (sample name, images shape, size)
_RESIZE_CASES = [
    ("upscale", (2, 3, 4, 2), [6, 7]), ("downscale", (1, 8, 9, 3), [3, 4]), ("same", (2, 4, 4, 1), [4, 4]),
    ("mixed", (1, 5, 2, 2), [2, 7]), ("single_pixel", (1, 1, 1, 3), [3, 2]), ("to_one", (2, 5, 6, 1), [1, 1]),
    ("odd_ratio", (1, 7, 3, 1), [5, 11]), ("empty", (0, 3, 3, 2), [5, 5]), ("empty_channels", (2, 3, 3, 0), [4, 2]),
    ("large", (2, 100, 120, 3), [130, 90]),
]


def _resize_samples(dtype, rng):
    for name, shape, size in _RESIZE_CASES:
        yield Sample(name, (make(rng, shape, dtype), size))


def _resize_grad_samples(dtype, rng):
    for name, shape, size in _RESIZE_CASES:
        grads_shape = (shape[0], size[0], size[1], shape[3])
        yield Sample(name, (make(rng, grads_shape, dtype), list(shape[1:3])), {}, {"float32": (1e-5, 1e-5)})


def _resize_errors(op):
    def gen():
        x = np.ones((1, 3, 3, 1), np.float32)
        yield ErrorInput("rank3", (np.ones((3, 3, 1), np.float32), [2, 2]), {}, ValueError, rf"^{op}: .*rank 4")
        yield ErrorInput("size_three", (x, [2, 2, 2]), {}, ValueError, rf"^{op}: .*size")
        yield ErrorInput("size_zero", (x, [0, 2]), {}, ValueError, rf"^{op}: .*positive")
        yield ErrorInput("size_negative", (x, [2, -3]), {}, ValueError, rf"^{op}: .*positive")
        yield ErrorInput("size_huge", (x, [2 ** 40, 2]), {}, ValueError, rf"^{op}: .*size")
        yield ErrorInput("empty_image", (np.ones((1, 0, 3, 1), np.float32), [2, 2]), {}, ValueError,
                         rf"^{op}: .*height and width")
        yield ErrorInput("bool_images", (np.ones((1, 2, 2, 1), np.bool_), [3, 3]), {}, TypeError,
                         rf"^{op}: .*dtype bool")
    return gen


def _resize_grad_errors():
    g = np.ones((1, 3, 3, 1), np.float32)
    op = "resize_bilinear_grad"
    yield ErrorInput("rank3", (np.ones((3, 3, 1), np.float32), [2, 2]), {}, ValueError, rf"^{op}: .*rank 4")
    yield ErrorInput("size_three", (g, [2, 2, 2]), {}, ValueError, rf"^{op}: .*original_size")
    yield ErrorInput("size_zero", (g, [2, 0]), {}, ValueError, rf"^{op}: .*positive")
    yield ErrorInput("float64_grads", (np.ones((1, 2, 2, 1), np.float64), [3, 3]), {}, TypeError,
                     rf"^{op}: .*float64")


def entries(ember):
    raw = ember.raw_ops
    return [
        # The kernel rounds each float32 step as the reference does (no fused multiply-adds).
        OpInfo("resize_bilinear", raw.resize_bilinear, ref_resize_bilinear, _resize_samples,
               _resize_errors("resize_bilinear"), tols={"float32": (1e-6, 1e-6)}),
        OpInfo("resize_nearest_neighbor", raw.resize_nearest_neighbor, ref_resize_nearest, _resize_samples,
               _resize_errors("resize_nearest_neighbor")),
        OpInfo("resize_bilinear_grad", raw.resize_bilinear_grad, ref_resize_bilinear_grad, _resize_grad_samples,
               _resize_grad_errors),
    ]

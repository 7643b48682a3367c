"""op_db records for the neural-network ops (op_defs/nn.yaml), with NumPy references."""

import math

import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample, binary_errors, binary_samples, make

F32 = np.ones((2, 3), np.float32)
# Long float32 sums (conv, GEMM). float16 and bfloat16 keep the default tolerances, about one unit
# in the last place: they compute in float32 and round once (Note [Half compute]), so even long
# sums differ from the float64 reference by at most one rounding of the output.
LOOSE = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10)}


def _f64(fn):
    """Computes in float64 and returns the first argument's dtype."""
    def ref(x, *args, **kwargs):
        return np.asarray(fn(x.astype(np.float64), *args, **kwargs)).astype(x.dtype)
    return ref


# --- Activations ------------------------------------------------------------


def _gelu(x, approximate=False):
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + np.vectorize(math.erf, otypes=[np.float64])(x / np.sqrt(2)))


SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

ACTIVATIONS = {
    "relu6": (lambda x: np.clip(x, 0, 6), {}),
    "leaky_relu": (lambda x, alpha=0.2: np.where(x > 0, x, alpha * x), {"alpha": 0.1}),
    "elu": (lambda x: np.where(x > 0, x, np.expm1(x)), {}),
    "selu": (lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)), {}),
    "gelu": (_gelu, {"approximate": True}),
    "silu": (lambda x, beta=1.0: x / (1 + np.exp(-beta * x)), {"beta": 0.5}),
}


def ref_relu_grad(gradients, features):
    return np.where(features > 0, gradients, 0).astype(gradients.dtype)


def activation_samples(attrs):
    def gen(dtype, rng):
        yield Sample("2d", (make(rng, (3, 4), dtype),))
        yield Sample("wide", (make(rng, (3, 4), dtype) * 4,))
        if attrs:
            yield Sample("attr", (make(rng, (2, 3, 4), dtype),), dict(attrs))
        yield Sample("scalar", (make(rng, (), dtype),))
        yield Sample("empty", (make(rng, (0, 3), dtype),))
        yield Sample("large", (make(rng, (LARGE,), dtype),))
    return gen


def activation_errors(name, bad_dtype=np.int32):
    def gen():
        bad = np.dtype(bad_dtype).name
        yield ErrorInput(f"{bad}_input", (np.ones(3, bad_dtype),), {}, TypeError, rf"^{name}: .*dtype {bad}")
    return gen


# --- Softmax and losses -----------------------------------------------------


def ref_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def ref_log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def softmax_samples(dtype, rng):
    yield Sample("2d", (make(rng, (3, 5), dtype),))
    yield Sample("axis0", (make(rng, (4, 3, 2), dtype),), {"axis": 0})
    yield Sample("axis_mid", (make(rng, (2, 5, 3), dtype) * 10,), {"axis": 1})
    yield Sample("1d", (make(rng, (7,), dtype),))
    yield Sample("empty", (make(rng, (0, 3), dtype),))
    yield Sample("large", (make(rng, (700, 100), dtype),))


def softmax_errors(name):
    def gen():
        yield ErrorInput("axis_out_of_range", (F32,), {"axis": 2}, ValueError, rf"^{name}: .*axis")
        yield ErrorInput("scalar", (np.float32(1),), {}, ValueError, rf"^{name}: .*rank")
        yield ErrorInput("int_input", (np.ones(3, np.int32),), {}, TypeError, rf"^{name}: .*dtype int32")
    return gen


def ref_sparse_xent(labels, logits):
    return np.take_along_axis(-_f64(ref_log_softmax)(logits).astype(np.float64),
                              labels[..., None].astype(np.int64), -1)[..., 0].astype(logits.dtype)


def sparse_xent_samples(dtype, rng):
    for idx in (np.int32, np.int64):
        yield Sample(f"2d_{np.dtype(idx).name}", (rng.integers(0, 5, (4,)).astype(idx), make(rng, (4, 5), dtype)))
    yield Sample("3d", (rng.integers(0, 3, (2, 3)).astype(np.int32), make(rng, (2, 3, 3), dtype)))
    yield Sample("empty", (np.zeros((0,), np.int64), make(rng, (0, 4), dtype)))
    yield Sample("large", (rng.integers(0, 100, (700,)).astype(np.int64), make(rng, (700, 100), dtype)))


def sparse_xent_errors():
    name = "sparse_softmax_cross_entropy_with_logits"
    yield ErrorInput("shape_mismatch", (np.zeros(3, np.int32), F32), {}, ValueError, rf"^{name}: .*labels")
    yield ErrorInput("float_labels", (np.zeros(2, np.float32), F32), {}, TypeError, rf"^{name}: .*dtype float32")


def ref_xent(labels, logits, axis=-1):
    # All in float64, rounded once (rounding log_softmax first would add a second rounding).
    return np.sum(-labels.astype(np.float64) * ref_log_softmax(logits.astype(np.float64), axis),
                  axis=axis).astype(logits.dtype)


def xent_samples(dtype, rng):
    def probs(shape, axis=-1):
        return ref_softmax(make(rng, shape, np.float64), axis).astype(dtype)
    yield Sample("2d", (probs((4, 5)), make(rng, (4, 5), dtype)))
    yield Sample("axis0", (probs((3, 4), 0), make(rng, (3, 4), dtype)), {"axis": 0})
    yield Sample("1d", (probs((6,)), make(rng, (6,), dtype)))
    yield Sample("empty", (probs((0, 3)), make(rng, (0, 3), dtype)))
    yield Sample("large", (probs((700, 100)), make(rng, (700, 100), dtype)))


def xent_errors():
    name = "softmax_cross_entropy_with_logits"
    yield ErrorInput("shape_mismatch", (np.ones((2, 4), np.float32), F32), {}, ValueError, rf"^{name}: ")
    yield ErrorInput("axis_out_of_range", (F32, F32), {"axis": 3}, ValueError, rf"^{name}: .*axis")


# --- Convolution and pooling -------------------------------------------------


def _pair(v, nchw):
    v = [v] if isinstance(v, int) else list(v)
    if len(v) == 1:
        return v[0], v[0]
    if len(v) == 2:
        return v[0], v[1]
    return (v[2], v[3]) if nchw else (v[1], v[2])


def _geometry(in_hw, k_hw, s_hw, d_hw, padding, nchw):
    """[(before, after, out)] for the two spatial dims."""
    dims = []
    for i in range(2):
        n, k, s, d = in_hw[i], k_hw[i], s_hw[i], d_hw[i]
        eff = (k - 1) * d + 1
        if padding == "SAME":
            out = -(-n // s)
            total = max((out - 1) * s + eff - n, 0)
            before, after = total // 2, total - total // 2
        elif padding == "VALID":
            before = after = 0
        else:
            before, after = padding[(2 if nchw else 1) + i]
        dims.append((before, after, (n + before + after - eff) // s + 1))
    return dims


def _nhwc(x, nchw):
    return x.transpose(0, 2, 3, 1) if nchw else x


def _from_nhwc(x, nchw):
    return x.transpose(0, 3, 1, 2) if nchw else x


def _conv_patches(x, filter_shape, strides, padding, nchw, dilations):
    """(out_h, out_w, [(i, j, patch)]): the NHWC float64 input patch under filter tap (i, j) of a
    conv2d, shaped [n, out_h, out_w, groups, in_channels / groups]."""
    xs = _nhwc(x.astype(np.float64), nchw)
    n, h, w, c = xs.shape
    kh, kw, cg, _ = filter_shape
    sh, sw = _pair(strides, nchw)
    dh, dw = _pair(dilations or 1, nchw)
    (pt, pb, oh), (pl, pr, ow) = _geometry((h, w), (kh, kw), (sh, sw), (dh, dw), padding, nchw)
    xp = np.pad(xs, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    taps = [(i, j, xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw, :]
             .reshape(n, oh, ow, c // cg, cg)) for i in range(kh) for j in range(kw)]
    return oh, ow, taps


def ref_conv2d(x, f, strides, padding, data_format="NHWC", dilations=None):
    nchw = data_format == "NCHW"
    kh, kw, cg, o = f.shape
    g = x.shape[1 if nchw else 3] // cg
    oh, ow, taps = _conv_patches(x, f.shape, strides, padding, nchw, dilations)
    out = np.zeros((x.shape[0], oh, ow, g, o // g))
    fg = f.astype(np.float64).reshape(kh, kw, cg, g, o // g)
    for i, j, patch in taps:
        out += np.einsum("nhwgc,cgo->nhwgo", patch, fg[i, j])
    return _from_nhwc(out.reshape(x.shape[0], oh, ow, o), nchw).astype(x.dtype)


def ref_conv2d_transpose(x, f, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None):
    nchw = data_format == "NCHW"
    ys = _nhwc(x.astype(np.float64), nchw)
    n, ih, iw, _ = ys.shape
    out_nhwc = [output_shape[i] for i in ((0, 2, 3, 1) if nchw else (0, 1, 2, 3))]
    kh, kw, co, _ = f.shape
    sh, sw = _pair(strides, nchw)
    dh, dw = _pair(dilations or 1, nchw)
    (pt, pb, _), (pl, pr, _) = _geometry(out_nhwc[1:3], (kh, kw), (sh, sw), (dh, dw), padding, nchw)
    big = np.zeros((n, out_nhwc[1] + pt + pb, out_nhwc[2] + pl + pr, co))
    for i in range(kh):
        for j in range(kw):
            big[:, i * dh:i * dh + (ih - 1) * sh + 1:sh, j * dw:j * dw + (iw - 1) * sw + 1:sw, :] += \
                np.einsum("nhwi,oi->nhwo", ys, f[i, j].astype(np.float64))
    out = big[:, pt:pt + out_nhwc[1], pl:pl + out_nhwc[2], :]
    return _from_nhwc(out, nchw).astype(x.dtype)


def _ref_pool(kind):
    def ref(x, ksize, strides, padding, data_format="NHWC"):
        nchw = data_format == "NCHW"
        xs = _nhwc(x.astype(np.float64), nchw)
        n, h, w, c = xs.shape
        kh, kw = _pair(ksize, nchw)
        sh, sw = _pair(strides, nchw)
        (pt, pb, oh), (pl, pr, ow) = _geometry((h, w), (kh, kw), (sh, sw), (1, 1), padding, nchw)
        fill = -np.inf if kind == "max" else 0.0
        xp = np.pad(xs, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=fill)
        ones = np.pad(np.ones((1, h, w, 1)), ((0, 0), (pt, pb), (pl, pr), (0, 0)))
        windows, counts = [], []
        for i in range(kh):
            for j in range(kw):
                windows.append(xp[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw, :])
                counts.append(ones[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw, :])
        stacked = np.stack(windows)
        out = stacked.max(0) if kind == "max" else stacked.sum(0) / np.stack(counts).sum(0)
        return _from_nhwc(out, nchw).astype(x.dtype)
    return ref


def conv_samples(dtype, rng):
    m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
    yield Sample("same", (m(2, 5, 5, 3), m(3, 3, 3, 4), 1, "SAME"))
    yield Sample("valid_stride2", (m(2, 7, 6, 3), m(3, 2, 3, 4), [2, 2], "VALID"))
    yield Sample("dilation", (m(1, 7, 7, 2), m(3, 3, 2, 3), [1, 1, 1, 1], "SAME"),
                 {"dilations": [1, 2, 2, 1]})
    yield Sample("same_stride2", (m(1, 6, 7, 3), m(3, 3, 3, 2), 2, "SAME"))
    yield Sample("explicit", (m(2, 5, 5, 3), m(3, 3, 3, 2), 1, [[0, 0], [1, 2], [0, 1], [0, 0]]))
    yield Sample("nchw", (m(2, 3, 6, 5), m(3, 3, 3, 4), [1, 1, 2, 1], "SAME"), {"data_format": "NCHW"})
    yield Sample("pointwise", (m(2, 4, 4, 3), m(1, 1, 3, 5), 1, "VALID"))
    yield Sample("grouped", (m(2, 5, 5, 4), m(3, 3, 2, 6), 1, "SAME"))
    yield Sample("depthwise", (m(2, 5, 5, 3), m(3, 3, 1, 6), 1, "SAME"))
    yield Sample("empty_batch", (m(0, 5, 5, 3), m(3, 3, 3, 4), 1, "SAME"))
    yield Sample("large", (m(2, 32, 32, 16), m(3, 3, 16, 32), 1, "SAME"), {}, LOOSE)
    # The direct kernels (Note [Direct convolution for few input channels]): a block of output
    # channels plus a tail, two whole blocks with a stride, many output rows (the filter gradient's
    # chunks), more input channels at stride 1 with a tail block, K = 3 x 3 x 300 (direct with
    # AVX-512's registers, im2col + GEMM with AVX2's); and the im2col path beside them: more than
    # four input channels with a stride, and K = 3 x 3 x 520 above every direct limit.
    yield Sample("rgb_wide_channels", (m(2, 9, 13, 3), m(3, 3, 3, 40), 1, "SAME"))
    yield Sample("gray_two_blocks_strided", (m(1, 12, 11, 1), m(5, 5, 1, 64), 2, "SAME"))
    yield Sample("gray_tall", (m(2, 40, 9, 1), m(3, 3, 1, 8), 1, "VALID"))
    # The wide register tile (64 float32 channels for 6 pixels, Note [Direct convolution for few
    # input channels]): two whole blocks at the stem's 7x7 stride 2, and with dilated columns.
    yield Sample("rgb_stem_wide", (m(1, 15, 14, 3), m(7, 7, 3, 128), 2, "SAME"), {}, LOOSE)
    # 1x1 layers on the direct kernel (float32, whole blocks of 64 output channels: Note [Direct
    # convolution for few input channels]), its tiles outermost: reducing, expanding over a batch,
    # and with explicit padding.
    yield Sample("pointwise_reducing", (m(1, 5, 7, 128), m(1, 1, 128, 64), 1, "SAME"), {}, LOOSE)
    yield Sample("pointwise_expanding", (m(2, 3, 5, 32), m(1, 1, 32, 128), 1, "VALID"), {}, LOOSE)
    yield Sample("pointwise_reducing_padded", (m(1, 3, 4, 64), m(1, 1, 64, 64), 1,
                                               [[0, 0], [1, 0], [0, 2], [0, 0]]), {}, LOOSE)
    yield Sample("wide_dilated", (m(1, 9, 9, 2), m(3, 3, 2, 64), [1, 1, 1, 1], "SAME"),
                 {"dilations": [1, 2, 2, 1]})
    yield Sample("deep_direct_tail", (m(2, 9, 7, 16), m(3, 3, 16, 40), 1, "SAME"), {}, LOOSE)
    yield Sample("five_channels", (m(2, 6, 6, 5), m(3, 3, 5, 4), 1, "SAME"))
    yield Sample("im2col_strided", (m(2, 7, 7, 5), m(3, 3, 5, 4), 2, "SAME"))
    yield Sample("direct_deep", (m(1, 5, 4, 300), m(3, 3, 300, 37), 1, "SAME"), {}, LOOSE)
    # K = 3 x 3 x 130 past the wide tile's limit over 132 output pixels: the tall tile (AVX-512);
    # the 20 pixels above go to im2col + GEMM.
    yield Sample("direct_deep_many_pixels", (m(1, 12, 11, 130), m(3, 3, 130, 20), 1, "SAME"), {}, LOOSE)
    yield Sample("im2col_deep", (m(1, 4, 4, 520), m(3, 3, 520, 3), 1, "SAME"), {}, LOOSE)
    # Winograd F(2x2, 3x3) (Note [Winograd convolution]): odd output sizes (partial 2x2 blocks),
    # uneven explicit padding, channel counts that are not whole SIMD registers.
    yield Sample("winograd_odd", (m(2, 13, 11, 12), m(3, 3, 12, 20), 1, "SAME"), {}, LOOSE)
    yield Sample("winograd_explicit", (m(1, 17, 10, 9), m(3, 3, 9, 33), 1, [[0, 0], [2, 0], [1, 1], [0, 0]]),
                 {}, LOOSE)
    yield Sample("winograd_valid_nchw", (m(2, 10, 15, 14), m(3, 3, 10, 17), 1, "VALID"),
                 {"data_format": "NCHW"}, LOOSE)


def conv_errors():
    x, f = np.ones((1, 5, 5, 3), np.float32), np.ones((3, 3, 3, 4), np.float32)
    yield ErrorInput("bad_padding", (x, f, 1, "FULL"), {}, ValueError, r"^conv2d: .*padding")
    yield ErrorInput("bad_padding_list", (x, f, 1, [[1, 1]]), {}, ValueError, r"^conv2d: .*padding")
    yield ErrorInput("depth_mismatch", (x, np.ones((3, 3, 2, 4), np.float32), 1, "SAME"), {}, ValueError,
                     r"^conv2d: .*depth")
    yield ErrorInput("rank3", (np.ones((5, 5, 3), np.float32), f, 1, "SAME"), {}, ValueError, r"^conv2d: .*4-D")
    yield ErrorInput("valid_too_small", (np.ones((1, 2, 2, 3), np.float32), f, 1, "VALID"), {}, ValueError,
                     r"^conv2d: ")
    yield ErrorInput("bad_strides", (x, f, [1, 2, 2, 2], "SAME"), {}, ValueError, r"^conv2d: .*strides")
    yield ErrorInput("zero_stride", (x, f, 0, "SAME"), {}, ValueError, r"^conv2d: .*strides")
    yield ErrorInput("bad_format", (x, f, 1, "SAME"), {"data_format": "HWCN"}, ValueError, r"^conv2d: .*data_format")
    yield ErrorInput("int_input", (x.astype(np.int32), f.astype(np.int32), 1, "SAME"), {}, TypeError,
                     r"^conv2d: .*dtype int32")


def conv_transpose_samples(dtype, rng):
    m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
    yield Sample("same_stride2", (m(2, 3, 3, 4), m(3, 3, 2, 4), [2, 6, 6, 2], 2))
    yield Sample("valid", (m(1, 3, 4, 3), m(2, 3, 2, 3), [1, 4, 6, 2], 1, "VALID"))
    yield Sample("same_odd", (m(1, 3, 3, 2), m(3, 3, 3, 2), [1, 5, 5, 3], 2, "SAME"))
    yield Sample("dilated", (m(1, 2, 2, 2), m(3, 3, 2, 2), [1, 6, 6, 2], 1, "VALID"), {"dilations": 2})
    yield Sample("explicit", (m(1, 4, 4, 2), m(3, 3, 2, 2), [1, 4, 4, 2], 1, [[0, 0], [1, 1], [1, 1], [0, 0]]))
    yield Sample("nchw", (m(2, 4, 3, 3), m(3, 3, 2, 4), [2, 2, 6, 6], 2), {"data_format": "NCHW"})
    yield Sample("empty_batch", (m(0, 3, 3, 4), m(3, 3, 2, 4), [0, 6, 6, 2], 2))
    # Each image's columns (40 x 40 x 9 x 80) pass half of the group budget: three groups of one image
    # (Note [Conv2d transpose plan]).
    yield Sample("image_groups", (m(3, 40, 40, 8), m(3, 3, 80, 8), [3, 40, 40, 80], 1, "SAME"), {}, LOOSE)
    yield Sample("large", (m(2, 16, 16, 16), m(3, 3, 16, 16), [2, 32, 32, 16], 2), {}, LOOSE)
    # Stride 1 runs as a convolution with flipped filters, here a Winograd one.
    yield Sample("winograd_stride1", (m(2, 12, 11, 16), m(3, 3, 24, 16), [2, 12, 11, 24], 1, "SAME"), {}, LOOSE)


def conv_transpose_errors():
    x, f = np.ones((1, 3, 3, 4), np.float32), np.ones((3, 3, 2, 4), np.float32)
    name = "conv2d_transpose"
    yield ErrorInput("wrong_output_shape", (x, f, [1, 9, 9, 2], 2), {}, ValueError, rf"^{name}: .*output_shape")
    yield ErrorInput("channel_mismatch", (x, f, [1, 6, 6, 3], 2), {}, ValueError, rf"^{name}: ")
    yield ErrorInput("short_output_shape", (x, f, [6, 6], 2), {}, ValueError, rf"^{name}: .*output_shape")


def pool_samples(dtype, rng):
    m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
    yield Sample("valid", (m(2, 6, 6, 3), 2, 2, "VALID"))
    # Windows that tile the input, with a last row and column no window covers, and with windows cut
    # short by SAME's padding after the last row and column.
    yield Sample("valid_uncovered", (m(2, 7, 5, 3), 2, 2, "VALID"))
    yield Sample("same_tiled_odd", (m(1, 5, 7, 4), 2, 2, "SAME"))
    yield Sample("same", (m(2, 5, 7, 3), 3, 2, "SAME"))
    yield Sample("same_rect", (m(1, 5, 5, 2), [2, 3], [1, 2], "SAME"))
    yield Sample("explicit", (m(1, 5, 5, 2), 3, 2, [[0, 0], [1, 1], [0, 2], [0, 0]]))
    yield Sample("nchw", (m(2, 3, 6, 5), [1, 1, 3, 3], [1, 1, 2, 2], "SAME"), {"data_format": "NCHW"})
    yield Sample("empty", (m(0, 4, 4, 3), 2, 2, "VALID"))
    yield Sample("large", (m(2, 64, 64, 16), 3, 2, "SAME"))


def pool_errors(name, bad_dtype):
    def gen():
        x = np.ones((1, 4, 4, 2), np.float32)
        bad = np.dtype(bad_dtype).name
        yield ErrorInput(f"{bad}_input", (x.astype(bad_dtype), 2, 1, "VALID"), {}, TypeError,
                         rf"^{name}: .*dtype {bad}")
        yield ErrorInput("batch_window", (x, [2, 2, 2, 1], 1, "VALID"), {}, ValueError, rf"^{name}: .*ksize")
        yield ErrorInput("window_too_big", (x, 5, 1, "VALID"), {}, ValueError, rf"^{name}: ")
        yield ErrorInput("pad_too_big", (x, 2, 1, [[0, 0], [2, 0], [0, 0], [0, 0]]), {}, ValueError,
                         rf"^{name}: .*padding")
        yield ErrorInput("rank3", (np.ones((4, 4, 2), np.float32), 2, 1, "VALID"), {}, ValueError, rf"^{name}: ")
    return gen


# --- Normalization ------------------------------------------------------------


def ref_layer_norm(x, gamma, beta, axis=(-1,), epsilon=0.001):
    axes = sorted({a % x.ndim for a in ([axis] if isinstance(axis, int) else axis)})
    xd = x.astype(np.float64)
    mean = xd.mean(axis=tuple(axes), keepdims=True)
    var = ((xd - mean) ** 2).mean(axis=tuple(axes), keepdims=True)
    shape = [x.shape[i] if i in axes else 1 for i in range(x.ndim)]
    y = (xd - mean) / np.sqrt(var + epsilon) * gamma.reshape(shape) + beta.reshape(shape)
    return y.astype(x.dtype)


def layer_norm_samples(dtype, rng):
    m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
    yield Sample("last", (m(4, 6), m(6), m(6)))
    yield Sample("two_trailing", (m(2, 3, 4), m(3, 4), m(3, 4)), {"axis": [1, 2], "epsilon": 1e-5})
    yield Sample("middle", (m(2, 3, 4), m(3), m(3)), {"axis": 1})
    yield Sample("scattered", (m(2, 3, 4), m(2, 4), m(2, 4)), {"axis": [0, -1]})
    yield Sample("empty", (m(0, 5), m(5), m(5)))
    yield Sample("large", (m(700, 100), m(100), m(100)), {}, LOOSE)


def layer_norm_errors():
    x = np.ones((2, 3), np.float32)
    name = "layer_normalization"
    yield ErrorInput("gamma_shape", (x, np.ones(2, np.float32), np.ones(3, np.float32)), {}, ValueError,
                     rf"^{name}: .*gamma")
    yield ErrorInput("axis_out_of_range", (x, np.ones(3, np.float32), np.ones(3, np.float32)), {"axis": 2},
                     ValueError, rf"^{name}: .*axis")


def ref_bias_add(value, bias, data_format=None):
    if data_format and data_format.startswith("NC"):
        return value + bias.reshape([-1] + [1] * (value.ndim - 2))
    return value + bias


def bias_add_samples(dtype, rng):
    m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
    yield Sample("2d", (m(3, 4), m(4)))
    yield Sample("nhwc", (m(2, 3, 3, 4), m(4)), {"data_format": "NHWC"})
    yield Sample("nchw", (m(2, 4, 3, 3), m(4)), {"data_format": "NCHW"})
    yield Sample("empty", (m(0, 4), m(4)))
    yield Sample("large", (m(700, 100), m(100)))
    yield Sample("large_nchw", (m(2, 16, 50, 50), m(16)), {"data_format": "NCHW"})


def bias_add_errors():
    yield ErrorInput("bias_size", (F32, np.ones(2, np.float32)), {}, ValueError, r"^bias_add: .*bias")
    yield ErrorInput("value_rank1", (np.ones(3, np.float32), np.ones(3, np.float32)), {}, ValueError,
                     r"^bias_add: .*2-D")
    yield ErrorInput("bad_format", (F32, np.ones(3, np.float32)), {"data_format": "HW"}, ValueError,
                     r"^bias_add: .*data_format")
    yield ErrorInput("bool_input", (np.ones((2, 3), np.bool_), np.ones(3, np.bool_)), {}, TypeError,
                     r"^bias_add: .*dtype bool")


# --- Attention ------------------------------------------------------------------


def ref_attention(q, k, v, mask=None, scale=None):
    qd, kd, vd = (a.astype(np.float64) for a in (q, k, v))
    s = qd @ np.swapaxes(kd, -1, -2) * (scale if scale is not None else 1 / np.sqrt(q.shape[-1]))
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == np.bool_ else s + mask.astype(np.float64)
    return (ref_softmax(s) @ vd).astype(q.dtype)


def attention_samples(dtype, rng):
    m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
    yield Sample("plain", (m(2, 5, 4), m(2, 6, 4), m(2, 6, 3)))
    causal = np.tril(np.ones((5, 5), np.bool_))
    yield Sample("bool_mask", (m(2, 5, 4), m(2, 5, 4), m(2, 5, 3)), {"mask": causal})
    yield Sample("float_mask_bcast", (m(2, 3, 5, 4), m(3, 6, 4), m(1, 6, 2)),
                 {"mask": make(rng, (2, 1, 1, 6), dtype), "scale": 0.3})
    # A float mask of another float dtype than the operands (M is its own type var).
    other = {"float16": "bfloat16", "bfloat16": "float16", "float32": "float16", "float64": "bfloat16"}[dtype]
    yield Sample("other_dtype_mask", (m(2, 5, 4), m(2, 6, 4), m(2, 6, 3)), {"mask": make(rng, (5, 6), other)})
    yield Sample("no_batch", (m(4, 8), m(5, 8), m(5, 8)))
    yield Sample("empty", (m(0, 3, 4), m(0, 2, 4), m(0, 2, 3)))
    yield Sample("large", (m(4, 130, 32), m(4, 130, 32), m(4, 130, 32)), {}, LOOSE)


def attention_errors():
    q = np.ones((2, 3, 4), np.float32)
    name = "scaled_dot_product_attention"
    yield ErrorInput("dim_mismatch", (q, np.ones((2, 3, 5), np.float32), q), {}, ValueError, rf"^{name}: ")
    yield ErrorInput("mask_shape", (q, q, q), {"mask": np.ones((2, 4), np.bool_)}, ValueError,
                     rf"^{name}: .*mask")
    yield ErrorInput("rank1", (np.ones(4, np.float32),) * 3, {}, ValueError, rf"^{name}: .*rank")


# --- Convolution and pooling gradients ------------------------------------------


def _as_list(v):
    return [v] if isinstance(v, int) else list(v)


def _raw_padding(padding):
    """The op-level (padding, explicit_paddings) of a sample's padding."""
    if isinstance(padding, str):
        return padding, []
    return "EXPLICIT", [int(v) for pair in padding for v in pair]


def ref_conv2d_backprop_filter(x, dy, filter_sizes, strides, padding, data_format="NHWC", dilations=None,
                               explicit_paddings=()):
    nchw = data_format == "NCHW"
    if padding == "EXPLICIT":
        padding = [explicit_paddings[i:i + 2] for i in range(0, 8, 2)]
    kh, kw, cg, o = filter_sizes
    g = x.shape[1 if nchw else 3] // cg
    oh, ow, taps = _conv_patches(x, filter_sizes, strides, padding, nchw, dilations)
    gg = _nhwc(dy.astype(np.float64), nchw).reshape(x.shape[0], oh, ow, g, o // g)
    out = np.zeros((kh, kw, cg, g, o // g))
    for i, j, patch in taps:
        out[i, j] = np.einsum("nhwgc,nhwgo->cgo", patch, gg)
    return out.reshape(kh, kw, cg, o).astype(x.dtype)


def conv_backprop_filter_samples(dtype, rng):
    for sample in conv_samples(dtype, rng):
        x, f, strides, padding = sample.args
        kwargs = dict(sample.kwargs)
        raw_padding, explicit = _raw_padding(padding)
        y = ref_conv2d(x.astype(np.float64), f.astype(np.float64), strides, padding, **kwargs)
        dy = make(rng, y.shape, dtype)
        # Each filter element sums batch * out_h * out_w products: the large
        # sample's float32 sums (2,048 terms) need an absolute tolerance.
        tols = {"float32": (1e-4, 5e-3), "float64": (1e-10, 1e-9)} if sample.name == "large" else sample.tols
        yield Sample(sample.name, (x, dy, list(f.shape), _as_list(strides), raw_padding),
                     {**kwargs, "explicit_paddings": explicit}, tols)


def _pool_grad_ref(kind):
    """The pooling gradient window by window, vectorized over images and channels."""
    def ref(x_or_shape, dy, ksize, strides, padding, data_format="NHWC", explicit_paddings=()):
        nchw = data_format == "NCHW"
        if padding == "EXPLICIT":
            padding = [explicit_paddings[i:i + 2] for i in range(0, 8, 2)]
        if kind in ("max", "max_grad"):
            xs = _nhwc(x_or_shape.astype(np.float64), nchw)
            shape = xs.shape
        else:
            full = list(x_or_shape)
            shape = tuple(full[i] for i in ((0, 2, 3, 1) if nchw else (0, 1, 2, 3)))
        n, h, w, c = shape
        kh, kw = _pair(ksize, nchw)
        sh, sw = _pair(strides, nchw)
        (pt, _, oh), (pl, _, ow) = _geometry((h, w), (kh, kw), (sh, sw), (1, 1), padding, nchw)
        g = _nhwc(dy.astype(np.float64), nchw)
        out = np.zeros(shape if kind != "max_grad" else (n, oh, ow, c))
        batch, chan = np.arange(n)[:, None], np.arange(c)[None, :]
        for py in range(oh):  # vectorized over images and channels
            y0, y1 = max(py * sh - pt, 0), min(py * sh - pt + kh, h)
            for px in range(ow):
                x0, x1 = max(px * sw - pl, 0), min(px * sw - pl + kw, w)
                if y0 >= y1 or x0 >= x1:
                    continue
                if kind == "avg":
                    out[:, y0:y1, x0:x1, :] += g[:, py, px, None, None, :] / ((y1 - y0) * (x1 - x0))
                    continue
                window = xs[:, y0:y1, x0:x1, :].reshape(n, (y1 - y0) * (x1 - x0), c)
                first = np.argmax(window, axis=1)  # the first maximum (or NaN), as the kernel picks
                iy, ix = np.divmod(first, x1 - x0)
                if kind == "max":
                    np.add.at(out, (batch, y0 + iy, x0 + ix, chan), g[:, py, px, :])
                else:  # max_pool2d_grad_grad reads g at the maximum
                    out[:, py, px, :] = g[batch, y0 + iy, x0 + ix, chan]
        return _from_nhwc(out, nchw).astype(dy.dtype)
    return ref


def _pool_grad_samples(kind):
    def gen(dtype, rng):
        for sample in pool_samples(dtype, rng):
            x, ksize, strides, padding = sample.args
            raw_padding, explicit = _raw_padding(padding)
            y = _ref_pool("max" if kind == "max_grad" else kind)(x, ksize, strides, padding, **sample.kwargs)
            dy = make(rng, x.shape if kind == "max_grad" else y.shape, dtype)
            first = list(x.shape) if kind == "avg" else x
            ksize, strides = _as_list(ksize), _as_list(strides)
            args = (dy, first, ksize, strides, raw_padding) if kind == "avg" else (first, dy, ksize, strides,
                                                                                  raw_padding)
            yield Sample(sample.name, args, {**sample.kwargs, "explicit_paddings": explicit})
    return gen


def _avg_grad_ref(dy, input_shape, *args, **kwargs):
    return _pool_grad_ref("avg")(input_shape, dy, *args, **kwargs)


def conv_backprop_filter_errors():
    x, dy = np.ones((1, 5, 5, 3), np.float32), np.ones((1, 5, 5, 4), np.float32)
    name = "conv2d_backprop_filter"
    yield ErrorInput("dy_shape", (x, np.ones((1, 4, 4, 4), np.float32), [3, 3, 3, 4], [1], "SAME"), {}, ValueError,
                     rf"^{name}: out_backprop has shape \[1, 4, 4, 4\]")
    yield ErrorInput("short_filter_sizes", (x, dy, [3, 3, 3], [1], "SAME"), {}, ValueError,
                     rf"^{name}: filter_sizes must have 4 entries")
    yield ErrorInput("negative_filter_size", (x, dy, [3, -3, 3, 4], [1], "SAME"), {}, ValueError,
                     rf"^{name}: filter_sizes has a negative dim")


def pool_grad_errors(name):
    def gen():
        x = np.ones((1, 4, 4, 2), np.float32)
        if name == "max_pool2d_grad":
            yield ErrorInput("grad_shape", (x, np.ones((1, 3, 3, 2), np.float32), [2], [2], "VALID"), {}, ValueError,
                             rf"^{name}: grad has shape")
        elif name == "max_pool2d_grad_grad":
            yield ErrorInput("grad_shape", (x, np.ones((1, 2, 2, 2), np.float32), [2], [2], "VALID"), {}, ValueError,
                             rf"^{name}: grad has shape")
            yield ErrorInput("bad_ksize", (x, x, [0], [2], "VALID"), {}, ValueError, rf"^{name}: ")
        else:
            yield ErrorInput("grad_shape", (np.ones((1, 3, 3, 2), np.float32), [1, 4, 4, 2], [2], [2], "VALID"), {},
                             ValueError, rf"^{name}: grad has shape")
            yield ErrorInput("short_input_shape", (np.ones((1, 2, 2, 2), np.float32), [4, 4, 2], [2], [2], "VALID"),
                             {}, ValueError, rf"^{name}: input_shape must have 4 entries")
    return gen


def entries(ember):
    nn = ember.nn
    out = []
    for name, (fn, attrs) in ACTIVATIONS.items():
        # relu6 also takes integers (as TensorFlow's); bool is its bad dtype.
        errors = activation_errors(name, np.bool_ if name == "relu6" else np.int32)
        out.append(OpInfo(name, getattr(nn, name), _f64(fn), activation_samples(attrs), errors,
                          tols={"float32": (2e-5, 2e-6)}))
    out += [
        OpInfo("relu_grad", ember.raw_ops.relu_grad, ref_relu_grad, binary_samples(), binary_errors("relu_grad")),
        OpInfo("softmax", nn.softmax, _f64(ref_softmax), softmax_samples, softmax_errors("softmax")),
        OpInfo("log_softmax", nn.log_softmax, _f64(ref_log_softmax), softmax_samples, softmax_errors("log_softmax"),
               tols={"float32": (1e-5, 1e-5)}),
        OpInfo("sparse_softmax_cross_entropy_with_logits", nn.sparse_softmax_cross_entropy_with_logits,
               ref_sparse_xent, sparse_xent_samples, sparse_xent_errors, type_var="T",
               tols={"float32": (1e-5, 1e-5)}),
        OpInfo("softmax_cross_entropy_with_logits", nn.softmax_cross_entropy_with_logits, ref_xent, xent_samples,
               xent_errors, tols={"float32": (1e-5, 1e-5)}),
        OpInfo("conv2d", nn.conv2d, ref_conv2d, conv_samples, conv_errors, tols={"float32": (1e-5, 1e-5)}),
        OpInfo("conv2d_transpose", nn.conv2d_transpose, ref_conv2d_transpose, conv_transpose_samples,
               conv_transpose_errors, tols={"float32": (1e-5, 1e-5)}),
        OpInfo("max_pool2d", nn.max_pool2d, _ref_pool("max"), pool_samples, pool_errors("max_pool2d", np.bool_)),
        OpInfo("avg_pool2d", nn.avg_pool2d, _ref_pool("avg"), pool_samples, pool_errors("avg_pool2d", np.int32)),
        OpInfo("conv2d_backprop_filter", nn.conv2d_backprop_filter, ref_conv2d_backprop_filter,
               conv_backprop_filter_samples, conv_backprop_filter_errors, tols={"float32": (1e-5, 1e-5)}),
        OpInfo("max_pool2d_grad", ember.raw_ops.max_pool2d_grad, _pool_grad_ref("max"), _pool_grad_samples("max"),
               pool_grad_errors("max_pool2d_grad")),
        OpInfo("max_pool2d_grad_grad", ember.raw_ops.max_pool2d_grad_grad, _pool_grad_ref("max_grad"),
               _pool_grad_samples("max_grad"), pool_grad_errors("max_pool2d_grad_grad")),
        OpInfo("avg_pool2d_grad", ember.raw_ops.avg_pool2d_grad, _avg_grad_ref, _pool_grad_samples("avg"),
               pool_grad_errors("avg_pool2d_grad"), tols={"float32": (1e-5, 1e-6)}),
        OpInfo("layer_normalization", nn.layer_normalization, ref_layer_norm, layer_norm_samples,
               layer_norm_errors, tols={"float32": (1e-5, 1e-5)}),
        OpInfo("bias_add", nn.bias_add, ref_bias_add, bias_add_samples, bias_add_errors),
        OpInfo("scaled_dot_product_attention", nn.scaled_dot_product_attention, ref_attention, attention_samples,
               attention_errors, type_var="T", tols={"float32": (1e-5, 1e-5)}),
    ]
    return out

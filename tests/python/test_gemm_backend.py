"""GEMM and convolution at sizes that take the BLAS path and the tiled split
(Note [BLAS GEMM], Note [Matmul tiles], Note [Conv2d blocks]), and
ember.config.build_info().

The op database (op_db.py) checks small shapes; these are large enough that
a product goes to OpenBLAS when the build has it, is split into row or
column tiles over the pool, and a convolution takes each of its paths.
Results are compared with float64 NumPy references under a bound that
float32 GEMM accumulation justifies: each element may be off by a few
sqrt(k) units in the last place of the sum of |a| * |b| over its k terms.
"""

import numpy as np
import pytest

import ember
import op_db  # noqa: F401 - op_db_nn imports op_db, which imports it back
from op_db_nn import ref_conv2d, ref_conv2d_transpose

EPS = {np.float32: np.finfo(np.float32).eps, np.float64: np.finfo(np.float64).eps,
       np.complex64: np.finfo(np.float32).eps}


def _rand(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _assert_gemm_close(got, want, magnitude, k, dtype):
    """|got - want| <= 4 sqrt(k) eps * magnitude, where magnitude is the sum
    of |a| * |b| behind each element (a rounding-error bound for a k-term
    dot product that holds with margin for blocked, FMA-based GEMMs)."""
    bound = 4 * np.sqrt(max(k, 1)) * EPS[dtype] * magnitude + np.finfo(np.float32).tiny
    err = np.abs(got.astype(np.complex128) - want)
    assert np.all(err <= bound), f"max error {err.max()} where the bound is {bound[err > bound].min()}"


def _op(x, transpose):
    return np.swapaxes(x, -1, -2) if transpose else x


# m, k, n: the MLP product (column tiles), a tall one (row tiles), a square
# one, a thin GEMV-like row, and one at the BLAS size threshold.
# (1, 784, 512) is the MLP's first layer at batch 1, cut along k where the
# machine's L2 asks for it (Note [Vector-matrix splits]).
SHAPES = [(64, 784, 512), (700, 96, 48), (256, 256, 256), (1, 1000, 300), (1, 784, 512), (16, 16, 16), (2, 2, 2)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("transpose_a,transpose_b", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_large(dtype, m, k, n, transpose_a, transpose_b):
    rng = np.random.default_rng(m * 7 + k * 3 + n)
    a = _rand(rng, (k, m) if transpose_a else (m, k), dtype)
    b = _rand(rng, (n, k) if transpose_b else (k, n), dtype)
    got = ember.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b).numpy()
    wa, wb = _op(a.astype(np.complex128), transpose_a), _op(b.astype(np.complex128), transpose_b)
    assert got.dtype == dtype and got.shape == (m, n)
    _assert_gemm_close(got, wa @ wb, np.abs(wa) @ np.abs(wb), k, dtype)


@pytest.mark.parametrize("a_shape,b_shape", [
    ((3, 64, 200), (3, 200, 96)),       # fewer products than threads on big machines: tiles per product
    ((40, 48, 32), (32, 64)),           # many products, b broadcast
    ((2, 1, 128, 64), (4, 64, 80)),     # broadcast on both sides
])
def test_batch_matmul_large(a_shape, b_shape):
    rng = np.random.default_rng(1)
    a, b = _rand(rng, a_shape, np.float32), _rand(rng, b_shape, np.float32)
    got = ember.matmul(a, b).numpy()
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    _assert_gemm_close(got, want, np.matmul(np.abs(a), np.abs(b)).astype(np.float64), a_shape[-1], np.float32)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_matmul_half_large_tiles(dtype):
    # Half types multiply in float32 and round each tile of the result once.
    rng = np.random.default_rng(2)
    a = rng.standard_normal((64, 300)).astype(np.float32)
    b = rng.standard_normal((300, 512)).astype(np.float32)
    x, y = ember.cast(a, dtype), ember.cast(b, dtype)
    got = ember.cast(ember.matmul(x, y), "float32").numpy()
    want = ember.cast(ember.constant(x.numpy().astype(np.float64) @ y.numpy().astype(np.float64), "float32"),
                      dtype)
    np.testing.assert_allclose(got, ember.cast(want, "float32").numpy(), rtol=1e-2, atol=0.2)


def test_tensordot_and_einsum_large():
    rng = np.random.default_rng(3)
    a, b = _rand(rng, (8, 96, 40), np.float32), _rand(rng, (40, 96, 200), np.float32)
    want = np.tensordot(a.astype(np.float64), b.astype(np.float64), axes=[[1, 2], [1, 0]])
    magnitude = np.tensordot(np.abs(a), np.abs(b), axes=[[1, 2], [1, 0]]).astype(np.float64)
    _assert_gemm_close(ember.tensordot(a, b, axes=[[1, 2], [1, 0]]).numpy(), want, magnitude, 96 * 40, np.float32)
    x, y = _rand(rng, (4, 128, 96), np.float32), _rand(rng, (4, 96, 160), np.float32)
    want = np.einsum("bij,bjk->bik", x.astype(np.float64), y.astype(np.float64))
    _assert_gemm_close(ember.einsum("bij,bjk->bik", x, y).numpy(), want,
                       np.einsum("bij,bjk->bik", np.abs(x), np.abs(y)).astype(np.float64), 96, np.float32)


def _conv_check(x, f, got, strides, padding, data_format="NHWC", dilations=None):
    want = ref_conv2d(x.astype(np.float64), f.astype(np.float64), strides, padding, data_format, dilations)
    magnitude = ref_conv2d(np.abs(x).astype(np.float64), np.abs(f).astype(np.float64), strides, padding,
                           data_format, dilations)
    _assert_gemm_close(got, want, magnitude, f.shape[0] * f.shape[1] * f.shape[2], x.dtype.type)


# Note [Packed float32 GEMM]: shapes that reach each edge of the packed
# kernel: rows not a multiple of its 6-row tile (13 = 6 + 6 + 1, 17, 23),
# columns not a multiple of its 64-column block (100, 130), k not a multiple
# of its 128-deep chunk (300) or exactly one (128), many rows with a short k
# (1100 rows, past the 512 where a long k goes to BLAS), and the limits
# around it (11 rows and 63 columns stay on BLAS, k = 1500 with 600 rows).
PACKED_SHAPES = [(13, 300, 100), (17, 128, 64), (23, 257, 130), (64, 784, 512), (1100, 64, 130), (11, 256, 256),
                 (96, 64, 63), (600, 1500, 128), (128, 1024, 256)]


@pytest.mark.parametrize("m,k,n", PACKED_SHAPES)
@pytest.mark.parametrize("transpose_a,transpose_b", [(False, False), (True, False), (False, True)])
def test_matmul_packed_float32(m, k, n, transpose_a, transpose_b):
    rng = np.random.default_rng(m + 5 * k + 11 * n)
    a = _rand(rng, (k, m) if transpose_a else (m, k), np.float32)
    b = _rand(rng, (n, k) if transpose_b else (k, n), np.float32)
    got = ember.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b).numpy()
    wa, wb = _op(a.astype(np.float64), transpose_a), _op(b.astype(np.float64), transpose_b)
    assert got.shape == (m, n)
    _assert_gemm_close(got, wa @ wb, np.abs(wa) @ np.abs(wb), k, np.float32)


def test_matmul_packed_float32_is_the_same_on_any_thread_count():
    """Each element sums its products in one order whatever the tile
    (Note [Packed float32 GEMM]): a whole product and each of its row and
    column slices give bitwise the same values."""
    rng = np.random.default_rng(3)
    a, b = _rand(rng, (96, 700), np.float32), _rand(rng, (700, 320), np.float32)
    whole = ember.matmul(a, b).numpy()
    np.testing.assert_array_equal(ember.matmul(a[:48], b).numpy(), whole[:48])
    np.testing.assert_array_equal(ember.matmul(a[48:], b).numpy(), whole[48:])
    np.testing.assert_array_equal(ember.matmul(a, np.ascontiguousarray(b[:, 128:])).numpy(), whole[:, 128:])


# (input NHWC, filter HWIO, strides, padding, dilations): each of
# Note [Conv2d blocks]'s paths at sizes that use BLAS.
CONV_CASES = [
    ((1, 40, 40, 32), (3, 3, 32, 48), 1, "SAME", None),       # blocks of rows
    ((1, 8, 8, 256), (3, 3, 256, 128), 1, "SAME", None),      # whole im2col (gathered in parallel), column tiles
    ((1, 30, 30, 64), (3, 3, 64, 64), 2, "SAME", None),       # stride 2
    ((2, 17, 19, 24), (3, 3, 24, 40), 2, "VALID", None),      # batch 2, odd sizes
    ((1, 20, 20, 32), (3, 3, 32, 64), 1, [[0, 0], [2, 1], [1, 2], [0, 0]], 2),  # explicit padding, dilation
    ((1, 28, 28, 96), (1, 1, 96, 128), 1, "VALID", None),     # 1x1: one GEMM over all pixels
    ((1, 28, 28, 64), (1, 1, 64, 96), 2, "SAME", None),       # strided 1x1: gathered
    ((1, 48, 48, 3), (7, 7, 3, 32), 2, "SAME", None),         # ResNet-style stem
    ((1, 16, 16, 64), (3, 3, 16, 64), 1, "SAME", None),       # 4 groups of 16 channels
]


@pytest.mark.parametrize("x_shape,f_shape,strides,padding,dilations", CONV_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_large(x_shape, f_shape, strides, padding, dilations, dtype):
    rng = np.random.default_rng(sum(x_shape) + sum(f_shape))
    x, f = _rand(rng, x_shape, dtype), _rand(rng, f_shape, dtype)
    got = ember.nn.conv2d(x, f, strides, padding, dilations=dilations).numpy()
    _conv_check(x, f, got, strides, padding, dilations=dilations)


def test_conv2d_large_nchw():
    rng = np.random.default_rng(5)
    x, f = _rand(rng, (1, 64, 12, 12), np.float32), _rand(rng, (3, 3, 64, 96), np.float32)
    got = ember.nn.conv2d(x, f, 1, "SAME", data_format="NCHW").numpy()
    _conv_check(x, f, got, 1, "SAME", "NCHW")


@pytest.mark.parametrize("strides", [1, 2])
def test_conv2d_transpose_large(strides):
    rng = np.random.default_rng(6)
    x, f = _rand(rng, (1, 14, 14, 128), np.float32), _rand(rng, (3, 3, 64, 128), np.float32)
    out_shape = [1, 14 * strides, 14 * strides, 64]
    got = ember.nn.conv2d_transpose(x, f, out_shape, strides, "SAME").numpy()
    want = ref_conv2d_transpose(x.astype(np.float64), f.astype(np.float64), out_shape, strides)
    magnitude = ref_conv2d_transpose(np.abs(x).astype(np.float64), np.abs(f).astype(np.float64), out_shape, strides)
    _assert_gemm_close(got, want, magnitude, 9 * 128, np.float32)


def test_conv2d_gradients_large():
    # The backprop kernels (nn_grad.cc) multiply with the same GEMM.
    rng = np.random.default_rng(7)
    x, f = _rand(rng, (1, 20, 20, 64), np.float32), _rand(rng, (3, 3, 64, 48), np.float32)
    g = _rand(rng, (1, 20, 20, 48), np.float32)
    xv, fv = ember.Variable(x), ember.Variable(f)
    with ember.GradientTape() as tape:
        y = ember.nn.conv2d(xv, fv, 1, "SAME")
        loss = ember.reduce_sum(y * g)
    dx, df = tape.gradient(loss, [xv, fv])
    # d loss / d x is the transposed convolution of g; d loss / d f sums
    # patches of x weighted by g.
    want_dx = ref_conv2d_transpose(g.astype(np.float64), f.astype(np.float64), x.shape, 1)
    mag_dx = ref_conv2d_transpose(np.abs(g).astype(np.float64), np.abs(f).astype(np.float64), x.shape, 1)
    _assert_gemm_close(dx.numpy(), want_dx, mag_dx, 9 * 48, np.float32)
    xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    want_df = np.stack([np.stack([np.einsum("nhwc,nhwo->co", xp[:, i:i + 20, j:j + 20], g.astype(np.float64))
                                  for j in range(3)]) for i in range(3)])
    mag_df = np.stack([np.stack([np.einsum("nhwc,nhwo->co", np.abs(xp[:, i:i + 20, j:j + 20]),
                                           np.abs(g).astype(np.float64)) for j in range(3)]) for i in range(3)])
    _assert_gemm_close(df.numpy(), want_df, mag_df, 400, np.float32)


def test_build_info():
    info = ember.config.build_info()
    assert info["blas"] in ("OpenBLAS", "Eigen")
    assert isinstance(info["packed_sgemm"], bool)
    gemm = ("packed float32 / " if info["packed_sgemm"] else "") + info["blas"]
    assert info["conv_backend"] == f"direct, Winograd, or im2col + {gemm} GEMM"
    assert isinstance(info["blas_version"], str) and info["blas_version"]
    assert info["eigen_version"].count(".") == 2
    assert isinstance(info["intra_op_threads"], int) and info["intra_op_threads"] >= 1
    assert isinstance(info["is_cuda_build"], bool)
    if info["blas"] == "OpenBLAS":
        # Note [BLAS GEMM]: OpenBLAS runs single-threaded inside Ember's pool.
        assert info["blas_threads_per_call"] == 1
        assert info["blas_version"] in info["blas_config"]
    info["blas"] = "changed"  # a fresh dict each call
    assert ember.config.build_info()["blas"] != "changed"

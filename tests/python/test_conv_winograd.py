"""Accuracy of the Winograd F(2x2, 3x3) convolution at ResNet's sizes (Note [Winograd convolution]).

The op database checks every conv path against NumPy with its tolerances; these tests check
that the Winograd path's float32 error stays close to that of a plain float32 sum at the channel
counts where the transforms' additions accumulate the most, in the forward pass and in the
input gradient (a stride-1 transposed convolution).
"""
import numpy as np
import pytest

import ember
import op_db  # noqa: F401 - loads op_db_nn through op_db, the order its imports need
from op_db_nn import ref_conv2d, ref_conv2d_transpose


def _scaled_error(got, want, bound):
    """Largest error relative to sum(|x| * |f|) over each output's window, the scale of a float32
    sum's rounding error."""
    return float(np.max(np.abs(got.astype(np.float64) - want) / np.maximum(bound, 1e-30)))


@pytest.mark.parametrize("hw, cin, cout, padding", [
    (56, 64, 64, "SAME"),
    (28, 128, 128, "SAME"),
    (15, 96, 40, "VALID"),
])
def test_forward_error_is_a_float32_sums(hw, cin, cout, padding):
    rng = np.random.default_rng(hw + cin)
    x = rng.standard_normal((1, hw, hw, cin)).astype(np.float32)
    f = rng.standard_normal((3, 3, cin, cout)).astype(np.float32)
    want = ref_conv2d(x.astype(np.float64), f.astype(np.float64), 1, padding)
    bound = ref_conv2d(np.abs(x).astype(np.float64), np.abs(f).astype(np.float64), 1, padding)
    got = ember.nn.conv2d(x, f, 1, padding).numpy()
    assert got.shape == want.shape
    # A float32 sum of n terms errs by up to about n * 2^-24 of the bound. Measured for these
    # sizes: 0.8-1.2e-7 for this kernel, 1.2-1.9e-7 for NumPy's float32 im2col + matmul.
    assert _scaled_error(got, want, bound) < 2e-6


def test_input_gradient_matches_the_transposed_convolution():
    rng = np.random.default_rng(7)
    x = ember.constant(rng.standard_normal((2, 20, 18, 32)).astype(np.float32))
    f = rng.standard_normal((3, 3, 32, 48)).astype(np.float32)
    dy = rng.standard_normal((2, 20, 18, 48)).astype(np.float32)
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = ember.nn.conv2d(x, f, 1, "SAME")
    dx = tape.gradient(y, x, output_gradients=ember.constant(dy)).numpy()
    want = ref_conv2d_transpose(dy.astype(np.float64), f.astype(np.float64), [2, 20, 18, 32], 1, "SAME")
    bound = ref_conv2d_transpose(np.abs(dy).astype(np.float64), np.abs(f).astype(np.float64), [2, 20, 18, 32],
                                 1, "SAME")
    assert _scaled_error(dx, want, bound) < 2e-6


def test_float32_agrees_with_float64_at_a_partial_tile():
    """Odd output sizes leave a partial 2x2 block on the last row and column: its valid pixels
    must match, and nothing may be written past the output."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 9, 7, 24))
    f = rng.standard_normal((3, 3, 24, 16))
    want = ember.nn.conv2d(x, f, 1, "SAME").numpy()  # float64: im2col + GEMM
    got = ember.nn.conv2d(x.astype(np.float32), f.astype(np.float32), 1, "SAME").numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

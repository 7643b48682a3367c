"""Accuracy of the Winograd convolutions at ResNet's sizes (Note [Winograd convolution], Note
[Winograd accuracy]).

The op database checks every conv path against NumPy with its tolerances; these tests bound the
float32 error of the Winograd paths at the channel counts where the transforms accumulate the
most, in the forward pass and in the input gradient (a stride-1 transposed convolution), and check
that EMBER_CONV_WINOGRAD=2 and =0 give the accuracy of a plain float32 sum.
"""
import os
import subprocess
import sys
import textwrap

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
    # Note [Winograd by column block]: a large filter over few tiles, whole
    # blocks of 64 output channels and a ragged last one.
    (14, 256, 256, "SAME"),
    (13, 200, 288, "SAME"),
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
    # sizes: 0.8-1.2e-7 for F(2x2, 3x3), 1.2-1.9e-7 for NumPy's float32 im2col + matmul.
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


_ERROR_SCRIPT = textwrap.dedent("""
    import numpy as np, ember, op_db
    from op_db_nn import ref_conv2d, ref_conv2d_transpose
    rng = np.random.default_rng(0)
    errors = []
    # ResNet's 56x56 layer; partial 4x4 and 2x2 tiles (15 x 13); a stride-1 input gradient.
    for shape, filters in [((1, 56, 56, 64), (3, 3, 64, 64)), ((3, 15, 13, 12), (3, 3, 12, 20))]:
        x = rng.standard_normal(shape).astype(np.float32)
        f = rng.standard_normal(filters).astype(np.float32)
        want = ref_conv2d(x.astype(np.float64), f.astype(np.float64), 1, "SAME")
        bound = ref_conv2d(np.abs(x).astype(np.float64), np.abs(f).astype(np.float64), 1, "SAME")
        errors.append(np.max(np.abs(ember.nn.conv2d(x, f, 1, "SAME").numpy() - want) / bound))
    dy = rng.standard_normal((2, 20, 18, 48)).astype(np.float32)
    f = rng.standard_normal((3, 3, 32, 48)).astype(np.float32)
    shape = [2, 20, 18, 32]
    want = ref_conv2d_transpose(dy.astype(np.float64), f.astype(np.float64), shape, 1, "SAME")
    bound = ref_conv2d_transpose(np.abs(dy).astype(np.float64), np.abs(f).astype(np.float64), shape, 1, "SAME")
    got = ember.nn.conv2d_transpose(dy, f, shape, 1, "SAME").numpy()
    errors.append(np.max(np.abs(got - want) / bound))
    print(" ".join(str(float(e)) for e in errors))
""")


def _scaled_errors_with(setting):
    env = dict(os.environ)
    env.pop("EMBER_CONV_WINOGRAD", None)
    if setting is not None:
        env["EMBER_CONV_WINOGRAD"] = setting
    out = subprocess.run([sys.executable, "-c", _ERROR_SCRIPT], env=env, capture_output=True, text=True,
                         timeout=120, cwd=os.path.dirname(__file__))
    assert out.returncode == 0, out.stderr
    return [float(e) for e in out.stdout.split()]


def test_the_setting_chooses_the_accuracy():
    # F(4x4, 3x3) (opt-in) takes all three; the default, 2 and 0 give a plain sum's accuracy.
    fast = _scaled_errors_with("4")
    assert max(fast) < 6e-6 and fast[0] > 5e-7, fast
    for setting in (None, "2", "0"):
        errors = _scaled_errors_with(setting)
        assert max(errors) < 5e-7, (setting, errors)

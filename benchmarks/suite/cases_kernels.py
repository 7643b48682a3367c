"""Compute-bound kernels: SGEMM, the MLP's GEMM and ResNet-50's conv2d shapes
(batch 1, NHWC), in GFLOP/s."""
import functools

import numpy as np

from benchmarks.suite.case import Case, Spec, impl_for
from benchmarks.suite.frameworks import numpy_ops
from benchmarks.suite.timing import repeat

GROUP = "kernels"

# (name, input H=W, Cin, kernel, Cout, stride): ResNet-50's stem, its 3x3 convs per stage and a 1x1
# expansion.
CONVS = [
    ("conv 224x224x3 7x7/2 64", 224, 3, 7, 64, 2),
    ("conv 56x56x64 3x3 64", 56, 64, 3, 64, 1),
    ("conv 28x28x128 3x3 128", 28, 128, 3, 128, 1),
    ("conv 14x14x256 3x3 256", 14, 256, 3, 256, 1),
    ("conv 7x7x512 3x3 512", 7, 512, 3, 512, 1),
    ("conv 56x56x64 1x1 256", 56, 64, 1, 256, 1),
]


def _rng_array(shape, seed, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def _timing(ctx, per_call_s):
    """Rounds and calls per sample so one sample lasts some milliseconds."""
    inner = max(1, int(0.01 / per_call_s))
    return dict(rounds=ctx.pick(21, 2), inner=ctx.pick(inner, 1), warmup=2, gap_s=ctx.pick(0.005, 0.0))


def _matmul_case(ctx, m, k, n, description):
    a, b = _rng_array((m, k), 1), _rng_array((k, n), 2)
    impls = []
    for fw in ctx.peers.available():
        def build(fw=fw):
            return repeat(fw.matmul, fw.tensor(a), fw.tensor(b))
        impls.append(impl_for(fw, build))
    flops = 2 * m * k * n
    return Case(impls=impls, work=("GFLOP/s", flops), reference=lambda: a.astype(np.float64) @ b,
                rtol=1e-4, atol_rel=1e-4, description=description, **_timing(ctx, flops / 50e9))


def _conv_case(ctx, size, cin, k, cout, stride):
    x = _rng_array((1, size, size, cin), 3)
    w = _rng_array((k, k, cin, cout), 4, np.sqrt(2.0 / (k * k * cin)))
    impls = []
    for fw in ctx.peers.available():
        def build(fw=fw):
            return repeat(fw.conv2d, fw.image(x), fw.filters(w), stride)
        impl = impl_for(fw, build)
        impl.to_numpy = fw.image_to_numpy
        impls.append(impl)
    out = -(-size // stride)
    flops = 2 * out * out * cout * k * k * cin
    return Case(impls=impls, work=("GFLOP/s", flops),
                reference=lambda: numpy_ops.conv2d(x.astype(np.float64), w.astype(np.float64), stride),
                rtol=1e-4, atol_rel=1e-4, **_timing(ctx, flops / 30e9),
                description=f"conv2d, batch 1, NHWC input {size}x{size}x{cin}, HWIO filter {k}x{k}x{cin}x{cout}, "
                            f"stride {stride}, SAME padding. PyTorch runs it channels_last (the same memory "
                            "layout); NumPy as im2col + matmul.")


def specs(ctx):
    out = [
        Spec(GROUP, "sgemm 1024", lambda: _matmul_case(
            ctx, 1024, 1024, 1024, "float32 matmul 1024x1024 @ 1024x1024 (2 GFLOP per call).")),
        Spec(GROUP, "gemm 64x784x512", lambda: _matmul_case(
            ctx, 64, 784, 512, "float32 matmul [64, 784] @ [784, 512]: the MLP's first layer at batch 64.")),
    ]
    for name, size, cin, k, cout, stride in CONVS:
        out.append(Spec(GROUP, name, functools.partial(_conv_case, ctx, size, cin, k, cout, stride)))
    return out

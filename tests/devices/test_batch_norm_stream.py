"""Note [Eager batch norm on a stream device] (ember/nn.py): on a device with
streams, an eager batch_normalization whose parameters are channel vectors
runs as one fused_elementwise kernel with the composite's arithmetic, so
its result is bit for bit the CPU composite's; elsewhere, under a tape and
while tracing it stays the composite."""

import numpy as np
import pytest

import ember
from sim_markers import needs_two_sims

pytestmark = needs_two_sims


def reference(x, mean, variance, offset, scale, eps):
    inv = 1.0 / np.sqrt(variance.astype(np.float64) + eps)
    if scale is not None:
        inv = inv * scale
    shift = -(mean * inv) if offset is None else offset - mean * inv
    return x.astype(np.float64) * inv + shift


def ops_issued(fn):
    ember.profiler.start()
    try:
        out = fn()
    finally:
        result = ember.profiler.stop(save=False)
    return out, {name: s["calls"] for name, s in result.op_stats().items() if s["calls"]}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("x_shape, param_shape", [((2, 5, 5, 8), (8,)), ((3, 8), (1, 8)), ((2, 4, 6), (1, 1, 6))])
@pytest.mark.parametrize("with_scale, with_offset", [(True, True), (False, True), (True, False), (False, False)])
def test_one_kernel_with_the_composites_result(mode, dtype, x_shape, param_shape, with_scale, with_offset):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(x_shape).astype(dtype)
    param_dtype = np.float32 if dtype == np.float16 else dtype
    mean, offset, scale = (rng.standard_normal(param_shape).astype(param_dtype) for _ in range(3))
    variance = rng.random(param_shape).astype(param_dtype) + 0.5
    offset = offset if with_offset else None
    scale = scale if with_scale else None
    with ember.device("sim:0"):
        args = [ember.identity(v) if v is not None else None for v in (x, mean, variance, offset, scale)]
    with ember.device("sim:0"):
        ember.nn.batch_normalization(*args, 1e-3)  # the first call puts epsilon on the device, once
        got, issued = ops_issued(lambda: ember.nn.batch_normalization(*args, 1e-3))
    assert got.device == "sim:0"
    assert issued.get("fused_elementwise") == 1
    assert sum(issued.values()) == 1 + (2 if dtype == np.float16 else 0)  # half: the casts around it
    on_cpu = ember.nn.batch_normalization(x, mean, variance, offset, scale, 1e-3)
    assert got.dtype == on_cpu.dtype
    np.testing.assert_array_equal(got.numpy(), on_cpu.numpy())
    tol = 1e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(got.numpy().astype(np.float64), reference(x, mean, variance, offset, scale, 1e-3),
                               rtol=tol, atol=tol)


def test_composite_where_one_kernel_does_not_apply(mode):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    for mean_shape in [(3, 1), (2, 3, 4), ()]:  # not a channel vector of x's last dim
        mean = rng.standard_normal(mean_shape).astype(np.float32)
        with ember.device("sim:0"):
            got, issued = ops_issued(lambda: ember.nn.batch_normalization(x, mean, 1.0, None, None, 1e-3))
        assert "fused_elementwise" not in issued, mean_shape
        np.testing.assert_allclose(got.numpy(), reference(x, mean, np.float32(1.0), None, None, 1e-3), rtol=1e-5,
                                   atol=1e-5)
    # On the CPU the composite is cheaper (the kernel would recompute the [C] part per element).
    _, issued = ops_issued(lambda: ember.nn.batch_normalization(x, x[0, 0], x[0, 0] ** 2 + 1, None, None, 1e-3))
    assert "fused_elementwise" not in issued


def test_gradients_and_functions_keep_the_composite(mode):
    rng = np.random.default_rng(2)
    x_np = rng.standard_normal((2, 4, 4, 3)).astype(np.float32)
    params = [rng.random(3).astype(np.float32) + 0.5 for _ in range(4)]
    with ember.device("sim:0"):
        x = ember.Variable(x_np)
        with ember.GradientTape() as tape:
            y = ember.reduce_sum(ember.nn.batch_normalization(x, *params, 1e-3))
        grad = tape.gradient(y, x)
    inv = params[3] / np.sqrt(params[1] + 1e-3)  # d/dx of x * scale / sqrt(var + eps): the scale's channel
    np.testing.assert_allclose(grad.numpy(), np.broadcast_to(inv, x_np.shape), rtol=1e-5)

    @ember.function
    def normalize(v):
        return ember.nn.batch_normalization(v, *params, 1e-3)

    with ember.device("sim:0"):
        got = normalize(ember.identity(x_np))
    np.testing.assert_allclose(got.numpy(), reference(x_np, params[0], params[1], params[2], params[3], 1e-3),
                               rtol=1e-5, atol=1e-5)

"""Element-wise fusion in @ember.function (Note [Element-wise fusion]): which
nodes the optimizer fuses, and that fused graphs compute what the unfused
graph and NumPy compute."""

import contextlib
import os
import subprocess
import sys

import numpy as np
import pytest

import ember

RNG = np.random.default_rng(7)


@contextlib.contextmanager
def optimizer_options(**options):
    saved = ember.config.optimizer.get_experimental_options()
    ember.config.optimizer.set_experimental_options(options)
    try:
        yield
    finally:
        ember.config.optimizer.set_experimental_options(saved)


def traced(fn, *args):
    """(the optimized graph's op names, the outputs as NumPy arrays)."""
    f = ember.function(fn)
    out = f(*args)
    outs = out if isinstance(out, (list, tuple)) else [out]
    return f.get_concrete_function(*args).graph.op_names(), [o.numpy() for o in outs]


def unfused(fn, *args):
    with optimizer_options(remapping=False):
        return traced(fn, *args)


def test_tanh_of_affine_is_one_node_and_matches_numpy():
    x = RNG.standard_normal((3, 1000)).astype(np.float32)

    def f(x, a, b):
        return ember.tanh(x * a + b)

    ops, (y,) = traced(f, x, np.float32(1.5), np.float32(-0.25))
    assert ops == ["fused_elementwise"]
    np.testing.assert_allclose(y, np.tanh(x * np.float32(1.5) - np.float32(0.25)), rtol=2e-6, atol=2e-7)
    unfused_ops, (y_unfused,) = unfused(f, x, np.float32(1.5), np.float32(-0.25))
    assert sorted(unfused_ops) == ["add", "multiply", "tanh"]
    np.testing.assert_array_equal(y, y_unfused)  # the same functors, the same bits


def test_long_chain_with_python_scalars_has_one_node_and_one_constant():
    def chain(x):
        for _ in range(300):
            x = x * 1.001 + 0.5
        return x

    x = np.arange(5, dtype=np.float64)
    f = ember.function(chain)
    y = f(x).numpy()
    concrete = f.get_concrete_function(x)
    assert concrete.graph.op_names() == ["fused_elementwise"]
    # The scalar constant cache gives each Python constant one argument.
    assert concrete.graph.num_nodes == 4  # x, 1.001, 0.5 and the fused node
    expected = x.copy()
    for _ in range(300):
        expected = expected * 1.001 + 0.5
    np.testing.assert_allclose(y, expected, rtol=1e-12)


def test_intermediate_values_used_elsewhere_become_outputs():
    x = RNG.standard_normal((64, 33)).astype(np.float32)

    def f(x):
        h = ember.exp(x) * 0.5
        s = ember.reduce_sum(h)  # not fusible: h is an output of the fused node
        return ember.sigmoid(h) - 1.0, s

    ops, (y, s) = traced(f, x)
    assert sorted(ops) == ["fused_elementwise", "reduce_sum"]
    pretty = ember.function(f).get_concrete_function(x).graph.pretty()
    assert "outputs=[1, 3]" in pretty  # h for reduce_sum, and the result
    h = np.exp(x) * np.float32(0.5)
    np.testing.assert_allclose(y, 1 / (1 + np.exp(-h)) - 1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s, h.sum(), rtol=1e-5)


def test_a_path_through_an_unfused_node_is_not_fused_into_a_cycle():
    # exp(x) feeds reduce_max, whose result (one element) feeds the multiply:
    # exp and multiply in one node would wait for reduce_max, which waits for them.
    x = RNG.standard_normal(100).astype(np.float32)

    def f(x):
        e = ember.exp(x - 1.0)
        return ember.tanh(e * ember.reduce_max(e))

    ops, (y,) = traced(f, x)
    e = np.exp(x - np.float32(1))
    np.testing.assert_allclose(y, np.tanh(e * e.max()), rtol=1e-5, atol=1e-6)
    assert ops.count("fused_elementwise") == 2  # (subtract, exp) and (multiply, tanh)


def test_diamond_merges_into_one_node():
    x = RNG.standard_normal(50)

    def f(x):
        return ember.exp(x) + ember.sin(x) * ember.cos(x)

    ops, (y,) = traced(f, x)
    assert ops == ["fused_elementwise"]
    np.testing.assert_allclose(y, np.exp(x) + np.sin(x) * np.cos(x), rtol=1e-12)


def test_unknown_dims_fuse_only_when_they_are_one_value():
    spec = ember.TensorSpec([None, 4], ember.float32)
    one = ember.function(lambda x: ember.nn.relu(x * 2.0 - 1.0), input_signature=[spec])
    assert one.get_concrete_function().graph.op_names() == ["fused_elementwise"]
    x = RNG.standard_normal((7, 4)).astype(np.float32)
    np.testing.assert_allclose(one(x).numpy(), np.maximum(x * 2 - 1, 0), rtol=1e-6)

    # x and y are both [?, 4] but may differ at run time ([1, 4] broadcasts): not fused.
    two = ember.function(lambda x, y: ember.exp(x + y), input_signature=[spec, spec])
    assert "fused_elementwise" not in two.get_concrete_function().graph.op_names()
    y = RNG.standard_normal((1, 4)).astype(np.float32)
    np.testing.assert_allclose(two(x, y).numpy(), np.exp(x + y), rtol=1e-6)


def test_broadcasting_other_than_one_element_or_the_last_dim_stays_unfused():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    column = RNG.standard_normal((3, 1)).astype(np.float32)
    ops, (y,) = traced(lambda x, c: ember.tanh(x + c) * 2.0, x, column)
    assert ops == ["add", "fused_elementwise"]  # tanh and multiply fuse; the [3, 1] add does not
    np.testing.assert_allclose(y, np.tanh(x + column) * 2, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (8, 33, 33, 96), (3, 3000), (4, 2), (1, 7)])
def test_channel_vectors_fuse_as_batch_norm_and_bias(dtype, shape):
    # Note [Element-wise fusion]: a [C] or [1, ..., 1, C] operand (batch
    # norm's scale and shift, a bias) is read along the last dim. The shapes
    # cover one block, many blocks over both threads, C above one block's
    # length (3000 > 2048 float32s), and C = 2.
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(dtype)
    channels = shape[-1]
    scale = rng.standard_normal(channels).astype(dtype)
    shift = rng.standard_normal((1,) * (len(shape) - 1) + (channels,)).astype(dtype)

    def f(x, scale, shift):
        y = x * scale + shift
        return ember.nn.relu(y), ember.tanh(y - 0.5 * scale)

    ops, (relu, tanh) = traced(f, x, scale, shift)
    assert ops == ["multiply", "fused_elementwise"]  # 0.5 * scale has the vector's own shape
    y = x * scale + shift
    rtol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(relu, np.maximum(y, 0), rtol=rtol)
    np.testing.assert_allclose(tanh, np.tanh(y - 0.5 * scale), rtol=rtol, atol=rtol)


def test_a_channel_vector_of_another_length_is_refused_by_the_shape_function():
    program = "add(a0, a1)"
    x = ember.constant(np.ones((2, 3), np.float32))
    with pytest.raises(ember.errors.InvalidArgumentError, match="only its last dim"):
        ember.raw_ops.fused_elementwise([x, ember.constant(np.ones((2, 1), np.float32))], program, [0])
    y = ember.raw_ops.fused_elementwise([x, ember.constant(np.arange(3, dtype=np.float32))], program, [0])
    np.testing.assert_array_equal(y[0].numpy(), 1 + np.tile(np.arange(3, dtype=np.float32), (2, 1)))


def test_only_float32_and_float64_fuse():
    x = np.arange(6, dtype=np.int32)
    ops, (y,) = traced(lambda x: (x + 1) * 3, x)
    assert ops == ["add", "multiply"]
    np.testing.assert_array_equal(y, (x + 1) * 3)


def test_activation_attributes_are_kept():
    x = np.linspace(-3, 3, 41)

    def f(x):
        return (ember.nn.leaky_relu(x * 1.0 + 0.0 * x, alpha=0.3) + ember.nn.gelu(x, approximate=True)
                + ember.nn.silu(x, beta=0.5) + ember.nn.gelu(x * 1.5))

    ops, (y,) = traced(f, x)
    assert ops == ["fused_elementwise"]
    _, (expected,) = unfused(f, x)
    np.testing.assert_allclose(y, expected, rtol=1e-13)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(12))
def test_random_programs_match_the_unfused_graph(dtype, seed):
    rng = np.random.default_rng(seed)
    unary = [ember.negative, ember.abs, ember.exp, ember.tanh, ember.sigmoid, ember.square, ember.sin,
             ember.nn.relu, ember.nn.softplus, ember.nn.elu, ember.math.erf, ember.floor, ember.nn.relu6]
    binary = [ember.add, ember.subtract, ember.multiply, ember.maximum, ember.minimum,
              ember.math.squared_difference]
    n = int(rng.integers(2000, 40000)) if seed % 3 == 0 else int(rng.integers(1, 40))
    args = [rng.uniform(-2, 2, n).astype(dtype) for _ in range(3)] + [np.asarray(rng.uniform(-2, 2), dtype)]
    plan = []
    for _ in range(int(rng.integers(3, 25))):
        if rng.random() < 0.45:
            plan.append(("u", int(rng.integers(len(unary))), int(rng.integers(1 << 30))))
        else:
            plan.append(("b", int(rng.integers(len(binary))), int(rng.integers(1 << 30)), int(rng.integers(1 << 30))))

    def program(a, b, c, s):
        values = [a, b, c, s]
        for step in plan:
            if step[0] == "u":
                values.append(unary[step[1]](values[step[2] % len(values)]))
            else:
                values.append(binary[step[1]](values[step[2] % len(values)], values[step[3] % len(values)]))
        # Return the last value and one from the middle (a second output).
        return values[-1], values[len(values) // 2] * 1.0

    fused_ops, fused = traced(program, *args)
    plain_ops, plain = unfused(program, *args)
    assert len(fused_ops) <= len(plain_ops)
    for got, want in zip(fused, plain):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == "float32" else 1e-13, atol=1e-30)


def test_gradients_through_a_fused_function():
    x = ember.constant(RNG.standard_normal(20))

    @ember.function
    def f(x):
        return ember.reduce_sum(ember.tanh(x * 2.0 + 1.0) * ember.exp(-x))

    with ember.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    g = tape.gradient(y, x).numpy()
    xv = x.numpy()
    t = np.tanh(2 * xv + 1)
    expected = 2 * (1 - t * t) * np.exp(-xv) - t * np.exp(-xv)
    np.testing.assert_allclose(g, expected, rtol=1e-10)


def test_a_failing_fused_node_names_its_op_and_location():
    program = "add(a0, a1); exp(v0)"
    with pytest.raises(ValueError, match="^fused_elementwise: args\\[1\\] has shape \\[2, 1\\]"):
        ember.raw_ops.fused_elementwise([np.ones((2, 3), np.float32), np.ones((2, 1), np.float32)], program, [1])
    # The runtime stays usable.
    assert ember.raw_ops.fused_elementwise([np.ones(2, np.float32)], "exp(a0)", [0])[0].numpy()[0] == np.float32(np.e)


def test_optimizer_options():
    opts = ember.config.optimizer.get_experimental_options()
    assert opts == {"arithmetic_optimization": True, "constant_folding": True,
                    "common_subexpression_elimination": True, "remapping": True}
    with optimizer_options(remapping=False, constant_folding=False):
        assert ember.config.optimizer.get_experimental_options()["remapping"] is False
    assert ember.config.optimizer.get_experimental_options() == opts
    with pytest.raises(ValueError, match="no optimizer option 'fusion'"):
        ember.config.optimizer.set_experimental_options({"fusion": False})
    ember.config.optimizer.set_experimental_options({"layout_optimizer": False})  # grappler's: accepted when off
    with pytest.raises(ValueError, match="layout_optimizer"):
        ember.config.optimizer.set_experimental_options({"layout_optimizer": True})
    with optimizer_options(disable_meta_optimizer=True):
        assert not any(ember.config.optimizer.get_experimental_options().values())


# --- Unfused nodes take over buffers at their inputs' last use ------------------
def _allocations(fn, *args):
    before = ember.config.memory_stats("cpu:0")["num_allocs"]
    out = fn(*args)
    outs = out if isinstance(out, (list, tuple)) else [out]
    arrays = [o.numpy() for o in outs]
    return ember.config.memory_stats("cpu:0")["num_allocs"] - before, arrays


def test_unfused_chain_reuses_one_buffer():
    """Note [Last uses in graphs]: after the first node (whose input is the caller's tensor), each
    node of a chain writes into its input's buffer, so a call allocates once."""
    x = ember.constant(RNG.standard_normal(50_000).astype(np.float32))

    def chain(t):
        for _ in range(40):
            t = t * 1.5
        return t

    with optimizer_options(remapping=False):
        f = ember.function(chain)
        f(x).numpy()  # trace
        allocations, (out,) = _allocations(f, x)
    assert allocations == 1
    np.testing.assert_allclose(out, x.numpy() * 1.5 ** 40, rtol=1e-5)


def test_buffers_others_hold_are_never_written():
    """The caller's argument, a captured constant, a value used twice and a graph output that a later
    node also reads keep their contents, call after call."""
    x_np = RNG.standard_normal(1000).astype(np.float32)
    x = ember.constant(x_np)
    captured = ember.constant(np.full(1000, 2.0, np.float32))

    def fn(t):
        a = t + 1.0          # t is the caller's
        b = a * a            # a used twice by one node
        c = b + captured     # captured belongs to the function
        d = c * 3.0          # c is also an output
        return c, d, ember.nn.relu(d) - t

    expected_c = (x_np + 1) ** 2 + 2
    with optimizer_options(remapping=False):
        f = ember.function(fn)
        for _ in range(3):
            c, d, e = (v.numpy() for v in f(x))
            np.testing.assert_allclose(c, expected_c, rtol=1e-6)
            np.testing.assert_allclose(d, expected_c * 3, rtol=1e-6)
            np.testing.assert_allclose(e, np.maximum(expected_c * 3, 0) - x_np, rtol=1e-6)
    np.testing.assert_array_equal(x.numpy(), x_np)
    np.testing.assert_array_equal(captured.numpy(), 2.0)


# Note [Where matmul epilogues are fused]: on a device with memory of its
# own (here the simulated accelerator) a dense layer is one fused_matmul
# node; the CPU keeps the matmul and fuses what follows element-wise.
_EPILOGUE_SCRIPT = """
import numpy as np, ember
rng = np.random.default_rng(3)
x = rng.standard_normal((8, 16)).astype(np.float32)
w = rng.standard_normal((16, 12)).astype(np.float32)
b = rng.standard_normal(12).astype(np.float32)
gelu = lambda y: 0.5 * y * (1 + np.tanh(0.7978845608028654 * (y + 0.044715 * y ** 3)))
cases = {
    "relu_bias_add": (lambda x, w, b: ember.nn.relu(ember.nn.bias_add(ember.matmul(x, w), b)),
                      np.maximum(x @ w + b, 0)),
    "plus_vector": (lambda x, w, b: b + ember.matmul(x, w), x @ w + b),
    "gelu_tanh": (lambda x, w, b: ember.nn.gelu(ember.matmul(x, w) + b, approximate=True), gelu(x @ w + b)),
    "gelu_exact": (lambda x, w, b: ember.nn.gelu(ember.matmul(x, w) + b), None),
    "product_used_twice": (lambda x, w, b: (ember.matmul(x, w) + b) * ember.matmul(x, w), (x @ w + b) * (x @ w)),
    "transposed": (lambda x, w, b: ember.nn.relu(ember.matmul(x, ember.transpose(w), transpose_b=True) + b),
                   np.maximum(x @ w + b, 0)),
    "batched_rows": (lambda x, w, b: ember.nn.relu(ember.nn.bias_add(ember.matmul(ember.reshape(x, [2, 4, 16]), w), b)),
                     np.maximum(x.reshape(2, 4, 16) @ w + b, 0)),
}
for device in ("sim:0", "cpu:0"):
    with ember.device(device):
        args = [ember.identity(ember.constant(a)) for a in (x, w, b)]
        for name, (fn, want) in cases.items():
            f = ember.function(fn)
            got = f(*args).numpy()
            if want is not None:
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=name)
            print(device, name, " ".join(sorted(f.get_concrete_function(*args).graph.op_names())))
"""


def test_dense_layers_fuse_into_one_matmul_on_a_stream_device():
    env = dict(os.environ, EMBER_SIMULATED_DEVICES="1")
    env.pop("EMBER_TEST_DEVICE", None)
    result = subprocess.run([sys.executable, "-c", _EPILOGUE_SCRIPT], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    ops = {" ".join(line.split()[:2]): line.split()[2:] for line in result.stdout.splitlines()}
    assert ops["sim:0 relu_bias_add"] == ["fused_matmul"]
    assert ops["sim:0 plus_vector"] == ["fused_matmul"]
    assert ops["sim:0 gelu_tanh"] == ["fused_matmul"]
    assert ops["sim:0 gelu_exact"] == ["fused_matmul", "gelu"]  # cuBLASLt's gelu is the tanh form
    assert "fused_matmul" not in ops["sim:0 product_used_twice"]
    assert "fused_matmul" in ops["sim:0 transposed"]
    assert ops["sim:0 batched_rows"] == ["fused_matmul", "reshape"]
    assert "matmul" in ops["cpu:0 relu_bias_add"]
    assert all("fused_matmul" not in v for k, v in ops.items() if k.startswith("cpu:0"))

"""Gradient checks over the op database: every differentiable op's tape
gradient against central finite differences, on each of its samples.

The scalar checked is L = sum_k sum(output_k * w_k) with fixed random
weights w_k, so every output element and every output contributes. At a
kink (relu at 0, a max with ties) the one-sided differences disagree and
that element is skipped: the gradient there is a convention.
"""

import numpy as np
import pytest

import ember
from ember.autodiff import _registry as registry
from op_db import OP_DB, samples_for

MAX_ELEMENTS = 400  # finite differences cost two calls per input element

# (step, rtol, atol) by the least precise float dtype among inputs and outputs.
FD = {"float64": (1e-6, 1e-5, 1e-7), "float32": (1e-2, 3e-2, 3e-3)}
PRECISION_ORDER = ["float64", "float32", "float16", "bfloat16"]

# Known limits, element by element: the gradient function follows
# TensorFlow's formula, which is not defined there.
NOT_DEFINED_AT = {
    # d cumprod / dx divides by x (TensorFlow's formula): zeros give NaN.
    "cumprod": lambda x: x == 0,
    # d xlogy / dx is 0 where x is 0 (TensorFlow's convention), not log(y).
    "xlogy": lambda x: x == 0,
}


def _flat(value):
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    return [value]


def _float_positions(sample, dtype):
    """Indices of the sample's array arguments of the tested float dtype."""
    return [i for i, a in enumerate(sample.args)
            if isinstance(a, np.ndarray) and a.dtype == np.dtype(dtype)]


def _call(info, args, kwargs):
    def conv(v):
        if isinstance(v, np.ndarray):
            return ember.constant(v)
        if isinstance(v, (list, tuple)) and any(isinstance(x, np.ndarray) for x in v):
            return [conv(x) for x in v]
        return v
    return info.op(*[conv(a) for a in args], **kwargs)


def _loss_np(info, sample, args, weights):
    outs = _flat(_call(info, args, sample.kwargs))
    total = 0.0
    for out, w in zip(outs, weights):
        if w is not None:
            total += float(np.sum(out.numpy().astype(np.float64) * w))
    return total


def _cases():
    for name, info in sorted(OP_DB.items()):
        if registry.status(name) != "function":
            continue
        for dtype in ("float64", "float32"):
            if dtype not in info.dtypes:
                continue
            for i, sample in enumerate(samples_for(info, dtype)):
                positions = _float_positions(sample, dtype)
                size = sum(sample.args[p].size for p in positions)
                if not positions or size == 0 or size > MAX_ELEMENTS:
                    continue
                if not all(np.isfinite(sample.args[p]).all() for p in positions):
                    continue  # NaN and inf samples test the forward values only
                yield pytest.param(name, dtype, i, id=f"{name}-{dtype}-{sample.name}")


CASES = list(_cases())


@pytest.mark.parametrize("op_name, dtype, index", CASES)
def test_gradient_matches_finite_differences(op_name, dtype, index):
    info = OP_DB[op_name]
    sample = samples_for(info, dtype)[index]
    rng = np.random.default_rng(index)
    positions = _float_positions(sample, dtype)
    args = list(sample.args)

    # Tape gradient.
    tensors = {p: ember.constant(args[p]) for p in positions}
    call_args = [tensors.get(i, a) for i, a in enumerate(args)]
    call_args = [ember.constant(a) if isinstance(a, np.ndarray) else a for a in call_args]
    with ember.GradientTape() as tape:
        for t in tensors.values():
            tape.watch(t)
        outs = _flat(info.op(*call_args, **sample.kwargs))
        weights = [rng.standard_normal(o.shape) if (o.dtype.is_floating) else None for o in outs]
        loss = None
        for o, w in zip(outs, weights):
            if w is None:
                continue
            term = ember.reduce_sum(o * ember.constant(w.astype(np.dtype(dtype))))
            loss = term if loss is None else loss + term
    if loss is None:
        pytest.skip("no floating output")
    least = max([dtype] + [o.dtype.name for o in outs if o.dtype.name in PRECISION_ORDER],
                key=PRECISION_ORDER.index)
    if least in ("float16", "bfloat16"):
        # A step that moves a 16-bit output by more than its rounding
        # moves it too far for a derivative; the wider samples cover it.
        pytest.skip("16-bit outputs are too coarse for finite differences")
    step, rtol, atol = FD[least]
    grads = tape.gradient(loss, [tensors[p] for p in positions])
    if dtype == "float32" and "float64" in info.dtypes:
        # The float64 run checked this sample's gradient against finite
        # differences; float32's must agree with it. (Float32 differences
        # are too coarse to tell a kink from a slope.)
        _check_against_float64(info, sample, positions, weights, grads)
        return

    # Central differences, element by element.
    for p, grad in zip(positions, grads):
        x = args[p]
        got = np.zeros(x.shape) if grad is None else grad.numpy().astype(np.float64)
        assert got.shape == x.shape
        want = np.zeros(x.shape)
        checked = np.ones(x.shape, dtype=bool)
        for idx in np.ndindex(x.shape):
            def at(delta):
                moved = x.copy()
                moved[idx] = moved[idx] + delta
                trial = list(args)
                trial[p] = moved
                return _loss_np(info, sample, trial, weights)
            f_plus, f_minus, f0 = at(step), at(-step), at(0.0)
            right, left = (f_plus - f0) / step, (f0 - f_minus) / step
            want[idx] = (f_plus - f_minus) / (2 * step)
            scale = max(1.0, abs(right), abs(left))
            if not np.isfinite([f_plus, f_minus, f0]).all():
                checked[idx] = False  # outside the domain one step away (pow of a negative base)
            elif abs(right - left) > 10 * rtol * scale + 10 * atol:
                checked[idx] = False  # a kink: the derivative is a convention here
        if op_name in NOT_DEFINED_AT:
            checked &= ~NOT_DEFINED_AT[op_name](x)
        # A jump (sign at 0) looks smooth to one-sided differences, but its
        # difference quotient grows as the step shrinks: skip it.
        tol = rtol * np.abs(want) + 10 * atol
        for idx in np.ndindex(x.shape):
            if not (checked[idx] and abs(got[idx] - want[idx]) > tol[idx]):
                continue
            moved = [x.copy(), x.copy()]
            moved[0][idx] += step / 10
            moved[1][idx] -= step / 10
            trials = [list(args), list(args)]
            trials[0][p], trials[1][p] = moved
            fine = (_loss_np(info, sample, trials[0], weights) - _loss_np(info, sample, trials[1], weights)) / (step / 5)
            if abs(fine - want[idx]) > 10 * rtol * max(1.0, abs(fine)) + 10 * atol:
                checked[idx] = False
        if not checked.any():
            continue
        np.testing.assert_allclose(got[checked], want[checked], rtol=rtol,
                                   atol=atol * max(1.0, float(np.abs(want).max(initial=0.0))),
                                   err_msg=f"{op_name} input {p}")


def _check_against_float64(info, sample, positions, weights, grads):
    args = [a.astype(np.float64) if i in positions else a for i, a in enumerate(sample.args)]
    wide = {p: ember.constant(args[p]) for p in positions}
    call_args = [wide.get(i, ember.constant(a) if isinstance(a, np.ndarray) else a) for i, a in enumerate(args)]
    with ember.GradientTape() as tape:
        tape.watch(list(wide.values()))
        outs = _flat(info.op(*call_args, **sample.kwargs))
        loss = ember.add_n([ember.reduce_sum(o * ember.constant(w.astype(o.dtype.as_numpy_dtype)))
                            for o, w in zip(outs, weights) if w is not None])
    for p, got, want in zip(positions, grads, tape.gradient(loss, [wide[p] for p in positions])):
        assert (got is None) == (want is None), f"{info.name} input {p}"
        if got is None:
            continue
        assert got.dtype.name == "float32", f"{info.name} input {p}: gradient dtype {got.dtype.name}"
        want = want.numpy()
        scale = max(1.0, float(np.abs(want).max(initial=0.0)))
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-3, atol=1e-4 * scale, err_msg=f"{info.name} input {p}")


def _check_catches_doubled_multiply_gradient(dtype, wrong_for):
    """Doubles multiply's gradients where `wrong_for(v)`; the check must fail."""
    from ember._grads import elementwise
    original = elementwise.multiply
    try:
        registry._cache["multiply"] = lambda op, g: [2.0 * v if v is not None and wrong_for(v) else v
                                                     for v in original(op, g)]
        info = OP_DB["multiply"]
        index = next(i for i, s in enumerate(samples_for(info, dtype)) if _float_positions(s, dtype))
        with pytest.raises(AssertionError):
            test_gradient_matches_finite_differences("multiply", dtype, index)
    finally:
        registry._cache.pop("multiply", None)


def test_the_check_can_fail():
    """A wrong gradient function is caught: multiply's gradient doubled."""
    _check_catches_doubled_multiply_gradient("float64", lambda v: True)


def test_the_float32_check_can_fail():
    """A gradient wrong only in float32 is caught by the float64 comparison."""
    _check_catches_doubled_multiply_gradient("float32", lambda v: v.dtype.name == "float32")


def test_gradient_coverage_lists_every_op():
    """Every op has a gradient status; the list shows what is still missing."""
    from ember import _C
    statuses = {name: registry.status(name) for name in _C._op_names()}
    assert set(statuses.values()) <= {"function", "none", "undeclared"}
    with_grad = [n for n, s in statuses.items() if s == "function"]
    # The ops that run graphs are differentiated where they are built (a
    # recorded step per call: Note [Function gradients], Note [cond
    # gradients], Note [while_loop gradients]); every other op declares.
    undeclared = sorted(n for n, s in statuses.items() if s == "undeclared")
    assert undeclared == ["call_function", "cond", "while_loop"]
    # Every declared function resolves (codegen checked it exists at build time).
    for name in with_grad:
        assert callable(registry.gradient_function(name))


# Second order: the gradient functions are differentiable themselves. For
# the element-wise and matmul families, d/dx <grad f(x), v> from nested tapes
# against central differences of the first gradient.
SECOND_ORDER_UNARY = ["negative", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "square", "reciprocal", "rsqrt",
                      "expm1", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
                      "atanh", "erf", "erfc", "softplus", "relu", "elu", "selu", "gelu", "silu"]
SECOND_ORDER_BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "pow", "squared_difference",
                       "atan2", "matmul"]


def _domain(name, rng, shape):
    if name in ("log", "sqrt", "rsqrt", "reciprocal", "log1p", "pow"):
        return rng.uniform(0.5, 2.0, shape)
    if name in ("asin", "acos", "atanh"):
        return rng.uniform(-0.8, 0.8, shape)
    if name == "tan":
        return rng.uniform(-1.0, 1.0, shape)
    return rng.uniform(-2.0, 2.0, shape) + np.where(rng.random(shape) > 0.5, 0.1, -0.1)  # away from kinks at 0


def _first_gradient(fn, xs, v):
    tensors = [ember.constant(x) for x in xs]
    with ember.GradientTape() as tape:
        tape.watch(tensors)
        y = ember.reduce_sum(fn(*tensors) * ember.constant(v))
    return [g.numpy() for g in tape.gradient(y, tensors)]


@pytest.mark.parametrize("op_name", SECOND_ORDER_UNARY + SECOND_ORDER_BINARY)
def test_second_order_matches_finite_differences(op_name):
    rng = np.random.default_rng(7)
    shapes = [(2, 3), (3, 2)] if op_name == "matmul" else [(2, 3)] * (2 if op_name in SECOND_ORDER_BINARY else 1)
    xs = [_domain(op_name, rng, s) for s in shapes]
    _check_second_order(op_name, OP_DB[op_name].op, xs, rng)


# Convolution and pooling: their gradients are ops (conv2d_transpose,
# conv2d_backprop_filter, max_pool2d_grad, avg_pool2d_grad) whose own
# gradients this checks.
SECOND_ORDER_NN = {
    "conv2d": (lambda x, f: ember.nn.conv2d(x, f, 1, "SAME"), [(1, 4, 4, 2), (2, 2, 2, 3)]),
    "conv2d_strided": (lambda x, f: ember.nn.conv2d(x, f, 2, "VALID"), [(2, 5, 5, 2), (3, 3, 2, 2)]),
    "conv2d_transpose": (lambda x, f: ember.nn.conv2d_transpose(x, f, [1, 5, 5, 2], 2, "VALID"),
                         [(1, 2, 2, 3), (3, 3, 2, 3)]),
    "max_pool2d": (lambda x: ember.nn.max_pool2d(x, 2, 2, "VALID") ** 2, [(1, 4, 4, 2)]),
    "max_pool2d_overlapping": (lambda x: ember.nn.max_pool2d(x, 3, 1, "SAME") ** 2, [(1, 3, 3, 1)]),
    "avg_pool2d": (lambda x: ember.nn.avg_pool2d(x, 2, 1, "SAME") ** 2, [(1, 3, 3, 2)]),
}


@pytest.mark.parametrize("case", sorted(SECOND_ORDER_NN))
def test_second_order_of_convolution_and_pooling(case):
    rng = np.random.default_rng(11)
    fn, shapes = SECOND_ORDER_NN[case]
    # Distinct values: no ties inside a pooling window, so max is smooth here.
    xs = [rng.permutation(np.prod(s)).reshape(s) / np.prod(s) + rng.uniform(0, 1e-3, s) for s in shapes]
    _check_second_order(case, fn, xs, rng)


def _check_second_order(what, fn, xs, rng):
    out_shape = fn(*[ember.constant(x) for x in xs]).shape
    v = rng.standard_normal(out_shape)
    u = [rng.standard_normal(x.shape) for x in xs]  # the direction of the second derivative
    tensors = [ember.constant(x) for x in xs]
    with ember.GradientTape() as outer:
        outer.watch(tensors)
        with ember.GradientTape() as inner:
            inner.watch(tensors)
            y = ember.reduce_sum(fn(*tensors) * ember.constant(v))
        grads = inner.gradient(y, tensors)
        s = ember.add_n([ember.reduce_sum(g * ember.constant(w)) for g, w in zip(grads, u)])
    # Linear ops have no second derivative: their first gradient does not depend on x.
    got = [g.numpy() for g in outer.gradient(s, tensors, unconnected_gradients="zero")]
    step = 1e-5
    for i, x in enumerate(xs):
        want = np.zeros(x.shape)
        for idx in np.ndindex(x.shape):
            plus = [a.copy() for a in xs]
            minus = [a.copy() for a in xs]
            plus[i][idx] += step
            minus[i][idx] -= step
            gp, gm = _first_gradient(fn, plus, v), _first_gradient(fn, minus, v)
            want[idx] = sum(np.sum((a - b) * w) for a, b, w in zip(gp, gm, u)) / (2 * step)
        np.testing.assert_allclose(got[i], want, rtol=1e-5, atol=1e-6, err_msg=f"{what} input {i}")


# --- Gradients nobody asked for ----------------------------------------------
@pytest.mark.parametrize("watch_input", [False, True])
def test_conv2d_input_gradient_only_when_asked(monkeypatch, watch_input):
    """With the input as plain data, conv2d's backward pass skips its input gradient (OpRecord's
    skip_input_indices); the filter gradient is the same either way."""
    from ember._generated import ops as generated
    transposes = []
    real = generated.conv2d_transpose
    monkeypatch.setattr(generated, "conv2d_transpose", lambda *a, **k: transposes.append(1) or real(*a, **k))
    rng = np.random.default_rng(3)
    x = ember.constant(rng.standard_normal((2, 5, 5, 3)))
    f = ember.Variable(rng.standard_normal((3, 3, 3, 4)))
    with ember.GradientTape() as tape:
        if watch_input:
            tape.watch(x)
        y = ember.reduce_sum(ember.nn.relu(ember.nn.conv2d(x, f, 1, "VALID")) ** 2)
    grads = tape.gradient(y, [x, f] if watch_input else [f])
    assert len(transposes) == (1 if watch_input else 0)
    # The filter gradient against NumPy: dy/df[i,j,c,o] = sum over pixels of x * 2 relu(z) where z > 0.
    xs = x.numpy()
    z = np.zeros((2, 3, 3, 4))
    for i in range(3):
        for j in range(3):
            z += np.einsum("bhwc,co->bhwo", xs[:, i:i + 3, j:j + 3, :], f.numpy()[i, j])
    dz = 2 * np.maximum(z, 0)
    expected = np.stack([np.stack([np.einsum("bhwc,bhwo->co", xs[:, i:i + 3, j:j + 3, :], dz) for j in range(3)])
                         for i in range(3)])
    np.testing.assert_allclose(grads[-1].numpy(), expected, rtol=1e-10)


def test_matmul_gradient_skips_the_unasked_side(monkeypatch):
    from ember._generated import ops as generated
    products = []
    real = generated.matmul
    monkeypatch.setattr(generated, "matmul", lambda *a, **k: products.append(1) or real(*a, **k))
    a = ember.constant(np.arange(6.0).reshape(2, 3))
    b = ember.Variable(np.ones((3, 2)))
    with ember.GradientTape() as tape:
        y = ember.reduce_sum(ember.matmul(a, b))
    products.clear()  # the forward product, if it went through the module
    g = tape.gradient(y, b)
    assert len(products) == 1
    np.testing.assert_allclose(g.numpy(), np.repeat(np.arange(6.0).reshape(2, 3).sum(0)[:, None], 2, 1))

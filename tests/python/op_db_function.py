"""op_db entries for the graph ops of op_defs/function.yaml (call_function,
cond, while_loop, fused_elementwise, fused_matmul), traced graphs and fused programs run
through the raw ops per dtype against NumPy, and for the stateful print op;
bad arguments raise at the call."""

import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample, make, unary_samples

DTYPES = ("float32", "float64", "int32", "float16")


def entries(ember):
    concrete = {}

    def function_id(dtype):
        # One concrete function per dtype: (x @ y^T, x + y) for x, y of shape [?, 3].
        if dtype not in concrete:
            f = ember.function(lambda x, y: (ember.matmul(x, y, transpose_b=True), x + y))
            spec = ember.TensorSpec([None, 3], dtype)
            concrete[dtype] = f.get_concrete_function(spec, spec)  # kept alive: the id stays registered
        return concrete[dtype]._graph.function_id

    def op(args, function=None):
        return ember.raw_ops.call_function(args, function_id(args[0].dtype.name) if function is None else function)

    def ref(args, function=None):
        x, y = args
        wide = np.float64 if x.dtype.kind == "f" else x.dtype
        return [(x.astype(wide) @ y.astype(wide).T).astype(x.dtype), x + y]

    def samples(dtype, rng):
        m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
        yield Sample("rows_2", ([m(2, 3), m(2, 3)],))
        yield Sample("rows_5", ([m(5, 3), m(5, 3)],))  # the unknown dim takes another size
        yield Sample("empty", ([m(0, 3), m(0, 3)],))
        yield Sample("large", ([m(LARGE // 100, 3), m(LARGE // 100, 3)],))

    def errors():
        f32 = np.float32
        yield ErrorInput("wrong_arity", ([np.ones((2, 3), f32)],), {}, ValueError,
                         r"^call_function: function expects 2 arguments, got 1")
        yield ErrorInput("wrong_dtype", ([np.ones((2, 3), f32), np.ones((2, 3), np.float64)],), {}, TypeError,
                         r"^call_function: argument 1 must be float32, got dtype float64")
        yield ErrorInput("wrong_shape", ([np.ones((2, 4), f32), np.ones((2, 4), f32)],), {}, ValueError,
                         r"^call_function: argument 0 must have shape \[\?, 3\], got \[2, 4\]")
        yield ErrorInput("unknown_function", ([np.ones((2, 3), f32)] * 2,), {"function": 10**9}, ValueError,
                         r"^call_function: no function with id")

    return [OpInfo("call_function", op, ref, samples, errors, extra_dtypes=DTYPES),
            _cond_entry(ember), _while_entry(ember), print_entry(ember), _transfer_entry(ember),
            _fused_entry(ember), _fused_matmul_entry(ember)]


def _graph(ember, fn, dtype):
    """A concrete function of one [?]-shaped argument: (its function id, its captured tensors)."""
    concrete = ember.function(fn).get_concrete_function(ember.TensorSpec([None], dtype))
    _KEEP.append(concrete)  # keeps the id registered
    return concrete._graph.function_id, [t for kind, t in concrete._args if kind == "capture"]


_KEEP = []
CONTROL_DTYPES = ("float32", "float64", "int32", "bfloat16")


def _cond_entry(ember):
    graphs = {}

    def op(pred, args, num_then_args=None):
        dtype = args[0].dtype.name
        if dtype not in graphs:
            graphs[dtype] = (_graph(ember, lambda x: x * 2, dtype), _graph(ember, lambda x: x - 1, dtype))
        (then_id, then_caps), (else_id, else_caps) = graphs[dtype]
        n = 1 + len(then_caps) if num_then_args is None else num_then_args
        return ember.raw_ops.cond(pred, [args[0]] + then_caps + [args[0]] + else_caps, then_id, else_id, n)

    def ref(pred, args, num_then_args=None):
        x = args[0]
        return [(x * 2 if pred else x - 1).astype(x.dtype)]

    def samples(dtype, rng):
        # pred is a Python bool (a weak scalar): test_ops' donation case needs a float argument 0.
        for pred in (True, False):
            yield Sample(f"vector_{pred}", (pred, [make(rng, (5,), dtype)]))
            yield Sample(f"empty_{pred}", (pred, [make(rng, (0,), dtype)]))
        yield Sample("large", (True, [make(rng, (LARGE,), dtype)]))

    def errors():
        x = [np.ones(3, np.float32)]
        yield ErrorInput("pred_not_scalar", (np.array([True, False]), x), {}, ValueError,
                         r"^cond: pred must be a scalar")
        yield ErrorInput("pred_not_bool", (np.float32(1), x), {}, TypeError, r"^cond: .*pred")
        yield ErrorInput("bad_split", (True, x), {"num_then_args": 7}, ValueError, r"^cond: num_then_args")

    return OpInfo("cond", op, ref, samples, errors, extra_dtypes=CONTROL_DTYPES)


def _while_entry(ember):
    graphs = {}

    def op(args, maximum_iterations=-1):
        dtype = args[0].dtype.name
        if dtype not in graphs:
            graphs[dtype] = (_graph(ember, lambda v: ember.reduce_max(v) < 50, dtype),
                             _graph(ember, lambda v: v * 2 + 1, dtype))
        (cond_id, cond_caps), (body_id, body_caps) = graphs[dtype]
        return ember.raw_ops.while_loop(list(args) + cond_caps + body_caps, cond_id, body_id, len(args),
                                        len(cond_caps), maximum_iterations)

    def ref(args, maximum_iterations=-1):
        v = args[0].astype(np.float64)
        n = 0
        # reduce_max of nothing is the lowest value, which is < 50.
        while (maximum_iterations < 0 or n < maximum_iterations) and (v.max() if v.size else -np.inf) < 50:
            v, n = v * 2 + 1, n + 1
        return [v.astype(args[0].dtype)]

    def samples(dtype, rng):
        small = lambda *shape: rng.integers(0, 4, shape).astype(dtype)  # noqa: E731
        yield Sample("vector", ([small(4)],))
        yield Sample("capped", ([small(3)],), {"maximum_iterations": 2})
        yield Sample("no_iteration", ([np.full(2, 60, dtype)],))
        yield Sample("empty_capped", ([small(0)],), {"maximum_iterations": 3})
        yield Sample("large", ([small(LARGE)],))

    def errors():
        yield ErrorInput("wrong_dtype", ([np.ones(3, np.float32), np.ones(3, np.float32)],), {}, ValueError,
                         r"^while_loop: argument counts")
        yield ErrorInput("rank_mismatch", ([np.ones((2, 2), np.float32)],), {}, ValueError,
                         r"^while_loop: loop variable 0 is float32\[2, 2\]")

    return OpInfo("while_loop", op, ref, samples, errors, extra_dtypes=CONTROL_DTYPES)


def print_entry(ember):
    """print passes its inputs through (what it writes is checked in test_function.py)."""
    def op(values, fmt):
        return ember.raw_ops.print(values, fmt, "stderr", 3)

    def samples(dtype, rng):
        yield Sample("two", ([make(rng, (2, 3), dtype), make(rng, (), dtype)], "a={} b={}\n"))
        yield Sample("empty", ([make(rng, (0, 4), dtype)], "{}\n"))
        yield Sample("large", ([make(rng, (LARGE,), dtype)], "{}\n"))

    def errors():
        x = np.ones(3, np.float32)
        yield ErrorInput("not_a_list", (x, "{}"), {}, TypeError, r"^print: argument 'inputs' expects a list")
        yield ErrorInput("format_not_string", ([x], 3), {}, TypeError, r"^print: .*format")

    every = ("bool", "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
             "complex64")
    return OpInfo("print", op, lambda values, fmt: list(values), samples, errors, extra_dtypes=every)


def _transfer_entry(ember):
    """transfer within one device passes its input through (partitioning is
    tested across devices in test_function.py)."""
    def errors():
        yield ErrorInput("not_a_tensor", ("abc",), {}, TypeError, r"^transfer: argument 'x'")

    return OpInfo("transfer", ember.raw_ops.transfer, lambda x: x, unary_samples(), errors)


def _fused_entry(ember):
    """fused_elementwise runs its program over whole and one-element
    arguments (the fusion pass itself is tested in test_fusion.py)."""
    # v2 = tanh(a0 * a1 + a2) and v4 = leaky_relu(v1) - a0, two outputs; a1 may be one element.
    program = "multiply(a0, a1); add(v0, a2); tanh(v1); leaky_relu[0.25](v1); subtract(v3, a0)"

    def op(args, program=program, outputs=(2, 4)):
        return ember.raw_ops.fused_elementwise(args, program, list(outputs))

    def ref(args, program=program, outputs=(2, 4)):
        a0, a1, a2 = (np.asarray(a, np.float64) for a in args)
        v1 = a0 * a1 + a2
        shape = np.broadcast_shapes(*(np.shape(a) for a in args))
        out = [np.tanh(v1), np.where(v1 > 0, v1, 0.25 * v1) - a0]
        return [np.broadcast_to(o, shape).astype(args[0].dtype) for o in out]

    def samples(dtype, rng):
        m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
        yield Sample("whole", ([m(4, 5), m(4, 5), m(4, 5)],))
        yield Sample("one_element_args", ([m(4, 5), m(), m(1, 1)],))
        yield Sample("scalars", ([m(), m(), m()],))
        yield Sample("empty", ([m(0, 3), m(), m(0, 3)],))
        yield Sample("large", ([m(LARGE), m(LARGE), m()],))

    def errors():
        x = np.ones((2, 3), np.float32)
        yield ErrorInput("unknown_op", ([x],), {"program": "cosh(a0)", "outputs": [0]}, ValueError,
                         r'^fused_elementwise: program "cosh\(a0\)": "cosh" is not a fusible op')
        yield ErrorInput("later_value", ([x],), {"program": "exp(v0)", "outputs": [0]}, ValueError,
                         r"^fused_elementwise: program .*earlier values vK \(K < 0\)")
        yield ErrorInput("missing_arg", ([x],), {"program": "add(a0, a1)", "outputs": [0]}, ValueError,
                         r"^fused_elementwise: program reads a1 but there are 1 args")
        yield ErrorInput("bad_output", ([x],), {"program": "exp(a0)", "outputs": [3]}, ValueError,
                         r"^fused_elementwise: outputs: 3 is not an instruction number")
        yield ErrorInput("broadcast", ([x, np.ones((2, 1), np.float32)],), {"program": "add(a0, a1)",
                         "outputs": [0]}, ValueError,
                         r"^fused_elementwise: args\[1\] has shape \[2, 1\]; each argument must have")
        yield ErrorInput("bad_param", ([x],), {"program": "leaky_relu[x](a0)", "outputs": [0]}, ValueError,
                         r'^fused_elementwise: program .*"x" is not a number')
        yield ErrorInput("int_args", ([np.ones(3, np.int32)],), {"program": "exp(a0)", "outputs": [0]},
                         TypeError, r"^fused_elementwise: ")

    return OpInfo("fused_elementwise", op, ref, samples, errors)


def _fused_matmul_entry(ember):
    """fused_matmul is activation(a @ b + bias) for every transpose and
    activation (which matmuls the optimizer fuses is tested in
    test_fusion.py)."""
    def op(a, b, bias, transpose_a=False, transpose_b=False, activation="none"):
        return ember.raw_ops.fused_matmul(a=a, b=b, bias=bias, transpose_a=transpose_a, transpose_b=transpose_b,
                                          activation=activation)

    def ref(a, b, bias, transpose_a=False, transpose_b=False, activation="none"):
        a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
        y = (a64.T if transpose_a else a64) @ (b64.T if transpose_b else b64) + np.asarray(bias, np.float64)
        if activation == "relu":
            y = np.maximum(y, 0)
        if activation == "gelu_approximate":
            y = 0.5 * y * (1 + np.tanh(0.7978845608028654 * (y + 0.044715 * y ** 3)))
        return y.astype(a.dtype)

    def samples(dtype, rng):
        m = lambda *shape: make(rng, shape, dtype)  # noqa: E731
        for activation in ("none", "relu", "gelu_approximate"):
            yield Sample(f"plain_{activation}", (m(4, 3), m(3, 5), m(5)), {"activation": activation})
        yield Sample("transpose_a", (m(3, 4), m(3, 5), m(5)), {"transpose_a": True, "activation": "relu"})
        yield Sample("transpose_b", (m(4, 3), m(5, 3), m(5)), {"transpose_b": True})
        yield Sample("both", (m(3, 4), m(5, 3), m(5)), {"transpose_a": True, "transpose_b": True,
                                                        "activation": "gelu_approximate"})
        yield Sample("batched_rows", (m(2, 3, 4), m(4, 5), m(5)), {"activation": "gelu_approximate"})
        yield Sample("batched_transpose_b", (m(2, 1, 3, 4), m(5, 4), m(5)), {"transpose_b": True})
        yield Sample("no_rows", (m(0, 3), m(3, 5), m(5)), {"activation": "relu"})
        yield Sample("one_by_one", (m(1, 1), m(1, 1), m(1)), {})
        # The bias can cancel most of a 40-term float32 sum: the sum's own
        # rounding then shows in relative terms, as it would unfused.
        yield Sample("large", (m(64, 40), m(40, 80), m(80)), {"activation": "relu"}, {"float32": (1e-4, 1e-5)})

    def errors():
        f32 = np.float32
        x, w = np.ones((2, 3), f32), np.ones((3, 4), f32)
        yield ErrorInput("batched_b", (x, np.ones((2, 3, 4), f32), np.ones(4, f32)), {}, ValueError,
                         r"^fused_matmul: b must be a matrix and a a matrix .*got \[2, 3\] and \[2, 3, 4\]")
        yield ErrorInput("batched_transposed_a", (np.ones((2, 3, 2), f32), w, np.ones(4, f32)),
                         {"transpose_a": True}, ValueError, r"^fused_matmul: b must be a matrix and a a matrix")
        yield ErrorInput("bias_length", (x, w, np.ones(3, f32)), {}, ValueError,
                         r"^fused_matmul: bias must be a vector of the product's 4 columns, got \[3\]")
        yield ErrorInput("inner_dims", (x, np.ones((4, 4), f32), np.ones(4, f32)), {}, ValueError,
                         r"^fused_matmul: Matrix size-incompatible")
        yield ErrorInput("activation", (x, w, np.ones(4, f32)), {"activation": "tanh"}, ValueError,
                         r'^fused_matmul: activation must be none, relu or gelu_approximate, got "tanh"')
        yield ErrorInput("int_args", (np.ones((2, 3), np.int32), np.ones((3, 4), np.int32), np.ones(4, np.int32)),
                         {}, TypeError, r"^fused_matmul: ")

    return OpInfo("fused_matmul", op, ref, samples, errors)

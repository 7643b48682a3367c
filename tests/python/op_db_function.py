"""op_db entry for call_function (op_defs/function.yaml): a traced function
run through the op, per dtype, against NumPy; bad arguments raise at the call."""

import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample, make

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

    return [OpInfo("call_function", op, ref, samples, errors, extra_dtypes=DTYPES)]

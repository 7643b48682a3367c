"""A sample of ops on gpu:0 for compute-sanitizer (tests/gpu/run.sh): every
GPU kernel family over its dtypes, with flat and broadcast shapes, empty and
scalar tensors, asymmetric padding and batched broadcasts, each result
checked against the CPU's, so memcheck sees every kernel's loads and stores
at the edges and a wrong result fails the step.

    python tests/gpu/sample_ops.py [--device gpu:0]
"""

import argparse
import sys

import numpy as np

import ember

RNG = np.random.default_rng(0)
TOLERANCE = {"float16": 2e-2, "bfloat16": 5e-2, "float32": 1e-4, "float64": 1e-10, "int32": 0, "int64": 0}


def data(shape, dtype):
    a = RNG.standard_normal(shape) * 3
    if dtype.startswith("int"):
        return a.astype(dtype)
    return a.astype(np.float32).astype(dtype) if dtype != "bfloat16" else a.astype(np.float32)


def on(device, fn, *arrays, dtype=None, **kwargs):
    """fn over the arrays placed on `device` (cast there to `dtype`), read back."""
    with ember.device(device):
        args = [ember.identity(ember.constant(a)) for a in arrays]
        if dtype is not None:
            args = [ember.cast(a, dtype) for a in args]
        out = fn(*args, **kwargs)
        if dtype is not None and out.dtype != ember.bool:
            out = ember.cast(out, ember.float32)
        return out.numpy()


class Checker:
    def __init__(self, device):
        self.device = device
        self.count = 0
        self.failures = []

    def check(self, name, fn, *arrays, dtype=None, **kwargs):
        got = on(self.device, fn, *arrays, dtype=dtype, **kwargs)
        want = on("cpu:0", fn, *arrays, dtype=dtype, **kwargs)
        tol = TOLERANCE.get(dtype or str(np.asarray(arrays[0]).dtype), 1e-5)
        if got.shape != want.shape or not np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol,
                                                      atol=tol, equal_nan=True):
            self.failures.append(f"{name} {dtype}: shape {got.shape} vs {want.shape}")
        self.count += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="gpu:0")
    args = parser.parse_args()
    c = Checker(args.device)
    binary_shapes = [((), ()), ((0,), (0,)), ((7,), ()), ((), (5,)), ((1000,), (1000,)), ((3, 1, 5), (1, 4, 5)),
                     ((2, 3, 4, 5), (3, 1, 5)), ((33, 65), (65,))]
    for dtype in ("float32", "float64", "float16", "bfloat16", "int32"):
        for a_shape, b_shape in binary_shapes:
            a, b = data(a_shape, "float32" if dtype in ("float16", "bfloat16") else dtype), \
                data(b_shape, "float32" if dtype in ("float16", "bfloat16") else dtype)
            for name in ("add", "subtract", "multiply", "maximum", "less", "equal"):
                c.check(name, getattr(ember, name), a, b, dtype=dtype if dtype in ("float16", "bfloat16") else None)
            if dtype != "int32":
                for name in ("exp", "tanh", "negative", "abs", "floor", "sigmoid"):
                    c.check(name, getattr(ember, name) if hasattr(ember, name) else getattr(ember.nn, name), a,
                            dtype=dtype if dtype in ("float16", "bfloat16") else None)
    for dtype in ("float32", "float64", "int32"):
        x = data((4, 5, 6), dtype)
        for axis in (None, 0, 1, 2, [0, 2], [1, 2]):
            for name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min"):
                c.check(f"{name} axis={axis}", getattr(ember, name), x, axis=axis)
        c.check("reduce_sum long", ember.reduce_sum, data((3, 5000), dtype), axis=1)
        c.check("transpose", ember.transpose, x, perm=[2, 0, 1])
        c.check("concat axis=1", lambda a, b: ember.concat([a, b, a], axis=1), x, data((4, 2, 6), dtype))
        for mode in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            c.check(f"pad {mode}", ember.pad, x, [[1, 2], [0, 1], [2, 0]], mode=mode)
        c.check("where", lambda a, b: ember.where(a > 0, a, b), x, data((5, 1), dtype))
        c.check("one_hot", lambda i: ember.one_hot(i, 7, axis=1), np.array([[0, 6, -1], [3, 9, 2]], np.int32))
        c.check("zeros_like", ember.zeros_like, x)
        c.check("ones_like", ember.ones_like, x)
        c.check("argmax axis=1", ember.argmax, x, axis=1)
        c.check("argmin axis=0", ember.argmin, x, axis=0)
    for dtype in ("float32", "float16"):
        wide = dtype if dtype != "float16" else None
        x = data((3, 7, 11), "float32")
        c.check("softmax", ember.nn.softmax, x, dtype=dtype if wide is None else None)
        c.check("log_softmax axis=1", ember.nn.log_softmax, x, axis=1, dtype=dtype if wide is None else None)
        for ta, tb in ((False, False), (True, False), (False, True)):
            a = data((2, 5, 4) if ta else (2, 4, 5), "float32")
            b = data((1, 6, 5) if tb else (1, 5, 6), "float32")
            c.check(f"matmul ta={ta} tb={tb}", ember.matmul, a, b, transpose_a=ta, transpose_b=tb,
                    dtype=dtype if wide is None else None)
        c.check("matmul k=0", ember.matmul, data((3, 0), "float32"), data((0, 4), "float32"))
        for activation in ("none", "relu", "gelu_approximate"):
            for ta, tb in ((False, False), (True, True)):
                c.check(f"fused_matmul {activation} ta={ta} tb={tb}",
                        lambda a, b, bias, ta=ta, tb=tb, act=activation: ember.raw_ops.fused_matmul(
                            a=a, b=b, bias=bias, transpose_a=ta, transpose_b=tb, activation=act),
                        data((7, 5) if ta else (5, 7), "float32"), data((9, 7) if tb else (7, 9), "float32"),
                        data((9,), "float32"), dtype=dtype if wide is None else None)
        img = data((2, 9, 10, 3), "float32")
        for stride, padding in ((1, "SAME"), (2, "SAME"), (2, "VALID"), (1, [[0, 0], [1, 2], [0, 1], [0, 0]])):
            c.check(f"conv2d s={stride} {padding}", ember.nn.conv2d, img, data((3, 3, 3, 4), "float32"),
                    strides=stride, padding=padding, dtype=dtype if wide is None else None)
            if not isinstance(padding, list):
                c.check(f"max_pool2d s={stride} {padding}", ember.nn.max_pool2d, img, ksize=3, strides=stride,
                        padding=padding)
                c.check(f"avg_pool2d s={stride} {padding}", ember.nn.avg_pool2d, img, ksize=3, strides=stride,
                        padding=padding)
        c.check("bias_add", ember.nn.bias_add, img, data((3,), "float32"))
        for name, kwargs in (("relu6", {}), ("leaky_relu", {"alpha": 0.3}), ("elu", {}), ("selu", {}),
                             ("gelu", {}), ("gelu", {"approximate": True}), ("silu", {})):
            c.check(f"{name} {kwargs}", getattr(ember.nn, name), img, dtype=dtype if wide is None else None, **kwargs)
        c.check("layer_normalization", ember.nn.layer_normalization, data((4, 6, 8), "float32"),
                data((8,), "float32"), data((8,), "float32"), dtype=dtype if wide is None else None)
    # Sorting: ties (rounded data), NaN, every axis, both directions, one
    # long row (CUB's device-wide sort) and many short ones (segmented).
    tied = np.round(data((4, 6, 9), "float32"))
    tied[1, 2, 3] = tied[2, 0, 0] = np.nan
    for dtype in ("float32", "float64", "float16", "int32", "int8"):
        half = dtype == "float16"
        x = tied if half else np.nan_to_num(tied).astype(dtype) if dtype.startswith("int") else tied.astype(dtype)
        for axis in (0, 1, -1):
            for direction in ("ASCENDING", "DESCENDING"):
                c.check(f"sort axis={axis} {direction}", ember.sort, x, axis=axis, direction=direction,
                        dtype=dtype if half else None)
                c.check(f"argsort axis={axis} {direction}", ember.argsort, x, axis=axis, direction=direction,
                        dtype=dtype if half else None)
        for k in (0, 1, 5, 9):
            c.check(f"top_k values k={k}", lambda t, k=k: ember.math.top_k(t, k=k).values, x,
                    dtype=dtype if half else None)
            c.check(f"top_k indices k={k}", lambda t, k=k: ember.math.top_k(t, k=k).indices, x,
                    dtype=dtype if half else None)
    c.check("argsort one long row", ember.argsort, np.round(data((100000,), "float32") * 10))
    c.check("top_k long rows", lambda t: ember.math.top_k(t, k=7).indices, np.round(data((3, 20000), "float32")))
    c.check("sort empty", ember.sort, data((3, 0), "float32"))
    # scaled_dot_product_attention (Note [GPU attention]): batched and
    # broadcast operands, bool and float masks broadcast, a scale, a row
    # with every key masked out (NaN on both devices), empty sizes.
    sdpa = ember.nn.scaled_dot_product_attention
    for dtype in ("float32", "float16", "bfloat16", "float64"):
        q, k, v = data((2, 3, 5, 8), "float32"), data((2, 3, 7, 8), "float32"), data((2, 3, 7, 4), "float32")
        c.check("attention", lambda a, b, d: sdpa(a, b, d), q, k, v, dtype=dtype)
        c.check("attention broadcast k, v", lambda a, b, d: sdpa(a, b, d), q, k[0], v[0], dtype=dtype)
        c.check("attention bool mask", lambda a, b, d, m: sdpa(a, b, d, mask=m > 0), q, k, v, data((5, 7), "float32"),
                dtype=dtype)
        c.check("attention float mask", lambda a, b, d, m: sdpa(a, b, d, mask=m, scale=0.3), q, k, v,
                data((2, 1, 5, 7), "float32"), dtype=dtype)
        causal = np.tril(np.ones((5, 7), np.float32))
        causal[0] = 0  # no key kept: NaN
        c.check("attention causal", lambda a, b, d, m: sdpa(a, b, d, mask=m > 0), q, k, v, causal, dtype=dtype)
    # The small integer dtypes (stop 43): binary ops, comparisons,
    # reductions, arg-reductions and bias_add with broadcasting.
    for dtype in ("int8", "int16", "uint8"):
        a, b = np.round(data((4, 6), "float32") * 5), np.round(data((6,), "float32") * 5)
        for name, fn in (("add", ember.add), ("subtract", ember.subtract), ("multiply", ember.multiply),
                         ("maximum", ember.maximum), ("minimum", ember.minimum), ("equal", ember.equal),
                         ("less", ember.less), ("greater_equal", ember.greater_equal)):
            c.check(f"{name} broadcast", fn, a, b, dtype=dtype)
        c.check("bias_add", ember.nn.bias_add, a, b, dtype=dtype)
        for name, fn in (("reduce_sum", ember.reduce_sum), ("reduce_max", ember.reduce_max),
                         ("reduce_min", ember.reduce_min)):
            c.check(f"{name} axis 0", lambda t, f=fn: f(t, axis=0), a, dtype=dtype)
        c.check("argmax", lambda t: ember.cast(ember.argmax(t, axis=1), ember.int32), a, dtype=dtype)
    for dtype in ("float32", "float64", "float16"):
        x, y = np.round(data((5, 6), "float32") * 4) / 2, np.round(data((6,), "float32") * 4) / 2
        c.check("floordiv broadcast", ember.math.floordiv, x, y, dtype=dtype)
        c.check("floormod broadcast", ember.math.floormod, x, y, dtype=dtype)
    # Two-pass reductions (Note [GPU two-pass reductions]): over one axis,
    # several, all, an empty axis, and rows holding inf, -inf and NaN.
    edges = data((4, 9), "float32")
    edges[0] = -np.inf
    edges[1, 3] = np.inf
    edges[2, 5] = np.nan
    for dtype in ("float32", "float64", "float16", "bfloat16"):
        x = data((3, 4, 50), "float32")
        for name, fn in (("reduce_logsumexp", ember.math.reduce_logsumexp),
                         ("reduce_variance", ember.math.reduce_variance), ("reduce_std", ember.math.reduce_std)):
            c.check(f"{name} last axis", lambda t, f=fn: f(t, axis=-1), x, dtype=dtype)
            c.check(f"{name} axes 0, 2", lambda t, f=fn: f(t, axis=[0, 2], keepdims=True), x, dtype=dtype)
            c.check(f"{name} all", lambda t, f=fn: f(t), x, dtype=dtype)
            c.check(f"{name} empty axis", lambda t, f=fn: f(t, axis=1), data((3, 0), "float32"), dtype=dtype)
            c.check(f"{name} edge values", lambda t, f=fn: f(t, axis=1), edges, dtype=dtype)
    c.check("equal bool", lambda x, y: ember.equal(x > 0, y > 0), data((3, 4), "float32"), data((4,), "float32"))
    # einsum (Note [GPU einsum]): Keras MultiHeadAttention's equations, a
    # diagonal, a transpose, a full sum, broadcast '...' dims, three
    # operands, an empty contraction.
    for dtype in ("float32", "float16", "float64"):
        x, w = data((2, 5, 8), "float32"), data((8, 3, 4), "float32")
        c.check("einsum projection", lambda a, b: ember.einsum("btd,dhk->bthk", a, b), x, w, dtype=dtype)
        q, k = data((2, 5, 3, 4), "float32"), data((2, 6, 3, 4), "float32")
        c.check("einsum scores", lambda a, b: ember.einsum("bthk,bshk->bhts", a, b), q, k, dtype=dtype)
        c.check("einsum context", lambda a, b: ember.einsum("bhts,bshk->bthk", a, b), data((2, 3, 5, 6), "float32"),
                data((2, 6, 3, 4), "float32"), dtype=dtype)
    c.check("einsum diagonal", lambda a: ember.einsum("ii->i", a), data((5, 5), "float32"))
    c.check("einsum transpose", lambda a: ember.einsum("ijk->kji", a), data((2, 3, 4), "float32"))
    c.check("einsum sum", lambda a: ember.einsum("ij->", a), data((30, 40), "float32"))
    c.check("einsum broadcast", lambda a, b: ember.einsum("...ij,...jk->...ik", a, b), data((2, 1, 3, 4), "float32"),
            data((5, 4, 2), "float32"))
    c.check("einsum chain", lambda a, b, d: ember.einsum("ij,jk,kl->il", a, b, d), data((2, 3), "float32"),
            data((3, 4), "float32"), data((4, 5), "float32"))
    c.check("einsum empty contraction", lambda a, b: ember.einsum("ij,jk->ik", a, b), data((3, 0), "float32"),
            data((0, 5), "float32"))
    c.check("attention no keys", lambda a, b, d: sdpa(a, b, d), data((2, 5, 8), "float32"), data((2, 0, 8), "float32"),
            data((2, 0, 4), "float32"))
    c.check("attention zero dim", lambda a, b, d: sdpa(a, b, d), data((2, 5, 0), "float32"), data((2, 7, 0), "float32"),
            data((2, 7, 4), "float32"))
    values = np.array([0.0, -1.5, 2.7, 1e9, -1e9, 3e38, np.nan])
    for src in (ember.float32, ember.float64, ember.int32, ember.bool, ember.float16):
        for dst in (ember.float32, ember.int32, ember.int8, ember.bool, ember.float16, ember.int64):
            c.check(f"cast {src.name}->{dst.name}", lambda t, s=src, d=dst: ember.cast(ember.cast(t, s), d), values)
    print(f"{c.count} op calls on {args.device} compared with cpu:0; {len(c.failures)} differ")
    for f in c.failures:
        print("  " + f)
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())

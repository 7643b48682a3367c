"""Element-wise cases on 16M float32 elements: memory bandwidth (GB/s) next to
a plain copy, and a small fused expression as a compiled function."""
import functools

import numpy as np

from benchmarks.suite.case import Case, Spec, impl_for
from benchmarks.suite.frameworks import numpy_ops
from benchmarks.suite.timing import repeat

GROUP = "elementwise"
N = 16 * 1024 * 1024
SCALE, SHIFT = 0.75, 0.1


@functools.lru_cache(maxsize=2)
def _inputs(n):
    rng = np.random.default_rng(0)
    # [-3, 3]: exp stays finite, tanh and sigmoid are not all saturated.
    return (rng.uniform(-3, 3, n).astype(np.float32), rng.uniform(-3, 3, n).astype(np.float32))


def _big(ctx, **kw):
    return dict(rounds=ctx.pick(15, 2), inner=1, warmup=2, gap_s=ctx.pick(0.005, 0.0), **kw)


def _n(ctx):
    return ctx.pick(N, 1024 * 1024)


def _memcpy_case(ctx):
    n = _n(ctx)
    src = _inputs(n)[0]
    np_fw = ctx.peers.get("numpy")

    def build():
        dst = np.empty_like(src)  # preallocated: no page faults inside the timing
        return repeat(lambda: np.copyto(dst, src) or dst)
    # NumPy is not loaded in another framework's process (isolated mode).
    impls = [impl_for(np_fw, build, "numpy copyto")] if np_fw else []
    return Case(impls=impls, work=("GB/s", 8 * n), reference=lambda: src,
                rtol=0, atol_rel=0, description=f"np.copyto of {n} float32 elements into a preallocated array: "
                "the machine's copy bandwidth, the yardstick for the element-wise ops (bytes read + written).",
                **_big(ctx))


def _op_case(ctx, op, arity):
    n = _n(ctx)
    inputs = _inputs(n)[:arity]
    impls = []
    for fw in ctx.peers.available():
        def build(fw=fw):
            args = [fw.tensor(a) for a in inputs]
            return repeat(getattr(fw, op), *args)
        impls.append(impl_for(fw, build))

    def reference():
        return getattr(numpy_ops, op)(*(a.astype(np.float64) for a in inputs))
    return Case(impls=impls, work=("GB/s", 4 * n * (arity + 1)), reference=reference, rtol=2e-5, atol_rel=1e-6,
                description=f"{op} on {n} float32 elements (each framework's output is a new array); "
                            "GB/s counts the bytes read and written once.", **_big(ctx))


def _fused_case(ctx):
    n = _n(ctx)
    x_np = _inputs(n)[0]
    impls = []
    for fw in ctx.peers.available():
        tanh = fw.tanh

        def fn(x, a, b, tanh=tanh):
            return tanh(x * a + b)

        def build(fw=fw, fn=fn, compile_fn=None):
            f = compile_fn(fn) if compile_fn else fn
            args = (fw.tensor(x_np), fw.tensor(np.float32(SCALE)), fw.tensor(np.float32(SHIFT)))
            return repeat(f, *args)
        impls.append(impl_for(fw, build, f"{fw.NAME} eager" if fw.NAME != "numpy" else None))
        for label, compile_fn in fw.compilers().items():
            impls.append(impl_for(fw, functools.partial(build, compile_fn=compile_fn), label, compiled=True))

    def reference():
        return np.tanh(x_np.astype(np.float64) * SCALE + SHIFT)
    return Case(impls=impls, work=("GB/s", 8 * n), reference=reference, rtol=2e-5, atol_rel=1e-6,
                description=f"tanh(x * a + b) on {n} float32 elements, a and b scalar tensors: eager (three "
                            "ops, two intermediate arrays) next to compiled functions that may fuse it into "
                            "one pass. GB/s counts only x read and the result written.", **_big(ctx))


def specs(ctx):
    out = [Spec(GROUP, "memcpy", lambda: _memcpy_case(ctx))]
    for op, arity in (("add", 2), ("multiply", 2), ("exp", 1), ("tanh", 1), ("sigmoid", 1), ("gelu", 1)):
        out.append(Spec(GROUP, op, lambda op=op, arity=arity: _op_case(ctx, op, arity)))
    out.append(Spec(GROUP, "tanh(x*a+b)", lambda: _fused_case(ctx)))
    return out

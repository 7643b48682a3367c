"""Dispatch cases: ops on 1 to 8 float32 elements, where the time is the
framework's overhead per op, not its kernel."""
import time

import numpy as np

from benchmarks.suite.case import Case, Spec, impl_for
from benchmarks.suite.timing import repeat

GROUP = "dispatch"
CHAIN = 1000
A, B = 1.5, 0.25


def _sync(fw, fn):
    """fn as an op that has run when it returns: JAX's return first, so each
    call waits (Ember's sync mode is set around the sample instead)."""
    if fw.NAME == "jax":
        finish = fw.finish
        return lambda *args: finish(fn(*args))
    return fn


def _per_op_case(ctx, op, inputs, reference, description):
    """inputs: NumPy arrays; op(fw) -> the framework's function."""
    ember = ctx.peers.get("ember")
    impls = []
    for fw in ctx.peers.available():
        def build(fw=fw):
            args = [fw.tensor(a) for a in inputs]
            return repeat(_sync(fw, op(fw)), *args)
        if fw is ember:
            impls.append(impl_for(fw, build, "ember sync", mode=ember.sync_mode))
        else:
            impls.append(impl_for(fw, build))
    return Case(impls=impls, description=description, reference=reference,
                rounds=ctx.pick(15, 2), inner=ctx.pick(2000, 200))


def _add_case(ctx):
    case = _per_op_case(ctx, lambda fw: fw.add, [np.full(1, A, np.float32), np.full(1, B, np.float32)],
                        lambda: np.array([A + B]),
                        "add of two 1-element float32 tensors; Ember in sync mode (kernel inside the call). "
                        "'ember async' only enqueues; its sample ends with ember.sync(), so it is the "
                        "sustained rate per op.")
    ember = ctx.peers.get("ember")
    if ember is None:  # another framework's process (isolated mode)
        return case

    def build():
        return repeat(ember.add, ember.tensor(np.full(1, A, np.float32)), ember.tensor(np.full(1, B, np.float32)))
    case.impls.insert(1, impl_for(ember, build, "ember async", mode=ember.async_mode))
    return case


def _scalar_add_case(ctx):
    def op(fw):
        return lambda x: x + 1.0  # the Python operator with a Python float, as users write it
    return _per_op_case(ctx, op, [np.full(1, A, np.float32)], lambda: np.array([A + 1.0]),
                        "x + 1.0: a 1-element float32 tensor plus a Python float, through the + operator "
                        "(the scalar is converted on every call); sync. The lambda around it is the same "
                        "for every framework.")


def _read_case(ctx):
    """(a + b) then its value as NumPy, each call timed on its own."""
    ember = ctx.peers.get("ember")
    impls = []
    for fw in ctx.peers.available():
        def build(fw=fw):
            a, b = fw.tensor(np.full(1, A, np.float32)), fw.tensor(np.full(1, B, np.float32))
            add, to_numpy = fw.add, fw.to_numpy
            return repeat(lambda: to_numpy(add(a, b)))
        if fw is ember:
            impls.append(impl_for(fw, build, "ember async", mode=ember.async_mode))
            impls.append(impl_for(fw, build, "ember sync", mode=ember.sync_mode))
        else:
            impls.append(impl_for(fw, build))
    for impl in impls:
        impl.finish = lambda y: y  # the loop already read the value
        impl.to_numpy = np.asarray
    return Case(impls=impls, reference=lambda: np.array([A + B]), rounds=ctx.pick(40, 2), inner=ctx.pick(400, 100),
                per_call=True, warmup=ctx.pick(200, 20),
                description="add of two 1-element tensors, then the value read as a NumPy array "
                            "((a + b).numpy()), each call timed on its own: best and median per call. Ember's "
                            "default async mode next to its sync mode.",
                notes=["Each call is timed on its own, in blocks of `inner` calls per implementation and round. "
                       "The Ember impls switch mode (ember.config.set_async) around each block, untimed."])


def _torch_compile_early(ctx, chain):
    """Compiles the chain with torch.compile before anything loads TensorFlow
    (frameworks/torch_ops.py says why); returns (build, note) for its Impl,
    or None when PyTorch is not there. A failure becomes the Impl's error."""
    torch = ctx.peers.get("torch") if "torch" in ctx.peers.wanted else None
    if torch is None:
        return None
    start = time.perf_counter()
    try:
        compiled = torch.compilers()["torch.compile"](chain)
        x = torch.tensor(np.ones(1, np.float32))
        compiled(x)  # the compile happens at the first call
    except Exception as e:
        error = e

        def failed():
            raise error
        return failed, ""

    def build():
        return repeat(lambda: torch.to_numpy(compiled(x)))
    return build, f"compiled before the case started (TensorFlow not loaded yet): {time.perf_counter() - start:.1f} s"


def _chain_case(ctx):
    """CHAIN dependent adds on 1 element, read once: per node."""
    ember = ctx.peers.get("ember")
    length = CHAIN

    def chain(x):
        y = x
        for _ in range(length):
            y = y + x
        return y

    torch_compiled = None if ctx.quick else _torch_compile_early(ctx, chain)
    impls = []
    for fw in ctx.peers.available():
        def build(fw=fw, fn=chain):
            x, to_numpy = fw.tensor(np.ones(1, np.float32)), fw.to_numpy
            return repeat(lambda: to_numpy(fn(x)))
        if fw is ember:
            impls.append(impl_for(fw, build, "ember async", mode=ember.async_mode))
            impls.append(impl_for(fw, build, "ember sync", mode=ember.sync_mode))
        else:
            impls.append(impl_for(fw, build, f"{fw.NAME} eager" if fw.NAME != "numpy" else None))
        for label, compile_fn in fw.compilers().items():
            if label == "torch.compile":
                if torch_compiled is not None:
                    impls.append(impl_for(fw, torch_compiled[0], label, note=torch_compiled[1], compiled=True))
                continue
            def build_compiled(fw=fw, compile_fn=compile_fn):
                compiled = compile_fn(chain)
                x, to_numpy = fw.tensor(np.ones(1, np.float32)), fw.to_numpy
                return repeat(lambda: to_numpy(compiled(x)))
            impls.append(impl_for(fw, build_compiled, label, mode=ember.async_mode if fw is ember else None,
                                  compiled=True))
            if fw is ember:  # the unfused-node target: the same chain, fusion off at its trace
                impls.append(impl_for(fw, build_compiled, f"{label} unfused", mode=ember.unfused_async_mode,
                                      compiled=True))
    for impl in impls:
        impl.finish = lambda y: y
        impl.to_numpy = np.asarray
    notes = ["Compilers (jax.jit, tf.function, torch.compile) may fuse the whole chain into one kernel; "
             "their time per node is then the call cost spread over the nodes."]
    if ctx.quick:
        notes.append("torch.compile left out in --quick (its first compile takes tens of seconds).")
    return Case(impls=impls, per=length, unit="node", reference=lambda: np.array([length + 1.0]),
                rounds=ctx.pick(15, 2), inner=1, warmup=2, notes=notes,
                description=f"{length} dependent adds y = y + x on 1 element, read once at the end; time per "
                            "add. Eager async and sync next to the same chain as one ember.function "
                            "(time per graph node), fused and with the fusion pass off (\"unfused\").")


def _function_call_case(ctx):
    """A traced 1-op function called and its value read, each call timed on
    its own: the cost of one call through each compiler (issue 24: this was
    3 us, then 40 us on a busy machine when calls handed their graph to the
    executor thread)."""
    ember = ctx.peers.get("ember")

    def one_op(x):
        return x + x

    impls = []
    for fw in ctx.peers.available():
        for label, compile_fn in fw.compilers().items():
            if label == "torch.compile" and "tensorflow" in ctx.peers.wanted:
                continue  # it cannot compile once TensorFlow is loaded (frameworks/torch_ops.py)

            def build(fw=fw, compile_fn=compile_fn):
                compiled = compile_fn(one_op)
                x, to_numpy = fw.tensor(np.full(1, A, np.float32)), fw.to_numpy
                return repeat(lambda: to_numpy(compiled(x)))
            if fw is ember:
                impls.append(impl_for(fw, build, f"{label} async", mode=ember.async_mode, compiled=True))
                impls.append(impl_for(fw, build, f"{label} sync", mode=ember.sync_mode, compiled=True))
            else:
                impls.append(impl_for(fw, build, label, compiled=True))
    for impl in impls:
        impl.finish = lambda y: y
        impl.to_numpy = np.asarray
    return Case(impls=impls, reference=lambda: np.array([2 * A]), rounds=ctx.pick(40, 2), inner=ctx.pick(400, 50),
                per_call=True, warmup=ctx.pick(200, 10),
                description="a traced one-op function (x + x on 1 element) called and its value read as NumPy, "
                            "each call timed on its own: best and median per call. Ember in async and sync mode "
                            "next to jax.jit, tf.function and torch.compile (torch.compile only where TensorFlow "
                            "is not loaded in the same process: isolated mode, or --peers without it).")


def specs(ctx):
    # The chain case comes first: torch.compile can only run before TensorFlow
    # is loaded (frameworks/torch_ops.py), and the other cases load it.
    cases = [
        ("chain of 1000 adds", _chain_case),
        ("add", _add_case),
        ("x + 1.0", _scalar_add_case),
        ("relu", lambda c: _per_op_case(c, lambda fw: fw.relu, [np.full(1, -A, np.float32)], lambda: np.zeros(1),
                                        "relu of a 1-element float32 tensor; sync.")),
        ("matmul 2x2", lambda c: _per_op_case(
            c, lambda fw: fw.matmul, [np.full((2, 2), A, np.float32), np.full((2, 2), B, np.float32)],
            lambda: np.full((2, 2), 2 * A * B), "matmul of two 2x2 float32 matrices; sync.")),
        ("reduce_sum 8", lambda c: _per_op_case(c, lambda fw: fw.reduce_sum, [np.full(8, A, np.float32)],
                                                lambda: np.array(8 * A), "sum of 8 float32 elements; sync.")),
        ("add then read", _read_case),
        ("function call then read", _function_call_case),
    ]
    return [Spec(GROUP, name, lambda build=build: build(ctx)) for name, build in cases]

"""End-to-end cases: ResNet-50, the MLP and a Transformer block, eager and
compiled, every framework on the same seeded weights with its output checked
against NumPy in float64."""
import functools

import numpy as np

from benchmarks.suite.case import Case, Spec, impl_for
from benchmarks.suite.frameworks import numpy_ops
from benchmarks.suite.models import mlp, resnet50, transformer
from benchmarks.suite.timing import repeat

GROUP = "models"


def _float64(tree):
    if isinstance(tree, dict):
        return {k: _float64(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_float64(v) for v in tree]
    return tree.astype(np.float64)


def _model_case(ctx, model, params_np, x_np, expected_s, description, tolerance, compiled=True, rounds=21,
                skip_compilers=None):
    """``skip_compilers`` maps a compiler's label to why this case leaves it out."""
    skip_compilers = skip_compilers or {}
    impls = []
    for fw in ctx.peers.available():
        def inputs(fw=fw):
            return fw.params(params_np), (fw.image if model.IMAGE_INPUT else fw.tensor)(x_np)

        def build_eager(fw=fw, inputs=inputs):
            p, x = inputs()
            return repeat(model.forward, fw, p, x)
        impls.append(impl_for(fw, build_eager, f"{fw.NAME} eager" if fw.NAME != "numpy" else None))
        for label, compile_fn in (fw.compilers().items() if compiled else ()):
            def build_compiled(fw=fw, inputs=inputs, compile_fn=compile_fn, label=label):
                if label in skip_compilers:
                    raise RuntimeError(f"skipped: {skip_compilers[label]}")
                # The weights are an argument, not captured: no compiler may
                # fold them into constants, and all pay the same input cost.
                f = compile_fn(functools.partial(model.forward, fw))
                p, x = inputs()
                return repeat(f, p, x)
            impls.append(impl_for(fw, build_compiled, label, compiled=True))

    def reference():
        return model.forward(numpy_ops, _float64(params_np), x_np.astype(np.float64))
    inner = max(1, int(0.02 / expected_s))
    return Case(impls=impls, reference=reference, rtol=tolerance, atol_rel=tolerance, description=description,
                rounds=ctx.pick(rounds, 1), inner=ctx.pick(inner, 1), warmup=2, gap_s=ctx.pick(0.005, 0.0),
                unit="forward",
                notes=["Compiled functions take the weights as an argument (jax.jit, tf.function and "
                       "ember.function alike); the first calls (trace, compile) are in setup_s, not timed."])


def _resnet(ctx):
    size = ctx.pick(224, 64)
    rng = np.random.default_rng(50)
    return _model_case(ctx, resnet50, resnet50.init(rng), resnet50.example_input(rng, 1, size), 0.3,
                       f"ResNet-50 v1.5 forward, batch 1, {size}x{size}x3 NHWC, inference batch norm, "
                       "1000 logits.", tolerance=1e-3, rounds=11,
                       skip_compilers={"torch.compile": "torch.compile of ResNet-50 was still compiling after 14 "
                                                        "minutes on the 2-core machine (stop 36)"})


def _mlp(ctx, batch):
    rng = np.random.default_rng(784)
    params = mlp.init(rng)
    expected = 1e-4 if batch == 1 else 2e-3
    return _model_case(ctx, mlp, params, mlp.example_input(rng, batch), expected,
                       f"MLP 784-512-512-10 (ReLU) forward, batch {batch}, logits.", tolerance=1e-4)


def _transformer(ctx):
    rng = np.random.default_rng(256)
    return _model_case(ctx, transformer, transformer.init(rng), transformer.example_input(rng, 1, 128), 5e-3,
                       "Transformer encoder block, d_model 256, 8 heads, feed-forward 1024 (exact GELU), "
                       "post-norm, sequence 128, batch 1. Attention is each framework's own op where it has "
                       "one (ember, torch, jax), matmul + softmax in TensorFlow and NumPy.", tolerance=1e-3)


def specs(ctx):
    return [
        Spec(GROUP, "mlp batch 1", lambda: _mlp(ctx, 1)),
        Spec(GROUP, "mlp batch 64", lambda: _mlp(ctx, 64)),
        Spec(GROUP, "transformer block", lambda: _transformer(ctx)),
        Spec(GROUP, "resnet50 batch 1", lambda: _resnet(ctx)),
    ]

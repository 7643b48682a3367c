"""What `import ember` and a kernel's workspaces make resident (issue 24's
peak-memory target): ml_dtypes on demand, kernel registration in one place
of the extension's text, convolution workspaces from the host allocator."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember


def _run_fresh(code):
    """Runs `code` in a fresh interpreter; returns the JSON it prints last."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "EMBER_SIMULATED_DEVICES": "0"})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_ml_dtypes_is_imported_when_bfloat16_first_needs_numpy():
    # Note [ml_dtypes on demand] (ember/dtypes.py).
    out = _run_fresh("""
        import json, sys
        import ember
        before = "ml_dtypes" in sys.modules
        t = ember.cast(ember.constant([1.5, -2.0]), ember.bfloat16)
        bf16_ops = float(ember.cast(ember.reduce_sum(t), ember.float32))  # bfloat16 ops need no ml_dtypes
        still_absent = "ml_dtypes" not in sys.modules
        array = t.numpy()  # a bfloat16 tensor read as NumPy imports it
        print(json.dumps({"before": before, "still_absent": still_absent, "sum": bf16_ops,
                          "dtype": array.dtype.name, "values": array.astype("float32").tolist(),
                          "after": "ml_dtypes" in sys.modules,
                          "round_trip": ember.as_dtype(array.dtype).name}))
    """)
    assert out == {"before": False, "still_absent": True, "sum": -0.5, "dtype": "bfloat16",
                   "values": [1.5, -2.0], "after": True, "round_trip": "bfloat16"}


def test_bfloat16_numpy_dtype_imports_ml_dtypes():
    out = _run_fresh("""
        import json, sys
        import numpy as np
        import ember
        numpy_type = ember.bfloat16.as_numpy_dtype
        values = ember.constant(np.array([0.25, 3.0], dtype=numpy_type)).numpy()
        print(json.dumps({"name": np.dtype(numpy_type).name, "loaded": "ml_dtypes" in sys.modules,
                          "values": values.astype("float32").tolist(), "dtype": values.dtype.name}))
    """)
    assert out == {"name": "bfloat16", "loaded": True, "values": [0.25, 3.0], "dtype": "bfloat16"}


_EXTENSION_TEXT_RSS = textwrap.dedent("""
    def extension_text_rss_kib():
        rss, current, sanitized = 0, None, False
        with open("/proc/self/smaps") as f:
            for line in f:
                fields = line.split()
                if "-" in fields[0] and not line[0].isupper():
                    current = fields if len(fields) >= 6 else None
                    sanitized = sanitized or bool(current and ("libasan" in current[5] or "libtsan" in current[5]))
                elif line.startswith("Rss:") and current and "/ember/_C" in current[5] and "x" in current[1]:
                    rss += int(fields[1])
        return rss, sanitized
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")
def test_import_and_a_training_step_keep_the_extension_text_they_touch_small():
    # Note [Startup code] (csrc/core/startup_code.h): registering every
    # kernel at import touched one function in each kernel family's part of
    # the text, and fault-around made ~5 MiB of it resident. Note [Text
    # layout] (cmake/text_layout.ld): the functions import and the common
    # ops run sit together; before, import left 1.7 MiB of text resident and
    # an MLP training step 1.9 MiB more; with the layout 0.6 and 0.25 MiB.
    out = _run_fresh(_EXTENSION_TEXT_RSS + textwrap.dedent("""
        import json
        import numpy as np
        import ember
        after_import, sanitized = extension_text_rss_kib()
        rng = np.random.default_rng(0)
        w = [ember.Variable(rng.standard_normal(shape).astype(np.float32)) for shape in [(784, 512), (512, 10)]]
        x = ember.constant(rng.standard_normal((64, 784)).astype(np.float32))
        for _ in range(2):
            with ember.GradientTape() as tape:
                h = ember.nn.relu(ember.matmul(x, w[0]))
                loss = ember.reduce_mean(ember.square(ember.matmul(h, w[1]) - 1.0))
            for v, g in zip(w, tape.gradient(loss, w)):
                v.assign_sub(0.01 * g)
        float(loss)
        after_step, _ = extension_text_rss_kib()
        print(json.dumps({"import_kib": after_import, "step_kib": after_step - after_import, "sanitized": sanitized}))
    """))
    if out["sanitized"]:
        pytest.skip("a sanitizer build's text is laid out differently")
    assert 0 < out["import_kib"] <= 1024, out
    assert out["step_kib"] <= 768, out


def _winograd_conv_operands(rng):
    # A 3x3 stride-1 float32 conv with deep channels: the Winograd kernel by
    # column block (Note [Winograd by column block]), whose workspaces are the
    # transformed inputs and products (16 * 49 * 256 floats each) and one
    # block's filter transform per thread (16 * 256 * 64 floats, 1 MiB).
    x = ember.constant(rng.standard_normal((1, 14, 14, 256), dtype=np.float32))
    f = ember.constant(rng.standard_normal((3, 3, 256, 256), dtype=np.float32) * 0.05)
    return x, f


def test_conv_workspaces_count_in_memory_stats():
    # Note [Kernel scratch] (csrc/kernels/cpu/host_scratch.h).
    rng = np.random.default_rng(24)
    x, f = _winograd_conv_operands(rng)
    ember.sync()
    ember.config.reset_peak_memory_stats()
    before = ember.config.memory_stats()["bytes_in_use"]
    y = ember.nn.conv2d(x, f, strides=1, padding="SAME")
    y.numpy()
    peak = ember.config.memory_stats()["peak_bytes_in_use"]
    output_bytes = 14 * 14 * 256 * 4
    workspace_bytes = 2 * 16 * 49 * 256 * 4 + 16 * 256 * 64 * 4
    assert peak - before >= output_bytes + workspace_bytes, (peak - before)


def test_conv_workspace_past_the_memory_limit_is_resource_exhausted():
    rng = np.random.default_rng(25)
    x, f = _winograd_conv_operands(rng)
    expected = ember.nn.conv2d(x, f, strides=1, padding="SAME").numpy()
    ember.sync()
    ember.config.empty_cache()
    in_use = ember.config.memory_stats()["bytes_in_use"]
    # Room for the output, not for the workspaces.
    ember.config.set_memory_limit("cpu:0", in_use + (1 << 20))
    try:
        with pytest.raises(ember.errors.ResourceExhaustedError, match="conv2d"):
            ember.nn.conv2d(x, f, strides=1, padding="SAME").numpy()
    finally:
        ember.config.set_memory_limit("cpu:0", None)
    again = ember.nn.conv2d(x, f, strides=1, padding="SAME").numpy()
    np.testing.assert_array_equal(again, expected)


def test_submodules_and_names_load_on_first_use():
    # Note [Lazy submodules] (ember/__init__.py).
    out = _run_fresh("""
        import json, sys
        import ember
        lazy = ["keras", "data", "distribute", "summary", "saved_model", "io", "train", "profiler", "ragged",
                "sparse", "strings", "image", "signal", "bitwise", "experimental", "_tensor_array",
                "_functional_ops", "_py_function", "_module", "initializers", "optimizers", "_control_flow",
                "_autograph", "_generated.op_docs"]
        loaded_at_import = [m for m in lazy if "ember." + m in sys.modules]
        listed = all(name in dir(ember) for name in ["keras", "ragged", "RaggedTensor", "TensorArray", "map_fn"])
        from ember import strings
        import ember.experimental.numpy as tnp
        ragged = ember.ragged.constant([[1, 2], [3]])
        values = {
            "ragged": ember.RaggedTensor is type(ragged) and isinstance(ragged, ember.RaggedTensor),
            "sparse": ember.SparseTensor is ember.sparse.SparseTensor,
            "module": issubclass(ember.keras.layers.Layer, ember.Module),
            "map_fn": ember.map_fn(lambda t: t * 2, ember.constant([1, 2])).numpy().tolist(),
            "tensor_array": ember.TensorArray(ember.float32, size=1).write(0, 3.0).stack().numpy().tolist(),
            "strings": strings.length(ember.constant(["ab"])).numpy().tolist(),
            "tnp": float(tnp.sum(tnp.ones(3))),
            "while_loop": int(ember.while_loop(lambda i: i < 3, lambda i: i + 1, [ember.constant(0)])[0]),
            "sgd": type(ember.optimizers.SGD(0.1)).__name__,
            "autograph_before_a_function": "ember._autograph" in sys.modules,
            # Note [Op docstrings on first use] (csrc/python/op_function.cc).
            "doc": ember.matmul.__doc__.startswith("Multiplies") and "ember._generated.op_docs" in sys.modules,
        }
        print(json.dumps({"loaded_at_import": loaded_at_import, "listed": listed, "values": values}))
    """)
    assert out["loaded_at_import"] == [], out
    assert out["listed"], out
    assert out["values"] == {"ragged": True, "sparse": True, "module": True, "map_fn": [2, 4],
                             "tensor_array": [3.0], "strings": [2], "tnp": 3.0, "while_loop": 3, "sgd": "SGD",
                             "autograph_before_a_function": False, "doc": True}, out

"""A build with the CUDA library compiled in, on a machine without a GPU
(Note [GPU discovery]): the package imports, build_info says what was
compiled and why no GPU is used, `gpu:0` fails with that reason, and there
are no GPU devices; the library holds Hopper code, the GPU coverage list is
current, and the GPU script's CPU-runnable steps pass. Skipped for builds
without CUDA."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember import _C

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "gpu"))

INFO = ember.config.build_info()
pytestmark = pytest.mark.skipif(not INFO["is_cuda_build"], reason="built without the CUDA library")


def test_build_info_names_the_toolkit_libraries_and_architectures():
    assert INFO["cuda_version"] >= 12000
    major, minor, _ = INFO["cublas_version"].split(".")
    assert int(major) >= 12
    assert INFO["cudnn_version"] == "" or int(INFO["cudnn_version"].split(".")[0]) >= 9
    archs = INFO["cuda_architectures"].split(",")
    assert "90-real" in archs and "80-real" in archs and any(a.endswith("-virtual") for a in archs)
    assert isinstance(INFO["gpu_status"], str) and INFO["gpu_status"]


def test_nccl_is_reported_and_its_kernels_registered():
    """Note [Collectives on GPUs]: the collective ops' NCCL kernels are compiled in when the
    toolkit has nccl.h, and the library is loaded (not linked) when asked about."""
    if INFO["nccl_version"] == "":
        assert "no NCCL header" in INFO["nccl_library"]
        return
    assert int(INFO["nccl_version"].split(".")[0]) == 2
    assert INFO["nccl_library"].startswith("not loaded yet"), INFO["nccl_library"]  # build_info never loads it
    if _C._nccl_available():  # now loaded
        library = ember.config.build_info()["nccl_library"]
        assert library.startswith("NCCL 2."), library
    import gpu_coverage

    rows = dict(gpu_coverage.coverage_rows())
    for op in ("collective_all_reduce", "collective_all_gather", "collective_broadcast", "collective_reduce_scatter",
               "collective_all_to_all"):
        assert rows[op].startswith("GPU:"), (op, rows[op])


def test_build_info_does_not_load_nccl():
    """A libnccl.so.2 loaded before PyTorch's (same soname, older) made `import torch` fail with an
    undefined NCCL symbol: build_info reports NCCL without loading it."""
    code = ("import ember; ember.config.build_info()\n"
            "print(any('libnccl' in line for line in open('/proc/self/maps')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "False", result.stdout + result.stderr


def test_no_gpu_devices_on_a_machine_without_one():
    assert ember.config.list_physical_devices("GPU") == []
    assert ember.config.list_logical_devices("GPU") == []


@pytest.mark.parametrize("spec", ["gpu:0", "/GPU:0", "/device:GPU:0"])
def test_asking_for_a_gpu_says_why_there_is_none(spec):
    with pytest.raises(Exception) as excinfo:
        with ember.device(spec):
            ember.constant([1.0]) + 1.0
    message = str(excinfo.value)
    assert "CUDA is compiled in" in message
    assert INFO["gpu_status"] in message
    # The runtime is still usable.
    assert float(ember.reduce_sum(ember.constant([1.0, 2.0]))) == 3.0


def test_the_library_holds_sm90_and_sm80_code_and_ptx():
    result = subprocess.run([sys.executable, str(ROOT / "tests/gpu/check_sm90.py")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "holds sm_80 and sm_90 machine code and sm_90 PTX" in result.stdout


def test_gpu_kernels_stay_within_the_declared_dtypes():
    import itertools

    gpu = [(op, tuple(d)) for op, dev, d in _C._registered_kernels() if dev == "gpu"]
    assert len(gpu) > 100
    for op, dtypes in gpu:
        allowed = set(itertools.product(*_C._op_info(op)["type_vars"].values()))
        assert dtypes in allowed, (op, dtypes)


def test_gpu_coverage_list_is_current():
    import gpu_coverage

    committed = (ROOT / "docs" / "gpu_coverage.md").read_text()
    assert committed == gpu_coverage.render(), "regenerate: python tests/gpu/gpu_coverage.py > docs/gpu_coverage.md"
    rows = dict(gpu_coverage.coverage_rows())
    assert rows["add"].startswith("GPU: ") and "float16" in rows["add"]
    assert rows["shape"].startswith("host")


def test_gpu_script_runs_its_cpu_parts(tmp_path):
    env = dict(os.environ, EMBER_GPU_SKIP_BUILD="1", PYTHON=sys.executable)
    env.pop("EMBER_TEST_DEVICE", None)
    result = subprocess.run(["bash", str(ROOT / "tests/gpu/run.sh"), str(tmp_path)], capture_output=True, text=True,
                            env=env, timeout=300)
    summary = (tmp_path / "summary.txt").read_text()
    assert result.returncode == 0, summary + result.stdout + result.stderr
    assert "PASS build_info" in summary and "PASS sm90_code" in summary
    assert "SKIP gpu steps: no GPU" in summary


def _as_list(value):
    return [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)]


def _geometry_cases():
    """(op, sample) for every conv2d and pooling sample of the op database."""
    from op_db import OP_DB, samples_for

    for op in ("conv2d", "max_pool2d", "avg_pool2d"):
        for dtype in ("float32", "float16"):
            for sample in samples_for(OP_DB[op], dtype):
                yield pytest.param(op, dtype, sample, id=f"{op}-{dtype}-{sample.name}")


@pytest.mark.parametrize("op,dtype,sample", list(_geometry_cases()))
def test_cudnn_geometry_matches_the_shape_functions(op, dtype, sample):
    """Note [cuDNN convolution geometry]: the descriptors built from the shape
    function's window give cuDNN's own output dims equal to Ember's."""
    from ember.nn import _padding_attrs

    x, window, strides, padding = sample.args
    data_format = sample.kwargs.get("data_format", "NHWC")
    want = getattr(ember.nn, op)(ember.constant(x), ember.constant(window) if op == "conv2d" else window, strides,
                                 padding, **sample.kwargs).shape
    padding_attr, explicit = _padding_attrs(op, padding)
    window_dims = list(window.shape) if op == "conv2d" else _as_list(window)
    try:
        got = _C._cudnn_geometry(op, list(x.shape), window_dims, _as_list(strides), padding_attr,
                                 list(explicit or []), data_format, _as_list(sample.kwargs.get("dilations") or []),
                                 dtype)
    except ember.errors.UnimplementedError as e:
        # Only an asymmetric average pool is refused (it runs on the CPU).
        assert op == "avg_pool2d" and "asymmetric" in str(e)
        return
    assert tuple(got["output"]) == tuple(want)
    assert all(p >= 0 for p in got["prepad"] + got["pads"])
    if op == "conv2d":
        assert got["groups"] == x.shape[1 if data_format == "NCHW" else 3] // window.shape[2]


def _matmul_cases():
    from op_db import OP_DB, samples_for

    for dtype in ("float32", "float64", "float16", "bfloat16"):
        for sample in samples_for(OP_DB["matmul"], dtype):
            yield pytest.param(dtype, sample, id=f"{dtype}-{sample.name}")


def _column_major(buffer, offset, rows, cols, ld):
    """The rows x cols column-major matrix at buffer[offset:] with leading dimension ld."""
    return np.array([[buffer[offset + r + c * ld] for c in range(cols)] for r in range(rows)])


@pytest.mark.parametrize("dtype,sample", list(_matmul_cases()))
def test_cublaslt_layouts_compute_the_row_major_product(dtype, sample):
    """Note [Row-major GEMM on cuBLAS]: the layouts cuBLASLt built (read back
    from the library), applied with cuBLAS's column-major semantics to the
    operands' row-major buffers, give NumPy's product."""
    a, b = (np.asarray(x, np.float64) for x in sample.args)
    ta, tb = sample.kwargs.get("transpose_a", False), sample.kwargs.get("transpose_b", False)
    want = np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)
    plan = _C._cublaslt_layouts(list(a.shape), list(b.shape), list(want.shape), ta, tb, dtype)
    if want.size == 0:
        assert plan["empty"]
        return
    if plan["k"] == 0:
        assert not np.any(want)  # the kernel clears the output
        return
    (a_rows, a_cols, lda, batch, stride_a), (b_rows, b_cols, ldb, _, stride_b), (m, n, ldd, _, stride_d) = \
        plan["layouts"]
    assert (m, n, batch) == (plan["m"], plan["n"], plan["batch"])
    # cuBLAS's A is Ember's b, its B Ember's a.
    a_buf, b_buf = b.ravel(), a.ravel()
    d_buf = np.zeros(want.size)
    if plan["offsets_a"]:
        products = zip(plan["offsets_a"], plan["offsets_b"], plan["offsets_d"])
    else:
        products = ((i * stride_a, i * stride_b, i * stride_d) for i in range(batch))
    for off_a, off_b, off_d in products:
        op_a = _column_major(a_buf, off_a, a_rows, a_cols, lda)
        op_b = _column_major(b_buf, off_b, b_rows, b_cols, ldb)
        op_a = op_a.T if plan["transpose_a"] else op_a
        op_b = op_b.T if plan["transpose_b"] else op_b
        product = op_a @ op_b
        assert product.shape == (m, n)
        for c in range(n):
            d_buf[off_d + c * ldd:off_d + c * ldd + m] = product[:, c]
    np.testing.assert_allclose(d_buf.reshape(want.shape), want, rtol=1e-12, atol=1e-12)


def test_gemm_descriptors_are_built_once_per_plan_and_policy():
    """Note [GEMM descriptor cache]: a repeated plan gets the descriptors built for it; another
    shape, dtype or TF32 policy gets its own; past the capacity the least recently used go."""
    square = ([4, 8], [8, 16], [4, 16], False, False, "float32", True)
    other_shape = ([2, 8], [8, 16], [2, 16], False, False, "float32", True)
    transposed = ([8, 4], [8, 16], [4, 16], True, False, "float32", True)
    other_dtype = ([4, 8], [8, 16], [4, 16], False, False, "float16", True)
    full_float32 = ([4, 8], [8, 16], [4, 16], False, False, "float32", False)
    batched = ([3, 4, 8], [3, 8, 16], [3, 4, 16], False, False, "float32", True)
    plans = [square, other_shape, square, transposed, other_dtype, full_float32, batched, square, batched]
    addresses, size = _C._cublaslt_cache_probe(plans, 8)
    assert size == 6
    assert addresses[0] == addresses[2] == addresses[7] and addresses[6] == addresses[8]
    assert len(set(addresses)) == 6
    # Capacity 2: square, other_shape, square (hit, now most recent), transposed (evicts
    # other_shape), other_shape (built again, evicts square), square (built again).
    addresses, size = _C._cublaslt_cache_probe([square, other_shape, square, transposed, other_shape, square], 2)
    assert size == 2
    assert addresses[0] == addresses[2]
    assert addresses[4] != addresses[1] and addresses[5] != addresses[0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_cublaslt_descriptors_hold_each_fused_matmul_epilogue(dtype):
    """Note [Matmul epilogues]: the real cuBLASLt reads back the epilogue a
    fused_matmul's descriptor was given, one per activation, all different."""
    got = [_C._cublaslt_epilogue(activation, dtype) for activation in ("none", "relu", "gelu_approximate")]
    expected = got[0][1]
    assert [g[0] for g in got] == expected and len(set(expected)) == 3


def test_cuda_graphs_setting_and_functions_on_the_cpu():
    """Note [Graph replay]: the setting is on by default (unless
    EMBER_CUDA_GRAPHS=0), round-trips and rejects non-bools; functions on
    the CPU run node by node either way (nothing replays)."""
    experimental = ember.config.experimental
    assert experimental.cuda_graphs_enabled() is (os.environ.get("EMBER_CUDA_GRAPHS") != "0")
    with pytest.raises(TypeError, match="enable_cuda_graphs: enabled must be a bool"):
        experimental.enable_cuda_graphs(1)
    before = _C._graph_replay_count()
    previous = experimental.cuda_graphs_enabled()
    try:
        for enabled in (False, True):
            experimental.enable_cuda_graphs(enabled)
            assert experimental.cuda_graphs_enabled() is enabled
            with ember.device("cpu:0"):
                f = ember.function(lambda x, w: ember.nn.relu(ember.matmul(x, w)) + 1.0)
                x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
                w = np.ones((3, 4), np.float32)
                for _ in range(4):
                    np.testing.assert_allclose(f(x, w).numpy(), np.maximum(x @ w, 0) + 1)
    finally:
        experimental.enable_cuda_graphs(previous)
    assert _C._graph_replay_count() == before


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the linker script is for GNU ld on Linux")
def test_kernel_registration_waits_for_a_driver():
    """Note [Deferred CUDA registration]: the .cu files' constructors (one per kernel family,
    and the CUDA runtime's own) are left out of the loader's list and run by GPU discovery
    only where the driver library loads, so a machine without one never runs the runtime."""
    constructors, ran = _C._deferred_cuda_registration()
    kernel_families = len(list((ROOT / "csrc" / "kernels" / "cuda").glob("*.cu")))
    assert constructors >= kernel_families + 1, (constructors, kernel_families)
    assert ran == (INFO["cuda_driver_version"] > 0 or INFO["gpus_found"] > 0)
    if not ran:
        assert "no NVIDIA driver was found" in INFO["gpu_status"], INFO["gpu_status"]

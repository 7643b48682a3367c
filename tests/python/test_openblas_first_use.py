"""OpenBLAS is loaded on first use (Note [OpenBLAS on first use] in
csrc/kernels/cpu/openblas.h): not by `import ember` nor by the small float32
products of a small model, but by a decomposition or a large product; it
starts no threads of its own and leaves OPENBLAS_NUM_THREADS as it was.
ember/_blas.py finds the wheel's library directory without importing the
scipy-openblas32 package."""
import os
import subprocess
import sys

import pytest

import ember

pytestmark = pytest.mark.skipif(ember.config.build_info()["blas"] != "OpenBLAS" or not sys.platform.startswith("linux"),
                                reason="a build with OpenBLAS, on Linux (reads /proc/self/maps)")

_FIRST_USE = """
import os
{setup}
import numpy as np
import ember

def loaded():
    return "/libscipy_openblas.so" in open("/proc/self/maps").read()  # not NumPy's libscipy_openblas64_

def threads():
    return len(os.listdir("/proc/self/task"))

out = [loaded()]
rng = np.random.default_rng(0)
h = ember.constant(rng.random((64, 512), np.float32))
w = ember.constant(rng.random((512, 10), np.float32))
g = ember.constant(rng.random((64, 10), np.float32))
small = [ember.matmul(h, w), ember.matmul(g, w, transpose_b=True), ember.matmul(h, g, transpose_a=True)]
close = all(np.allclose(a.numpy(), b, rtol=1e-4) for a, b in
            zip(small, [h.numpy() @ w.numpy(), g.numpy() @ w.numpy().T, h.numpy().T @ g.numpy()]))
out += [loaded(), close]
before = threads()
x = rng.random((6, 6))
out += [bool(np.allclose(ember.linalg.inv(ember.constant(x)).numpy(), np.linalg.inv(x))), loaded(),
        threads() - before, os.environ.get("OPENBLAS_NUM_THREADS", "unset")]
print(out)
"""


@pytest.mark.parametrize("setup, variable", [("", "unset"), ("os.environ['OPENBLAS_NUM_THREADS'] = '3'", "3")])
def test_openblas_loads_on_first_use_single_threaded(setup, variable):
    done = subprocess.run([sys.executable, "-c", _FIRST_USE.format(setup=setup)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    import_loaded, small_loaded, small_close, inverse_ok, inverse_loaded, new_threads, env = eval(done.stdout)
    assert (import_loaded, small_loaded, small_close) == (False, False, True), done.stdout
    assert (inverse_ok, inverse_loaded) == (True, True), done.stdout
    if variable == "unset":
        assert new_threads == 0, done.stdout  # OPENBLAS_NUM_THREADS=1 while it loaded: no server threads
    assert env == variable, done.stdout
    # build_info loads it and reports one thread per call either way.
    assert ember.config.build_info()["blas_threads_per_call"] == 1


def test_large_float32_products_use_openblas():
    import numpy as np
    rng = np.random.default_rng(1)
    a, b = rng.random((256, 1024), np.float32), rng.random((1024, 10), np.float32)  # narrow, 2.6M multiply-adds
    np.testing.assert_allclose(ember.matmul(a, b).numpy(), a @ b, rtol=1e-4)
    assert ember._C._openblas_loaded()


_DIRECTORY = """
import importlib.util, sys, types
package = types.ModuleType("ember")
package.__path__ = list(importlib.util.find_spec("ember").submodule_search_locations)
sys.modules["ember"] = package
from ember._blas import openblas_directory
before = set(sys.modules)
directory = openblas_directory()
import os
print("libscipy_openblas.so" in os.listdir(directory))
print("scipy_openblas32" in sys.modules or "importlib.metadata" in set(sys.modules) - before)
"""


def test_openblas_directory_is_found_without_importing_its_package():
    done = subprocess.run([sys.executable, "-c", _DIRECTORY], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"], done.stdout


_MISSING = """
import numpy as np
import ember
rng = np.random.default_rng(2)
a, b = rng.random((256, 1024), np.float32), rng.random((1024, 10), np.float32)  # a BLAS-sized product
product_ok = bool(np.allclose(ember.matmul(a, b).numpy(), a @ b, rtol=1e-4))  # on Eigen instead
try:
    ember.linalg.inv(ember.constant(np.eye(3))).numpy()
    error = None
except Exception as e:
    error = (type(e).__name__, str(e))
info = ember.config.build_info()
print(repr((product_ok, error, info["blas"], "could not be loaded" in info["blas_config"],
            float(ember.reduce_sum(ember.constant([1.0, 2.0]))))))
"""


def test_a_missing_openblas_leaves_products_on_eigen_and_fails_decompositions_clearly():
    env = {**os.environ, "EMBER_OPENBLAS_LIBRARY": "/nonexistent/libscipy_openblas.so"}
    done = subprocess.run([sys.executable, "-c", _MISSING], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    product_ok, error, blas, reason_reported, still_usable = eval(done.stdout)
    assert product_ok and blas == "Eigen" and reason_reported and still_usable == 3.0, done.stdout
    assert error is not None and error[0] == "FailedPreconditionError", error
    assert "OpenBLAS (scipy-openblas32) could not be loaded" in error[1] and "/nonexistent" in error[1], error

"""ember/_blas.py: where _C's rpath misses OpenBLAS, the library is found
through the scipy-openblas32 package's directory without importing the
package (its __init__ pulls in importlib.metadata: 7 MiB resident, 40 ms),
and any other import error is raised unchanged."""
import subprocess
import sys

import pytest

# Under a bare `ember` package (neither its __init__.py nor _C runs), so the
# library is mapped only if preload_openblas maps it.
_PRELOAD = """
import importlib.util, sys, types
package = types.ModuleType("ember")
package.__path__ = list(importlib.util.find_spec("ember").submodule_search_locations)
sys.modules["ember"] = package
assert "libscipy_openblas" not in open("/proc/self/maps").read()
from ember._blas import preload_openblas
before = set(sys.modules)
preload_openblas(ImportError("libscipy_openblas.so: cannot open shared object file"))
maps = open("/proc/self/maps").read()
print("loaded" if "libscipy_openblas" in maps else "missing")
print("imported" if "scipy_openblas32" in sys.modules or "importlib.metadata" in set(sys.modules) - before
      else "not imported")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_preload_loads_openblas_without_importing_its_package():
    done = subprocess.run([sys.executable, "-c", _PRELOAD], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["loaded", "not", "imported"], done.stdout


def test_preload_reraises_other_import_errors():
    from ember._blas import preload_openblas
    error = ImportError("libcudart.so.13: cannot open shared object file")
    with pytest.raises(ImportError) as raised:
        preload_openblas(error)
    assert raised.value is error


# Ember's OpenBLAS is loaded with OPENBLAS_NUM_THREADS=1 (it starts no server
# threads); the variable is put back, and a value the user set is kept.
_THREADS = """
import os
{setup}
import numpy
import ember
print(os.environ.get("OPENBLAS_NUM_THREADS", "unset"))
print(ember.config.build_info()["blas_threads_per_call"])
"""


@pytest.mark.parametrize("setup, expected", [("", "unset"), ("os.environ['OPENBLAS_NUM_THREADS'] = '3'", "3")])
def test_openblas_loads_single_threaded_and_leaves_the_environment(setup, expected):
    done = subprocess.run([sys.executable, "-c", _THREADS.format(setup=setup)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert lines[0] == expected, done.stdout
    import ember
    if ember.config.build_info()["blas"] == "OpenBLAS":
        assert lines[1] == "1", done.stdout

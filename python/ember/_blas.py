"""Loads OpenBLAS for ``ember._C`` without threads of its own, and finds it
when ``_C``'s rpath does not.

``_C`` links ``libscipy_openblas.so`` from the scipy-openblas32 wheel and
looks for it in ``../scipy_openblas32/lib`` next to the ``ember`` package
(cmake/Blas.cmake). When the two packages are installed in different
site-packages directories (a virtual environment that sees the system's
packages, ``PYTHONPATH``), that path is wrong: this module loads the library
by the path the package itself reports, so that the dynamic loader finds it
already loaded under its soname when ``_C`` is imported again.
"""

import contextlib
import ctypes
import importlib.util
import os


@contextlib.contextmanager
def single_threaded_openblas():
    """Ember's OpenBLAS runs on one thread per call (Note [BLAS GEMM]: the
    intra-op pool splits products), yet at load it starts a server thread
    per core, which polls for work for tens of milliseconds and then
    sleeps. OPENBLAS_NUM_THREADS=1 while ``_C`` loads it starts none; the
    variable is put back afterwards. NumPy is imported first (``_C`` needs
    it anyway), so that its own OpenBLAS keeps the user's thread count."""
    import numpy  # noqa: F401

    if "OPENBLAS_NUM_THREADS" in os.environ:
        yield
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


def preload_openblas(error):
    """Loads OpenBLAS if ``error`` (from importing ``_C``) says it is missing;
    otherwise, or if the package is not installed, re-raises ``error``."""
    if "libscipy_openblas" not in str(error):
        raise error
    # Found, not imported: the package's __init__ pulls in importlib.metadata
    # and its dependencies, about 7 MiB of resident set and 40 ms of import
    # for one directory listing.
    spec = importlib.util.find_spec("scipy_openblas32")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{error}: this build of Ember uses OpenBLAS; `pip install scipy-openblas32`") from error
    lib_dir = os.path.join(list(spec.submodule_search_locations)[0], "lib")
    names = sorted(n for n in os.listdir(lib_dir) if n.startswith("libscipy_openblas")) \
        if os.path.isdir(lib_dir) else []
    if not names:
        raise ImportError(f"{error}: scipy-openblas32 has no library in {lib_dir}; reinstall it") from error
    ctypes.CDLL(os.path.join(lib_dir, names[0]), mode=ctypes.RTLD_GLOBAL)

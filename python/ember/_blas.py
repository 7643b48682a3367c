"""Finds OpenBLAS for ``ember._C`` when its rpath does not.

``_C`` links ``libscipy_openblas.so`` from the scipy-openblas32 wheel and
looks for it in ``../scipy_openblas32/lib`` next to the ``ember`` package
(cmake/Blas.cmake). When the two packages are installed in different
site-packages directories (a virtual environment that sees the system's
packages, ``PYTHONPATH``), that path is wrong: this module loads the library
by the path the package itself reports, so that the dynamic loader finds it
already loaded under its soname when ``_C`` is imported again.
"""

import ctypes
import os


def preload_openblas(error):
    """Loads OpenBLAS if ``error`` (from importing ``_C``) says it is missing;
    otherwise, or if the package is not installed, re-raises ``error``."""
    if "libscipy_openblas" not in str(error):
        raise error
    try:
        import scipy_openblas32
    except ImportError:
        raise ImportError(f"{error}: this build of Ember uses OpenBLAS; `pip install scipy-openblas32`") from error
    path = os.path.join(scipy_openblas32.get_lib_dir(), scipy_openblas32.get_library(True))
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)

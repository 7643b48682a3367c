"""Where OpenBLAS is, for ``ember._C`` to load it on first use (Note
[OpenBLAS on first use] in csrc/kernels/cpu/openblas.h).

``_C`` looks for ``libscipy_openblas.so`` from the scipy-openblas32 wheel in
``../scipy_openblas32/lib`` next to the ``ember`` package (its rpath,
cmake/Blas.cmake). When the two packages are installed in different
site-packages directories (a virtual environment that sees the system's
packages, ``PYTHONPATH``), that path is wrong: ``openblas_directory`` finds
the directory the package itself uses, which ``_C`` tries next.
"""

import importlib.util
import os


def openblas_directory():
    """The scipy-openblas32 package's library directory, or None. Found, not
    imported: the package's __init__ pulls in importlib.metadata and its
    dependencies, about 7 MiB of resident set and 40 ms of import, for one
    directory name."""
    try:
        spec = importlib.util.find_spec("scipy_openblas32")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(list(spec.submodule_search_locations)[0], "lib")

"""Loads mpi4py on first use and describes the MPI library behind it (for build_info)."""

import atexit
import sys

import numpy as np

_INSTALL_HINT = ("Ember's multi-worker collectives use MPI through mpi4py. Install both from the package index "
                 "with `pip install mpi4py mpich` (or build mpi4py against a system MPI), then launch the "
                 "workers with `python -m ember.distribute.run -n N script.py` or `mpiexec -n N python script.py`")


_loaded = []  # [the mpi4py.MPI module] once imported


def mpi():
    """The ``mpi4py.MPI`` module, with MPI initialized (once per process)."""
    if _loaded:
        return _loaded[0]
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise ImportError(f"{error}. {_INSTALL_HINT}") from error
    if not MPI.Is_initialized():  # loaded by backend_info without initializing (Note [MPI on demand])
        MPI.Init_thread()
        atexit.register(_finalize, MPI)
    _loaded.append(MPI)
    return MPI


def _finalize(MPI):
    if MPI.Is_initialized() and not MPI.Is_finalized():
        MPI.Finalize()


def _load_without_initializing():
    """Note [MPI on demand]: importing ``mpi4py.MPI`` normally initializes MPI, which in a
    process not started by mpiexec means a singleton MPI job (tens of milliseconds, sockets).
    build_info only asks versions, which MPI answers before initialization, so it loads the
    module with mpi4py's automatic initialization off; mpi() initializes it when a strategy
    first needs it and finalizes it at exit."""
    import mpi4py
    if "mpi4py.MPI" in sys.modules:
        return sys.modules["mpi4py.MPI"]
    initialize, finalize = mpi4py.rc.initialize, mpi4py.rc.finalize
    mpi4py.rc.initialize, mpi4py.rc.finalize = False, False
    try:
        from mpi4py import MPI
    finally:
        mpi4py.rc.initialize, mpi4py.rc.finalize = initialize, finalize
    return MPI


def available():
    """Whether mpi4py can be imported, without importing it (importing initializes MPI)."""
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def backend_info():
    """What build_info reports about MPI, without initializing it (Note [MPI on demand]);
    never at ``import ember``."""
    if not available():
        return {"mpi_backend": None, "mpi_status": f"mpi4py not installed: {_INSTALL_HINT}"}
    import mpi4py
    try:
        MPI = _load_without_initializing()
        library = MPI.Get_library_version().strip().splitlines()[0]
        standard = "{}.{}".format(*MPI.Get_version())
    except Exception as error:  # noqa: BLE001 - a broken MPI install is reported, not raised
        return {"mpi_backend": None, "mpi_status": f"mpi4py {mpi4py.__version__} failed to load MPI: {error}"}
    return {"mpi_backend": "mpi4py", "mpi4py_version": mpi4py.__version__, "mpi_library": library,
            "mpi_standard": standard, "mpi_status": "available"}


_datatypes = {}


def datatype(dtype):
    """The MPI datatype for a NumPy dtype; TypeError for the dtypes the backend does not carry."""
    if not _datatypes:
        MPI = mpi()
        _datatypes.update({np.dtype(np.float32): MPI.FLOAT, np.dtype(np.float64): MPI.DOUBLE,
                           np.dtype(np.int32): MPI.INT32_T, np.dtype(np.int64): MPI.INT64_T})
    found = _datatypes.get(dtype)
    if found is None:
        raise TypeError(f"MpiCollectives: {np.dtype(dtype).name} values cannot be sent between workers; "
                        "supported dtypes are float32, float64, int32 and int64 (cast first)")
    return found


# Small integer codes for the metadata check (Note [Checked collectives] in _mpi_collectives.py).
DTYPE_CODES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3, np.dtype(np.int64): 4}

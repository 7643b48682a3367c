"""What the numbers were measured on: CPU, load, BLAS, package versions, the commit."""
import importlib.metadata
import io
import os
import platform
import subprocess
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags():
    """The vector extensions kernels may use (AVX2, AVX-512, FMA)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                return sorted(f for f in flags if f in {"avx", "avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni"})
    except OSError:
        pass
    return []


def load():
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return None


def _git(*args):
    try:
        # --no-optional-locks: never take .git/index.lock from under a commit in progress.
        return subprocess.run(["git", "--no-optional-locks", *args], cwd=REPO, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def git_info():
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {"commit": _git("rev-parse", "HEAD"), "describe": _git("log", "-1", "--format=%h %s"),
            "tracked_files_modified": None if status is None else bool(status)}


def blas():
    """NumPy's BLAS: threadpoolctl when it imports, else numpy.show_config()."""
    try:
        from threadpoolctl import threadpool_info
        return [{k: pool.get(k) for k in ("internal_api", "version", "num_threads", "architecture", "filepath")}
                for pool in threadpool_info()]
    except ImportError:
        import numpy as np
        text = io.StringIO()
        with redirect_stdout(text):
            np.show_config()
        return {"numpy_show_config": text.getvalue(), "note": "threadpoolctl not installed"}


def versions():
    out = {}
    for dist in ("ember", "numpy", "torch", "tensorflow", "tensorflow-cpu", "jax", "jaxlib", "matplotlib",
                 "threadpoolctl", "ml_dtypes"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    return out


def ember_info():
    import ember
    info = {"file": ember.__file__,
            "installed_at": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(Path(ember.__file__).stat().st_mtime)),
            "async_default": ember.config.is_async()}
    # ember.function's graph optimizer settings (fusion etc.), where this build has them.
    optimizer = getattr(ember.config, "optimizer", None)
    if optimizer is not None and hasattr(optimizer, "get_experimental_options"):
        info["function_optimizer_options"] = optimizer.get_experimental_options()
    build_info = getattr(ember.config, "build_info", None)
    info["build_info"] = build_info() if callable(build_info) else "ember.config.build_info() does not exist"
    return info


def describe():
    uname = platform.uname()
    return {
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_flags": cpu_flags(),
        "os": f"{uname.system} {uname.release}",
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "env": {k: os.environ[k] for k in ("EMBER_NUM_THREADS", "EMBER_ASYNC", "OMP_NUM_THREADS",
                                          "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "MKL_NUM_THREADS",
                                          "XLA_FLAGS", "TF_ENABLE_ONEDNN_OPTS") if k in os.environ},
        "versions": versions(),
        "blas": blas(),
        "ember": ember_info(),
        "git": git_info(),
    }


class busy_processes:
    """Note [Busy processes]
    The performance issue asks for the function call "no worse than jax.jit
    on a loaded machine", measured with a competing busy process: on a busy
    machine a call that waits for another thread pays a scheduler wake-up
    (tens of microseconds), which an idle machine hides. `--busy N` starts N
    processes that spin in pure Python for the whole run, at the suite's own
    priority, and stops them at the end; the run's header and results.json
    say how many there were (targets.py judges the loaded-machine targets
    only in such a run)."""

    def __init__(self, count):
        self.count = count
        self.processes = []

    def __enter__(self):
        for _ in range(self.count):
            self.processes.append(subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        return self

    def __exit__(self, *exc):
        for p in self.processes:
            p.kill()
        for p in self.processes:
            p.wait()
        return False

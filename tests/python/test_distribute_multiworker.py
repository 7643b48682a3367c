"""Several processes: MpiCollectives, MultiWorkerMirroredStrategy, lost workers and the launcher.

Each test starts a small MPI job of the scripts in distribute_workers/ over
loopback, with a hard time limit. Every process a job starts carries a
marker in its environment; whatever the outcome, the processes with the
marker are killed by id when the test ends, so none outlives it. The
tests are skipped when mpi4py or mpiexec is missing (`pip install mpi4py
mpich`, part of the `test` extra).
"""

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid

import numpy as np
import pytest

WORKERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distribute_workers")


def _mpiexec_or_none():
    # The launcher's search (ember.distribute.run.find_mpiexec), without importing it here: an
    # imported submodule would show up among ember.distribute's public names.
    if importlib.util.find_spec("mpi4py") is None or not sys.platform.startswith("linux"):
        return None  # the harness finds a job's processes through /proc
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return beside if os.access(beside, os.X_OK) else shutil.which("mpiexec")


MPIEXEC = _mpiexec_or_none()
pytestmark = pytest.mark.skipif(MPIEXEC is None,
                                reason="needs Linux, mpi4py and mpiexec (pip install mpi4py mpich)")


def _marked(marker):
    """Process ids on this host whose environment carries ``marker``."""
    found = []
    needle = f"EMBER_TEST_JOB={marker}".encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            pass
    return found


def _kill(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Job:
    """One launched command: its exit code, output and wall time; ``leftovers`` are the marked
    processes still alive a moment after it ended (they are killed anyway)."""

    def __init__(self, argv, env=None, timeout=60, interrupt_when=None):
        marker = uuid.uuid4().hex
        full_env = dict(os.environ, EMBER_TEST_JOB=marker, **(env or {}))
        start = time.monotonic()
        process = subprocess.Popen(argv, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        try:
            if interrupt_when is not None:
                _wait_for(interrupt_when, timeout)
                process.send_signal(signal.SIGINT)
            self.out, self.err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill(_marked(marker) + [process.pid])
            self.out, self.err = process.communicate()
            pytest.fail(f"{argv} did not end within {timeout} s\n{self.out}\n{self.err}")
        finally:
            self.seconds = time.monotonic() - start
            deadline = time.monotonic() + 2
            while _marked(marker) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.leftovers = _marked(marker)
            _kill(self.leftovers + [process.pid])
        self.code = process.returncode

    def __repr__(self):
        return f"exit code {self.code} after {self.seconds:.1f} s\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


def _wait_for(condition, timeout):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("the workers never got going")
        time.sleep(0.05)


def _mpiexec(n, script, *args, env=None):
    return Job([MPIEXEC, "-n", str(n), sys.executable, os.path.join(WORKERS, script), *args], env=env)


def _launch(n, script, *args, timeout=None, env=None, **job_args):
    flags = [] if timeout is None else ["--timeout", str(timeout)]
    argv = [sys.executable, "-m", "ember.distribute.run", "-n", str(n), *flags, os.path.join(WORKERS, script), *args]
    return Job(argv, env=env, **job_args)


# --- Collectives and training --------------------------------------------------
@pytest.mark.parametrize("n", [2, 4])
def test_collectives_match_numpy(n):
    job = _mpiexec(n, "collectives_worker.py")
    assert job.code == 0, job
    assert all(f"ok {r}" in job.out for r in range(n)), job
    assert not job.leftovers


def test_workers_that_disagree_get_an_error(tmp_path):
    job = _launch(2, "mismatch_worker.py", str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok-0", "ok-1"], job
    assert job.code == 1, job  # Ember's exit hook: MPI_Finalize would wait for the unmatched calls
    assert job.seconds < 20, job
    assert not job.leftovers


@pytest.mark.parametrize("n, sync", [(2, False), (4, True)])
def test_mlp_example_matches_one_worker(n, sync):
    """examples/train_mlp_multiworker.py: N workers on N shards of each batch reach the parameters of
    one worker on the whole batch (it checks, and exits with 1 otherwise)."""
    example = os.path.join(os.path.dirname(WORKERS), "..", "..", "examples", "train_mlp_multiworker.py")
    job = Job([sys.executable, "-m", "ember.distribute.run", "-n", str(n), example, "--steps", "20"],
              env={"EMBER_ASYNC": "0" if sync else "1", "EMBER_COLLECTIVE_TIMEOUT": "30"})
    assert job.code == 0, job
    assert f"{n} workers match one worker on the whole batch" in job.out, job
    assert not job.leftovers


@pytest.mark.parametrize("n, local_devices, sync", [(2, 1, True), (4, 1, False), (4, 1, True), (2, 2, False)])
def test_workers_train_like_one_device(tmp_path, n, local_devices, sync):
    """N workers on N shards reach one device's parameters (SGD with momentum and Adam), in async
    and sync mode, with one or two devices per worker; worker 0 alone writes the checkpoint."""
    env = {"EMBER_ASYNC": "0" if sync else "1", "EMBER_NUM_CPU_DEVICES": str(local_devices),
           "EMBER_COLLECTIVE_TIMEOUT": "30"}
    job = _launch(n, "mlp_worker.py", str(tmp_path), str(local_devices), env=env)
    assert job.code == 0, job
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ok-")) == [f"ok-{r}" for r in range(n)]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("ckpt")] == ["ckpt-1.ckpt"]
    assert not job.leftovers


@pytest.mark.parametrize("local_devices", [1, 2])
def test_api_across_workers(tmp_path, local_devices):
    """Synced-on-read reads, aggregated writes, merge_call, values from a function and uneven
    batches over two workers (distribute_workers/api_worker.py)."""
    env = {"EMBER_NUM_CPU_DEVICES": str(local_devices), "EMBER_COLLECTIVE_TIMEOUT": "30"}
    job = _launch(2, "api_worker.py", str(tmp_path), str(local_devices), env=env)
    assert job.code == 0, job
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok-0", "ok-1"], job
    assert not job.leftovers


@pytest.mark.parametrize("first, then", [(4, 2), (2, 4)])
def test_training_resumes_from_a_checkpoint_with_another_worker_count(tmp_path, first, then):
    """A job of `first` workers trains and checkpoints (model, Adam slots, step count); a job of `then`
    workers restores it and trains on, ending where one device that never stopped ends."""
    env = {"EMBER_NUM_CPU_DEVICES": "1", "EMBER_COLLECTIVE_TIMEOUT": "30"}
    job = _launch(first, "resume_worker.py", str(tmp_path), "first", env=env)
    assert job.code == 0, job
    job = _launch(then, "resume_worker.py", str(tmp_path), "resume", env=env)
    assert job.code == 0, job
    names = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ok-"))
    assert names == sorted([f"ok-first-{r}" for r in range(first)] + [f"ok-resume-{r}" for r in range(then)])
    assert not job.leftovers


def test_keras_fit_on_two_workers_matches_one_device(tmp_path):
    """keras fit/evaluate/predict under MultiWorkerMirroredStrategy: each worker takes its share of
    each global batch and ends with one device's weights, logs and predictions."""
    job = _launch(2, "keras_fit_worker.py", str(tmp_path),
                  env={"EMBER_NUM_CPU_DEVICES": "1", "EMBER_COLLECTIVE_TIMEOUT": "30"})
    assert job.code == 0, job
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok-0", "ok-1"], job
    assert not job.leftovers


# --- Faults --------------------------------------------------------------------
def _errors(directory):
    return {int(p.name.split("-")[1]): p.read_text() for p in directory.iterdir() if p.name.startswith("error-")}


def _lost_ranks(message):
    found = re.search(r"lost worker ranks? ([\d, ]+) of", message)
    return [int(r) for r in found.group(1).split(",")] if found else []


@pytest.mark.parametrize("fault", ["kill", "kill_in_graph"])
def test_killed_worker_is_named_and_every_worker_ends(tmp_path, fault):
    """Rank 1 of 4 kills itself mid-step, its all-reduce eager or a graph's op (Note [Collective ops])."""
    timeout = 5
    job = _launch(4, "fault_worker.py", str(tmp_path), fault, timeout=timeout)
    assert job.code == 9, job  # SIGKILL's number, as mpiexec reports it
    assert "worker rank 1 ended without finishing" in job.err, job
    assert job.seconds < timeout + 15, job
    assert not job.leftovers, job
    # Survivors that got to raise before mpiexec ended them name rank 1 among the lost; others may
    # have been ended by mpiexec already (Note [Lost workers]).
    for rank, message in _errors(tmp_path).items():
        assert rank != 1 and "UnavailableError" in message and 1 in _lost_ranks(message), message


def test_stalled_worker_is_named_by_the_others(tmp_path):
    job = _launch(4, "fault_worker.py", str(tmp_path), "stall", timeout=1.5)
    errors = _errors(tmp_path)
    assert job.code == 1, job  # a survivor's error came first; rank 1 would have exited with 3 later
    assert errors and set(errors) <= {0, 2, 3}, job
    for message in errors.values():
        assert "UnavailableError" in message and _lost_ranks(message) == [1], message
        assert "EMBER_COLLECTIVE_TIMEOUT=1.5s" in message or "roll call" in message, message
    assert "lost worker rank 1 of 4" in job.err, job
    assert job.seconds < 20, job
    assert not job.leftovers, job


def test_launcher_forwards_ctrl_c(tmp_path):
    def looping():
        return all((tmp_path / f"looping-{r}").exists() for r in range(2))

    job = _launch(2, "fault_worker.py", str(tmp_path), "interrupt", interrupt_when=looping)
    assert job.code == 130, job
    assert all("KeyboardInterrupt" in m for m in _errors(tmp_path).values()), job
    assert not job.leftovers, job


def test_launcher_exits_with_the_first_failing_code(tmp_path):
    script = tmp_path / "exit_three.py"
    script.write_text("import os, sys\nsys.exit(3 if os.environ.get('PMI_RANK') == '1' else 0)\n")
    job = Job([sys.executable, "-m", "ember.distribute.run", "-n", "2", str(script)])
    assert job.code == 3, job
    assert "worker rank 1 failed first, exit code 3" in job.err, job
    assert not job.leftovers


# --- Without MPI in this process --------------------------------------------------
def test_missing_mpi4py_names_the_packages(monkeypatch):
    from ember.distribute import _mpi
    monkeypatch.setattr(_mpi, "_loaded", [])  # an earlier test in this process may have loaded it
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", None)
    with pytest.raises(ImportError, match="pip install mpi4py mpich"):
        _mpi.mpi()


def test_build_info_reports_mpi_without_importing_it_at_import():
    # Note [MPI on demand]: build_info loads MPI without initializing it; a
    # strategy's first collective initializes it later, and exit finalizes it.
    code = ("import sys, ember\nassert 'mpi4py' not in sys.modules\ninfo = ember.config.build_info()\n"
            "from mpi4py import MPI\nassert not MPI.Is_initialized()\n"
            "from ember.distribute import _mpi\nassert _mpi.mpi().Is_initialized()\n"
            "print(info['mpi_backend'], info['mpi4py_version'], '|', info['mpi_library'])")
    job = Job([sys.executable, "-c", code], timeout=30)
    assert job.code == 0, job
    assert job.out.startswith("mpi4py "), job
    assert "MPICH" in job.out or "MPI" in job.out, job


def test_a_worker_takes_its_share_of_each_global_batch():
    import ember
    from ember.distribute._input import _worker_share
    batch = ember.constant(np.arange(8))
    assert _worker_share(batch, 2, 1, 2).numpy().tolist() == [4, 5, 6, 7]
    assert _worker_share(batch, 4, 0, 1).numpy().tolist() == [0, 1]
    with pytest.raises(ValueError, match="does not split evenly among 6 replicas"):
        _worker_share(batch, 3, 0, 2)

# Kills a process in the middle of a checkpoint save and checks that the previous checkpoint still restores.

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import ember

# The child saves ckpt-1 and writes w (v = 1.0), then stalls half-way through writing the file
# named by its argument, during the save of ckpt-2 or a rewrite of w (v = 2.0), after creating
# a marker file the parent waits for.
_CHILD = textwrap.dedent("""
    import os, sys, time
    import ember
    from ember.train import _format

    directory, stall_in = sys.argv[1], sys.argv[2]
    v = ember.Variable(1.0)
    ckpt = ember.train.Checkpoint(v=v)
    manager = ember.train.CheckpointManager(ckpt, directory, max_to_keep=1)
    manager.save()
    ckpt.write(os.path.join(directory, "w"))
    original = _format.write_chunk

    def slow_write(f, chunk):
        if stall_in in os.path.basename(f.name):
            original(f, chunk[:len(chunk) // 2])
            f.flush()
            open(os.path.join(directory, "stalled"), "w").close()
            time.sleep(600)
        original(f, chunk)

    _format.write_chunk = slow_write
    v.assign(2.0)
    if stall_in == "w.ckpt":
        ckpt.write(os.path.join(directory, "w"))
    manager.save()
""")


@pytest.mark.parametrize("stall_in", ["ckpt-2.ckpt", "w.ckpt", "tmp-checkpoint"])
def test_killed_writer_leaves_previous_checkpoint_readable(tmp_path, stall_in):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(tmp_path), stall_in], env=env,
                             stderr=subprocess.PIPE)
    marker = tmp_path / "stalled"
    deadline = time.monotonic() + 120
    while not marker.exists():
        if child.poll() is not None:
            pytest.fail(f"the writer exited early: {child.stderr.read().decode()}")
        if time.monotonic() > deadline:
            child.kill()
            pytest.fail("the writer never reached the stalled write")
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    child.stderr.close()

    assert any(name.startswith(".tmp-") for name in os.listdir(tmp_path))  # the half-written file
    latest = ember.train.latest_checkpoint(tmp_path)
    assert latest == os.path.join(tmp_path, "ckpt-1")
    v = ember.Variable(0.0)
    ember.train.Checkpoint(v=v).restore(latest).assert_consumed()
    assert float(v.numpy()) == 1.0
    ember.train.Checkpoint(v=v).read(os.path.join(tmp_path, "w")).assert_consumed()  # rewritten in place: old value
    assert float(v.numpy()) == 1.0
    # A new manager in the directory starts from ckpt-1 and saves over the debris.
    manager = ember.train.CheckpointManager(ember.train.Checkpoint(v=v), tmp_path, max_to_keep=1)
    assert manager.checkpoints == [os.path.join(tmp_path, "ckpt-1")]

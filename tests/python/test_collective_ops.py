"""The collective ops' checks that the op database cannot express: errors a kernel finds (which
async mode reports at the read), and LocalCollectives' all_to_all and reduce_scatter over three
local devices. tests/python/op_db_collective.py runs the ops over every dtype on a one-process
communicator; tests/python/distribute_workers/ check them between processes."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember


def test_group_size_that_is_not_the_communicators_fails_at_the_kernel():
    MPI = pytest.importorskip("mpi4py.MPI", reason="the collective ops need mpi4py (pip install mpi4py mpich)")
    from ember.distribute import MpiCollectives

    c = MpiCollectives(comm=MPI.COMM_SELF, timeout=30)
    x = ember.ones([4, 2])
    for op in (ember.raw_ops.collective_reduce_scatter, ember.raw_ops.collective_all_to_all):
        with pytest.raises(ValueError, match=r"group_size is 2 but the communicator has 1 workers"):
            op(x, communicator=c._native.id, group_size=2).numpy()
    # The runtime and the communicator stay usable.
    np.testing.assert_array_equal(c.all_to_all([x], axis=1)[0].numpy(), np.ones((4, 2), np.float32))
    np.testing.assert_array_equal(c.reduce_scatter([x * 3], "max", axis=-1)[0].numpy(), np.full((4, 2), 3.0))


_LOCAL = textwrap.dedent("""
    import numpy as np
    import ember
    from ember.distribute import LocalCollectives

    devices = ember.list_devices()[:3]
    c = LocalCollectives(devices)
    values = [np.arange(24, dtype=np.float32).reshape(6, 4) * (d + 1) - d for d in range(3)]
    for axis in (0, 1):
        if values[0].shape[axis] % 3:
            values = [np.concatenate([v, v[:, :2]], axis=1) for v in values]
        got = c.all_to_all([ember.constant(v) for v in values], axis=axis)
        for d, part in enumerate(got):
            want = np.concatenate([np.split(v, 3, axis=axis)[d] for v in values], axis=axis)
            np.testing.assert_array_equal(part.numpy(), want)
            assert part.device == devices[d], (part.device, devices[d])
        for op, combine in (("sum", np.sum), ("max", np.max)):
            got = c.reduce_scatter([ember.constant(v) for v in values], op, axis=axis)
            for d, part in enumerate(got):
                np.testing.assert_allclose(part.numpy(), np.split(combine(values, 0), 3, axis=axis)[d])
    try:
        c.all_to_all([ember.ones([4])] * 3)
    except ValueError as error:
        assert "does not split into 3 equal pieces, one per device" in str(error), error
    else:
        raise AssertionError("an uneven all_to_all was accepted")
    print("ok")
""")


def test_local_all_to_all_and_reduce_scatter_over_three_devices():
    env = dict(os.environ, EMBER_NUM_CPU_DEVICES="3")
    done = subprocess.run([sys.executable, "-c", _LOCAL], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]

"""One MPI worker of test_distribute_multiworker.py: workers that disagree get an error, not a
wrong result or a hang (Note [Checked collectives] in ember/distribute/_mpi_collectives.py).

Usage: mismatch_worker.py OUT_DIR. Each worker writes OUT_DIR/ok-<rank> once both mismatches
raised what they should. The workers are out of step afterwards, so each then ends with exit
code 1 without MPI_Finalize, which would wait for the unmatched calls (Note [Lost workers]).
"""

import os
import sys

import ember
from ember.distribute import MpiCollectives

out_dir = sys.argv[1]
shapes = MpiCollectives(timeout=10)
rank = shapes.rank
try:
    shapes.all_reduce([ember.zeros([2 + rank])], "sum")
except ValueError as error:
    assert "different shapes" in str(error), error
else:
    raise AssertionError("a shape mismatch was not detected")
try:
    shapes.all_reduce([ember.zeros([2])], "sum")
except ValueError as error:
    assert "different shapes" in str(error), error  # the same error again: the workers are out of step
else:
    raise AssertionError("a collective after a mismatch ran")

calls = MpiCollectives(timeout=10)
try:
    calls.barrier() if rank == 0 else calls.all_reduce([ember.zeros([3])], "sum")
except ValueError as error:
    assert "called different collectives" in str(error), error
else:
    raise AssertionError("different collectives were not detected")

reductions = MpiCollectives(timeout=10)
try:
    reductions.all_reduce([ember.zeros([3])], "sum" if rank == 0 else "max")
except ValueError as error:
    assert "different reductions" in str(error), error
else:
    raise AssertionError("different reductions were not detected")

# One worker's all-reduce rides in the check packet, the other's is too large to
# (Note [Check packets]): they still meet in the check.
sizes = MpiCollectives(timeout=10)
try:
    sizes.all_reduce([ember.zeros([1 if rank == 0 else 1 << 20])], "sum")
except ValueError as error:
    assert "different shapes" in str(error), error
else:
    raise AssertionError("a small and a large all-reduce were not told apart")

with open(os.path.join(out_dir, f"ok-{rank}"), "w") as f:
    f.write("")

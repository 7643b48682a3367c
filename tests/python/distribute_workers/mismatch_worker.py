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


def expect_value_error(call, words, what):
    """Runs call(); it must raise a ValueError whose message holds `words`."""
    try:
        call()
    except ValueError as error:
        assert words in str(error), error
    else:
        raise AssertionError(f"{what} was not detected")


shapes = MpiCollectives(timeout=10)
rank = shapes.rank
expect_value_error(lambda: shapes.all_reduce([ember.zeros([2 + rank])], "sum"), "different shapes",
                   "a shape mismatch")
# The same error again: the workers are out of step.
expect_value_error(lambda: shapes.all_reduce([ember.zeros([2])], "sum"), "different shapes",
                   "a collective after a mismatch")

calls = MpiCollectives(timeout=10)
expect_value_error(lambda: calls.barrier() if rank == 0 else calls.all_reduce([ember.zeros([3])], "sum"),
                   "called different collectives", "different collectives")

reductions = MpiCollectives(timeout=10)
expect_value_error(lambda: reductions.all_reduce([ember.zeros([3])], "sum" if rank == 0 else "max"),
                   "different reductions", "different reductions")

# One worker's all-reduce rides in the check packet, the other's is too large to
# (Note [Check packets]): they still meet in the check.
sizes = MpiCollectives(timeout=10)
expect_value_error(lambda: sizes.all_reduce([ember.zeros([1 if rank == 0 else 1 << 20])], "sum"),
                   "different shapes", "a small all-reduce against a large one")

with open(os.path.join(out_dir, f"ok-{rank}"), "w") as f:
    f.write("")

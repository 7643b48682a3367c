"""One MPI worker of test_distribute_multiworker.py's fault tests: all-reduces in a loop until one
worker fails at step 20 in the way FAULT says.

Usage: fault_worker.py OUT_DIR FAULT, FAULT one of "kill" (rank 1 sends itself SIGKILL),
"kill_in_graph" (the same, with each all-reduce inside an ember.function: a graph's op),
"stall" (rank 1 stops calling collectives for a while) or "interrupt" (every worker loops until
Ctrl-C). A worker that raises writes the error to OUT_DIR/error-<rank> first, since its output
may not get through once another worker died (Note [Launcher] in ember/distribute/run.py).
"""

import os
import signal
import sys
import time

import numpy as np

import ember
from ember.distribute import MpiCollectives

out_dir, fault = sys.argv[1], sys.argv[2]
collectives = MpiCollectives()
rank = collectives.rank
value = ember.constant(np.ones(1 << 12, np.float32))
step_function = ember.function(lambda x: collectives.all_reduce([x], "sum")[0])
with open(os.path.join(out_dir, f"pid-{rank}"), "w") as f:
    f.write(str(os.getpid()))
try:
    for step in range(1_000_000):
        if step == 20 and fault == "interrupt":
            with open(os.path.join(out_dir, f"looping-{rank}"), "w") as f:
                f.write("")
        if step == 20 and rank == 1 and fault in ("kill", "kill_in_graph"):
            os.kill(os.getpid(), signal.SIGKILL)
        if step == 20 and rank == 1 and fault == "stall":
            time.sleep(4.5)  # longer than the test's timeout (1.5 s) plus the roll call (1 s)
            sys.exit(3)
        if fault == "kill_in_graph":
            step_function(value).numpy()
        else:
            collectives.all_reduce([value], "sum")
        if fault == "interrupt":
            time.sleep(0.01)
except (Exception, KeyboardInterrupt) as error:
    # Written aside and renamed: mpiexec may end this worker mid-write once another one failed, and
    # the test must never find a half-written (empty) error file.
    partial = os.path.join(out_dir, f"partial-{rank}")
    with open(partial, "w") as f:
        f.write(f"{type(error).__name__}: {error}")
    os.replace(partial, os.path.join(out_dir, f"error-{rank}"))
    raise

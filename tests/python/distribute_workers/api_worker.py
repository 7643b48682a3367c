"""One MPI worker of test_distribute_multiworker.py: the tf.distribute pieces whose behaviour spans
workers (synced-on-read reads, aggregated writes, merge_call, values from a function, uneven
batches), checked against values computed from the replica ids.

Usage: api_worker.py OUT_DIR LOCAL_DEVICES. Global replica g (worker-major) contributes g + 1;
every worker writes OUT_DIR/ok-<rank> when all checks pass.
"""

import os
import sys

import numpy as np

import ember

D = ember.distribute
VS, VA = ember.VariableSynchronization, ember.VariableAggregation
out_dir = sys.argv[1]
local = int(sys.argv[2])

strategy = D.MultiWorkerMirroredStrategy(devices=[f"cpu:{i}" for i in range(local)])
rank = strategy.cluster_resolver.task_id
n = strategy.num_replicas_in_sync
mine = [rank * local + i for i in range(local)]  # this worker's global replica ids
everyone = np.arange(1, n + 1, dtype=np.float32)  # what the replicas contribute


def parts(value):
    return [np.asarray(p).tolist() for p in strategy.experimental_local_results(value)]


# Values from a function: global replica ids, on the local devices.
ids = strategy.experimental_distribute_values_from_function(
    lambda ctx: ember.constant(float(ctx.replica_id_in_sync_group) + 1.0))
assert parts(ids) == [g + 1.0 for g in mine], parts(ids)

with strategy.scope():
    on_read_sum = ember.Variable(0.0, synchronization=VS.ON_READ, aggregation=VA.SUM)
    on_read_mean = ember.Variable(0.0, synchronization=VS.ON_READ, aggregation=VA.MEAN)
    summed = ember.Variable(0.0, aggregation=VA.SUM)
    first = ember.Variable(0.0, aggregation=VA.ONLY_FIRST_REPLICA)


def replica_step(x):
    on_read_sum.assign_add(x)
    on_read_mean.assign_add(x)
    summed.assign_add(x)  # aggregated over every replica of every worker
    first.assign(x)  # global replica 0's value, on every worker
    # merge_call: merge_fn runs once per worker, with this worker's replicas' values.
    return D.get_replica_context().merge_call(lambda s, v: (parts(v), s.reduce("SUM", v, axis=None)), args=(x,))


merged = strategy.run(replica_step, args=(ids,))
seen, total = merged  # the merge result's leaves are the same objects in every replica, so not PerReplica
assert seen == [g + 1.0 for g in mine], seen
assert float(total) == everyone.sum(), total
assert parts(on_read_sum) == [g + 1.0 for g in mine]  # each replica's own copy
assert float(on_read_sum) == everyone.sum(), float(on_read_sum)  # a cross-worker SUM on read
assert float(on_read_mean) == everyone.mean(), float(on_read_mean)
assert parts(summed) == [everyone.sum()] * local, parts(summed)
assert parts(first) == [1.0] * local, parts(first)
on_read_sum.assign(2.0 * n)  # each of the n copies gets 2, so that the sum reads 2n back
assert parts(on_read_sum) == [2.0] * local and float(on_read_sum) == 2.0 * n

# Uneven batches: a global batch of 2n rows, then a final one of 1 row (global replica 0's only).
data = ember.data.Dataset.range(2 * n + 1).batch(2 * n)
batches = list(strategy.experimental_distribute_dataset(data))
assert len(batches) == 2
assert parts(batches[0]) == [[2 * g, 2 * g + 1] for g in mine], parts(batches[0])
assert parts(batches[1]) == [[2 * n] if g == 0 else [] for g in mine], parts(batches[1])
assert int(strategy.reduce("SUM", batches[1], axis=0)) == 2 * n

strategy.barrier()
open(os.path.join(out_dir, f"ok-{rank}"), "w").close()

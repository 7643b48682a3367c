"""ember.distribute: data-parallel training over several devices (``tf.distribute``).

MirroredStrategy runs one replica per local device and combines values with
LocalCollectives; MultiWorkerMirroredStrategy runs one process per worker and
combines across them with MpiCollectives (MPI through mpi4py, loaded on first
use). docs/distributed.md describes the layer and what is not built yet.
"""

from ember.distribute._collectives import Collectives, LocalCollectives
from ember.distribute._distribution_context import (
    ReplicaContext, get_cross_replica_context, get_replica_context, get_strategy, has_strategy,
    in_cross_replica_context)
from ember.distribute._input import InputContext, ValueContext
from ember.distribute._mirrored_strategy import MirroredStrategy, OneDeviceStrategy
from ember.distribute._mirrored_variable import MirroredVariable, SyncOnReadVariable
from ember.distribute._mpi_collectives import MpiCollectives
from ember.distribute._multi_worker_strategy import (
    CommunicationOptions, MpiClusterResolver, MultiWorkerMirroredStrategy)
from ember.distribute._reduce_op import ReduceOp
from ember.distribute._strategy import Strategy, StrategyExtended
from ember.distribute._values import PerReplica

__all__ = [
    "Collectives", "CommunicationOptions", "InputContext", "LocalCollectives", "MirroredStrategy", "MirroredVariable",
    "MpiClusterResolver", "MpiCollectives", "MultiWorkerMirroredStrategy", "OneDeviceStrategy", "PerReplica",
    "ReduceOp", "ReplicaContext", "Strategy", "StrategyExtended", "SyncOnReadVariable", "ValueContext",
    "get_cross_replica_context", "get_replica_context", "get_strategy", "has_strategy", "in_cross_replica_context",
]

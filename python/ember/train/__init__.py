"""ember.train: object-based checkpoints (``tf.train.Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``).

The file format is Ember's own, documented in docs/modules_and_checkpoints.md.
"""

from ember.train._checkpoint import Checkpoint
from ember.train._manager import CheckpointManager
from ember.train._state import latest_checkpoint

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint"]

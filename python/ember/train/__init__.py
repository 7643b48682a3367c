"""ember.train: object-based checkpoints (``tf.train.Checkpoint``, ``CheckpointManager``, ``latest_checkpoint``)
and reading checkpoints by key (``load_checkpoint``, ``list_variables``).

Ember writes its own file format, and reads it and TensorFlow's tensor bundles; both are
documented in docs/modules_and_checkpoints.md.
"""

from ember.train._checkpoint import Checkpoint
from ember.train._manager import CheckpointManager
from ember.train._reader import list_variables, load_checkpoint
from ember.train._state import latest_checkpoint

__all__ = ["Checkpoint", "CheckpointManager", "latest_checkpoint", "list_variables", "load_checkpoint"]

"""ember.data: input pipelines (``tf.data``).

``ember.data.Dataset`` with tf.data's everyday API: sources
(``from_tensor_slices``, ``from_tensors``, ``range``, ``from_generator``,
``zip``) and transformations (``map``, ``filter``, ``batch``,
``padded_batch``, ``unbatch``, ``shuffle``, ``repeat``, ``take``,
``skip``, ``enumerate``, ``concatenate``, ``cache``, ``prefetch``). See
docs/data.md for what differs from tf.data.
"""

from ember.data import experimental
from ember.data._iterator import Iterator
from ember.data._dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset

__all__ = ["AUTOTUNE", "Dataset", "INFINITE_CARDINALITY", "Iterator", "UNKNOWN_CARDINALITY", "experimental"]

"""ember.data: input pipelines (``tf.data``).

``ember.data.Dataset`` with tf.data's everyday API: sources
(``from_tensor_slices``, ``from_tensors``, ``range``, ``from_generator``,
``zip``) and transformations (``map``, ``filter``, ``batch``,
``padded_batch``, ``unbatch``, ``shuffle``, ``repeat``, ``take``,
``skip``, ``enumerate``, ``concatenate``, ``cache``, ``prefetch``,
``interleave``, ``flat_map``, ``window``, ``shard``), file sources
(``TextLineDataset``, ``TFRecordDataset``, ``Dataset.list_files``,
``experimental.CsvDataset``) and sampling. See docs/data.md and
docs/strings_and_files.md for what differs from tf.data.
"""

from ember.data import experimental
from ember.data._iterator import Iterator
from ember.data._dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from ember.data._combinators import DatasetSpec
from ember.data._files import TextLineDataset, TFRecordDataset

__all__ = ["AUTOTUNE", "Dataset", "DatasetSpec", "INFINITE_CARDINALITY", "Iterator", "TFRecordDataset",
           "TextLineDataset", "UNKNOWN_CARDINALITY", "experimental"]
